# BOLT's CFG quirks for test/BoltYaml/quirks*.test: in `work`, a jmp right
# after a conditional branch (same block), a nop after a jmp (a block of
# its own, falling through), a conditional tail call (ja helper), ud2 (a
# terminator), a tail call (jmp helper); in `helper`, an indirect jump in
# an epilogue (a tail call to BOLT); in _start, an indirect call; RIP-
# relative data references (their addresses are in the block hashes).
  .text
  .globl _start
  .type _start,@function
_start:
  mov $4, %ecx
outer:
  call work
back:
  lea tab(%rip), %rdx
  call *(%rdx)
back2:
  dec %ecx
j4:
  jne outer
  mov $60, %eax
  xor %edi, %edi
  syscall
  .size _start, .-_start

  .globl work
  .type work,@function
work:
  test $1, %ecx
j1:
  jne odd
j2:
  jmp even
  nop
odd:
  add $3, %eax
  cmp $1000, %eax
j3:
  ja helper
  .p2align 4
even:
  test %ecx, %ecx
jn:
  jns fine
  ud2
fine:
  add $5, %eax
  movl %eax, counter(%rip)
jt:
  jmp helper
  .size work, .-work

  .globl helper
  .type helper,@function
helper:
  push %rbx
  mov %eax, %ebx
  lea leaf(%rip), %rax
  pop %rbx
ji:
  jmp *%rax
  .size helper, .-helper

  .globl leaf
  .type leaf,@function
leaf:
  add $1, %eax
lr:
  ret
  .size leaf, .-leaf

  .data
  .p2align 3
tab:
  .quad leaf
counter:
  .long 0
