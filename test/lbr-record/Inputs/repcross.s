# Two QEMU 7.2 translation quirks the LBR emulation must hide, in a static
# program without libc:
#  - `rep stosb` runs as a block that jumps to itself once per iteration;
#    hardware retires one instruction and records no branch.
#  - in `crossing`, the movabs at page offset 0xffc crosses into the next
#    page; QEMU drops it from the block that starts at `crossing` (yet lists
#    it to plugins) and starts the next block with it.
# Each of the 1000 loop iterations therefore runs `crossing` as one
# straight-line range of 5 instructions, and `rep stosb` exactly once.
        .text
        .globl  _start
_start:
        movl    $1000, %r12d
loop_head:
        leaq    buf(%rip), %rdi
        movl    $64, %ecx
        xorl    %eax, %eax
rep_insn:
        rep stosb
        callq   crossing
        decl    %r12d
loop_jump:
        jnz     loop_head
        movl    $60, %eax
        xorl    %edi, %edi
        syscall

        .p2align 12
        .skip   0xff0
        .globl  crossing
crossing:
        addq    $1, %rax
        addq    $1, %rax
        addq    $1, %rax
page_crosser:
        movabsq $0x1122334455667788, %rbx
crossing_ret:
        retq

        .bss
buf:
        .zero   64
