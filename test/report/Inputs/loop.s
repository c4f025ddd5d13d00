# A loop in main: even iterations call g directly, odd ones skip it (alt);
# every iteration calls h or h2 through a register (icall). Assembled with
# llvm-mc -g, so file:line is loop.s:LINE.
  .text
  .globl main
  .type main,@function
main:
  xor %ecx, %ecx
loop:
  test $1, %cl
alt:
  jne odd
dcall:
  call g
odd:
  lea h(%rip), %rax
icall:
  call *%rax
back:
  inc %ecx
  cmp $10, %ecx
latch:
  jne loop
  ret
  .size main, .-main
  .globl g
  .type g,@function
g:
  ret
  .size g, .-g
  .globl h
  .type h,@function
h:
  ret
  .size h, .-h
  .globl h2
  .type h2,@function
h2:
  ret
  .size h2, .-h2
