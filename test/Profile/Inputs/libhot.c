// A shared library with a hot, branchy function: a loop with a
// data-dependent branch, a switch and a call through a pointer.
static int sq(int x) { return x * x; }
static int neg(int x) { return -x; }
static int (*const Fns[2])(int) = {sq, neg};

__attribute__((noinline)) int lib_work(const int *a, int n) {
  int acc = 0;
  for (int i = 0; i < n; ++i) {
    if (a[i] & 1)
      acc += Fns[(a[i] >> 1) & 1](a[i]);
    else
      switch (a[i] & 6) {
      case 0: acc ^= a[i]; break;
      case 2: acc += 3; break;
      case 4: acc -= a[i] >> 2; break;
      default: acc = acc * 3 + 1; break;
      }
  }
  return acc;
}
