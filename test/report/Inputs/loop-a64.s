# loop.s for AArch64: the same loop, branches and calls, as BRBE sees them.
  .text
  .globl main
  .type main,@function
main:
  mov x1, #0
loop:
  tst x1, #1
alt:
  b.ne odd
dcall:
  bl g
odd:
  adr x2, h
icall:
  blr x2
back:
  add x1, x1, #1
  cmp x1, #10
latch:
  b.ne loop
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
