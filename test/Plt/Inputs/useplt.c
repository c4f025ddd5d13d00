/* A PIE calling into libplt.so and libc through its own PLT: work@plt,
   mix@plt, qsort@plt, printf@plt. */
#include <stdio.h>
#include <stdlib.h>

unsigned work(unsigned n);
unsigned mix(unsigned x);

static int cmp(const void *a, const void *b) {
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  unsigned buf[64], sum = 0;
  (void)argv;
  for (unsigned r = 0; r < 2000; ++r) {
    sum += work(50 + (r & 15) + argc);
    for (unsigned k = 0; k < 64; ++k)
      buf[k] = mix(sum + k);
    qsort(buf, 64, sizeof buf[0], cmp);
    sum += buf[r & 63];
  }
  printf("%u\n", sum);
  return 0;
}
