/* A small program with inlining and loops, built with -O2 -g, for the
   symbolizer tests. */
static int sq(int x) { return x * x; }
static int sum(const int *v, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i)
    s += (v[i] & 1) ? sq(v[i]) : v[i];
  return s;
}
int main(int argc, char **argv) {
  int v[64];
  for (int i = 0; i < 64; ++i)
    v[i] = i * argc;
  (void)argv;
  return sum(v, 64) & 0x7f;
}
