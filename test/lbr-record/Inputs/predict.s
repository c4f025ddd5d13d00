# Branches whose predictor outcome is known, to pin the mispredict and
# cycles model of lbr-record (docs/lbr-record.md):
#  - alt_jump is taken every other iteration: a 2-bit counter mispredicts
#    it every time, taken or not;
#  - ind_call alternates between two targets: the BTB, holding the last
#    target, mispredicts it every time; the returns are predicted by the
#    return stack.
        .text
        .globl  _start
_start:
        movl    $2000, %ecx
loop1:
        testl   $1, %ecx
alt_jump:
        jz      skip
        nop
skip:
        decl    %ecx
latch1:
        jnz     loop1

        leaq    f1(%rip), %r8
        leaq    f2(%rip), %r9
        movl    $1000, %ecx
loop2:
        movq    %r8, %rax
        xchgq   %r8, %r9
ind_call:
        callq   *%rax
after_call:
        decl    %ecx
latch2:
        jnz     loop2
        movl    $60, %eax
        xorl    %edi, %edi
        syscall

f1:
        retq
f2:
        retq
