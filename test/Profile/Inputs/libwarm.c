// A second shared library: a hash loop with a data-dependent branch.
__attribute__((noinline)) unsigned warm_mix(unsigned h, int n) {
  for (int i = 0; i < n; ++i) {
#ifdef OTHER
    h = h * 37 + i;
#else
    h = h * 31 + i;
#endif
    if (h & 8)
      h ^= h >> 3;
  }
  return h;
}
