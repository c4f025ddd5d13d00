/* Call stacks for callchain.test: a direct chain main -> top -> (indirect)
   mid -> leaf, and every 50th iteration a 200-deep recursion in deep()
   before the same chain, deeper than the 127 addresses a callchain keeps. */
#include <stdio.h>

__attribute__((noinline)) int leaf(int x) {
  volatile int s = 0;
  for (int i = 0; i < 50; ++i)
    s += x ^ i;
  return s;
}
__attribute__((noinline)) int mid(int x) { return leaf(x) + 1; }
__attribute__((noinline)) int top(int (*f)(int), int x) { return f(x) * 2; }
__attribute__((noinline)) int deep(int n) {
  if (n == 0)
    return top(mid, 3);
  return deep(n - 1) + 1;
}

int main(void) {
  long s = 0;
  for (int i = 0; i < 2000; ++i)
    s += top(mid, i) + (i % 50 == 0 ? deep(200) : 0);
  printf("%ld\n", s);
  return 0;
}
