// A loop with one branch taken 1 time in 16: the sample profile must tell
// clang which side is hot.
#include <stdio.h>

__attribute__((noinline)) int rare_path(int x) { return x * 7 + 1; }
__attribute__((noinline)) int common_path(int x) { return x ^ 0x5a5a; }

__attribute__((noinline)) int classify(int x) {
  if ((x & 15) == 0)
    return rare_path(x);
  return common_path(x);
}

int main(void) {
  long sum = 0;
  for (int i = 0; i < 400000; ++i)
    sum += classify(i);
  printf("%ld\n", sum);
  return 0;
}
