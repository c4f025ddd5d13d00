// Calls lib_work from libhot.so many times on pseudo-random data.
#include <stdio.h>
int lib_work(const int *a, int n);
int main(void) {
  static int a[256];
  unsigned s = 7;
  long total = 0;
  for (int r = 0; r < 2000; ++r) {
    for (int i = 0; i < 256; ++i) {
      s = s * 1103515245u + 12345u;
      a[i] = (int)((s >> 16) & 0x3ff);
    }
    total += lib_work(a, 256);
  }
  printf("%ld\n", total);
  return 0;
}
