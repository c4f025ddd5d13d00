/* A shared library whose exported functions call each other through the
   PLT: built -fPIC without -fno-semantic-interposition, work's call of the
   exported mix goes to mix@plt, which jumps to mix through the GOT. */
__attribute__((noinline)) unsigned mix(unsigned x) {
  x ^= x >> 7;
  x *= 0x9e3779b1u;
  return x ^ (x >> 13);
}

__attribute__((noinline)) unsigned work(unsigned n) {
  unsigned acc = 0;
  for (unsigned i = 0; i < n; ++i)
    acc += (i & 3) ? mix(acc + i) : i;
  return acc;
}
