/* A program with a few hot functions, built twice: as recorded, and with
   -DV2 (a statement added to a hot loop, a constant changed) as the
   "rebuilt" binary that stale-profile matching must place the old
   profile on. */
#include <stdio.h>

static unsigned Seed = 12345;

__attribute__((noinline)) unsigned next_rand(void) {
  Seed = Seed * 1103515245u + 12345u;
  return Seed >> 16;
}

__attribute__((noinline)) int classify(unsigned V) {
  if (V % 7 == 0)
    return 3;
  if (V % 3 == 0)
    return 2;
  if (V & 1)
    return 1;
  return 0;
}

__attribute__((noinline)) int search(const int *A, int N, int Key) {
  int Lo = 0, Hi = N - 1;
  while (Lo <= Hi) {
    int Mid = (Lo + Hi) / 2;
    if (A[Mid] == Key)
      return Mid;
    if (A[Mid] < Key)
      Lo = Mid + 1;
    else
      Hi = Mid - 1;
  }
  return -1;
}

__attribute__((noinline)) long accumulate(int N) {
  long Sum = 0;
  int Counts[4] = {0, 0, 0, 0};
  for (int I = 0; I < N; ++I) {
    unsigned R = next_rand();
    int C = classify(R);
    Counts[C]++;
#ifdef V2
    Sum += R & 3;
#endif
    if (C == 3)
      Sum += R % 11;
    else if (C == 1)
      Sum -= 1;
  }
  return Sum + Counts[0] - Counts[3];
}

__attribute__((noinline)) int lookups(int N) {
  static int Table[256];
  for (int I = 0; I < 256; ++I)
    Table[I] = I * 3;
  int Found = 0;
  for (int I = 0; I < N; ++I)
#ifdef V2
    Found += search(Table, 256, (int)(next_rand() % 800)) >= 0;
#else
    Found += search(Table, 256, (int)(next_rand() % 768)) >= 0;
#endif
  return Found;
}

int main(void) {
  long S = accumulate(40000);
  int F = lookups(20000);
  printf("%ld %d\n", S, F);
  return 0;
}
