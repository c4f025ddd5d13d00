# Writes a C program of N small functions (argv[1]), each a loop with
# branches, all called in turn through a table by main: thousands of
# distinct ranges in a few hundred functions (test/Profile/threads.test).
import sys
n = int(sys.argv[1])
out = ["#include <stdlib.h>", "typedef unsigned (*fn)(unsigned);"]
for i in range(n):
    out.append(f"""__attribute__((noinline)) unsigned f{i}(unsigned x) {{
  unsigned s = {i};
  for (unsigned k = 0; k < (x & 7) + 2; ++k) {{
    if ((x + k) % 3 == {i % 3}) s += k * {i + 1}; else s ^= x >> (k & 3);
    if (s & {1 << (i % 5)}) s += {i % 11}; else if (s & 2) s -= 3;
  }}
  return s;
}}""")
out.append("fn table[] = {" + ", ".join(f"f{i}" for i in range(n)) + "};")
out.append(f"""int main(int argc, char **argv) {{
  unsigned r = 0, iters = argc > 1 ? atoi(argv[1]) : 40;
  for (unsigned it = 0; it < iters; ++it)
    for (unsigned i = 0; i < {n}; ++i)
      r += table[i](r + it * 7 + i);
  return r & 1;
}}""")
print("\n".join(out))
