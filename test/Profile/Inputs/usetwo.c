// Calls into two shared libraries, libhot.so and libwarm.so.
#include <stdio.h>
int lib_work(const int *a, int n);
unsigned warm_mix(unsigned h, int n);
int main(void) {
  static int a[256];
  unsigned s = 7, h = 1;
  long total = 0;
  for (int r = 0; r < 1000; ++r) {
    for (int i = 0; i < 256; ++i) {
      s = s * 1103515245u + 12345u;
      a[i] = (int)((s >> 16) & 0x3ff);
    }
    total += lib_work(a, 256);
    h = warm_mix(h, 200);
  }
  printf("%ld %u\n", total, h);
  return 0;
}
