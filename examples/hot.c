/* The bundled example of README command 1: a loop with a biased branch
   (taken about 1 time in 8) and a call, small enough to capture under the
   emulated LBR in a second. setup.sh builds it with -O2 -g, records it with
   utils/lbr-record and turns the capture into a sample profile, a BOLT
   .fdata file and a report. */
#include <stdio.h>

static unsigned State = 12345;

__attribute__((noinline)) static unsigned next(void) {
  State = State * 1103515245u + 12345u;
  return State >> 16;
}

__attribute__((noinline)) static unsigned rare(unsigned X) {
  return (X * 7u) ^ (X >> 3);
}

int main(void) {
  unsigned Sum = 0;
  for (int I = 0; I < 300000; ++I) {
    unsigned R = next();
    if ((R & 7u) == 0)
      Sum += rare(R);
    else
      Sum += R & 0xff;
  }
  printf("%u\n", Sum);
  return 0;
}
