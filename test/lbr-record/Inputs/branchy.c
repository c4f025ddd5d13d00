// A deterministic, branch-heavy test program for lbr-record. Every kind of
// branch the LBR emulation distinguishes appears in functions named t_*:
// data-dependent conditionals, a loop with early exits, a dense switch
// (a jump table: indirect jump), calls through a function pointer (indirect
// calls), and recursion (many returns to varying sites). No libc call sits
// inside the t_* functions, so their execution is identical natively (under
// valgrind) and under qemu-user, and counts can be compared exactly.
#include <stdio.h>

static unsigned Seed = 12345;

__attribute__((noinline)) unsigned t_rand(void) {
  Seed = Seed * 1103515245u + 12345u;
  return (Seed >> 16) & 0x7fff;
}

__attribute__((noinline)) int t_fib(int n) {
  return n < 2 ? n : t_fib(n - 1) + t_fib(n - 2);
}

__attribute__((noinline)) int t_op_add(int a, int b) { return a + b; }
__attribute__((noinline)) int t_op_xor(int a, int b) { return a ^ b; }
__attribute__((noinline)) int t_op_sub(int a, int b) { return a - b; }

__attribute__((noinline)) int t_switch(unsigned v, int acc) {
  switch (v & 7) {
  case 0: return acc + 3;
  case 1: return acc * 5;
  case 2: return acc - 7;
  case 3: return acc ^ 0x55;
  case 4: return acc + (int)v;
  case 5: return acc >> 1;
  case 6: return acc << 1;
  default: return ~acc;
  }
}

__attribute__((noinline)) int t_search(const int *a, int n, int key) {
  for (int i = 0; i < n; ++i) {
    if (a[i] == key)
      return i;
    if (a[i] > key + 1000)
      break;
  }
  return -1;
}

int (*const Ops[3])(int, int) = {t_op_add, t_op_xor, t_op_sub};

__attribute__((noinline)) int t_main(int rounds) {
  int table[64];
  for (int i = 0; i < 64; ++i)
    table[i] = (int)(t_rand() & 0x3ff);
  int acc = 1;
  for (int r = 0; r < rounds; ++r) {
    unsigned v = t_rand();
    if (v & 1)
      acc += 1;
    else if (v & 2)
      acc -= 3;
    acc = t_switch(v, acc);
    acc = Ops[v % 3](acc, (int)v);
    if ((r & 15) == 0)
      acc += t_search(table, 64, (int)(v & 0x3ff));
    if ((r & 255) == 0)
      acc += t_fib(12);
  }
  return acc;
}

int main(void) {
  printf("%d\n", t_main(20000));
  return 0;
}
