/* A loop with a noinline helper gcc may clone (classify.constprop.0,
   .isra.0: gcc reads those names cut at the '.'), an inlined static
   function, and branches taken in a skewed ratio. */
#include <stdio.h>
#include <stdlib.h>

static int table[64];

__attribute__((noinline)) static int classify(int v, int scale) {
  if (v % 5 == 0)
    return v * scale;
  if (v % 3 == 0)
    return v - scale;
  return v + 1;
}

static inline int mix(int a, int b) {
  int r = a ^ (b << 3);
  if (r & 1)
    r += table[r & 63];
  return r;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 200000;
  long sum = 0;
  for (int i = 0; i < 64; i++)
    table[i] = i * 7;
  for (int i = 0; i < n; i++) {
    int c = classify(i, 3);
    sum += mix(c, i);
  }
  printf("%ld\n", sum);
  return 0;
}
