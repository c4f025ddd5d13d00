/* Context matters here: step() has one branch, and which way it goes
   depends on the caller. walk_odd() passes odd numbers (taken: x & 7 is
   never 0), walk_even() multiples of 8 (never taken). A line-based profile
   merges both callers into step's one profile (about 50/50); a
   context-sensitive one keeps them apart, so where clang inlines step
   into each caller, each copy of the branch gets its own weights. The
   data comes from arrays filled at run time, so no constant folding
   hides the branch, and a volatile store keeps it from becoming a
   conditional move. NOINLINE is noinline for the profiled build and
   empty for the build that uses the profile. */
#include <stdio.h>
#include <stdlib.h>

#ifndef NOINLINE
#define NOINLINE
#endif

#define N 4096
static unsigned Odd[N], Even[N];
/* A volatile store cannot be speculated: the branch stays a branch. */
static volatile unsigned Sink;

NOINLINE static unsigned step(unsigned x) {
  if (x & 7) {
    Sink = x;
    return x * 3 + 1;
  }
  return x / 2;
}

NOINLINE static unsigned walk_odd(void) {
  unsigned s = 0;
  for (int i = 0; i < N; ++i)
    s += step(Odd[i]);
  return s;
}

NOINLINE static unsigned walk_even(void) {
  unsigned s = 0;
  for (int i = 0; i < N; ++i)
    s += step(Even[i]);
  return s;
}

int main(int argc, char **argv) {
  unsigned seed = argc > 5 ? 7 : 1;
  for (int i = 0; i < N; ++i) {
    seed = seed * 1103515245u + 12345u;
    Odd[i] = (seed >> 8) | 1;
    Even[i] = (seed >> 8) << 3;
  }
  unsigned s = 0;
  for (int r = 0; r < 60; ++r)
    s += walk_odd() + walk_even();
  printf("%u\n", s);
  return 0;
}
