// A loop whose body is a static function inlined into work(), with a
// branch taken 1 time in 16 (its side inlined too) and a call that stays a
// call: pseudo probes of three kinds of place (an outlined function, an
// inlinee, a call site). Exact counts, by hand: work's loop runs 200000
// times, pick() runs 200000 times inlined, rare() 12500 times (inlined and
// folded), common() 187500 times.
#include <stdio.h>

static int rare(int x) { return x * 7 + 1; }
__attribute__((noinline)) int common(int x) { return x ^ 0x5a5a; }

static inline int pick(int x) {
  if ((x & 15) == 0)
    return rare(x);
  return common(x);
}

__attribute__((noinline)) long work(int n) {
  long sum = 0;
  for (int i = 0; i < n; ++i)
    sum += pick(i);
  return sum;
}

int main(void) {
  printf("%ld\n", work(200000));
  return 0;
}
