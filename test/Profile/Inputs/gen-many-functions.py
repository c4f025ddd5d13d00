# Writes a C program of N small functions (argv[1]), each a loop with
# branches, all called in turn through a table by main: thousands of
# distinct ranges in a few hundred functions (test/Profile/threads.test).
# With K (argv[2]), main calls them through K wrappers, each from its own
# call site: about 2K + 1 calling contexts for a context-sensitive profile.
import sys
n = int(sys.argv[1])
k = int(sys.argv[2]) if len(sys.argv) > 2 else 0
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
if not k:
    out.append(f"""int main(int argc, char **argv) {{
  unsigned r = 0, iters = argc > 1 ? atoi(argv[1]) : 40;
  for (unsigned it = 0; it < iters; ++it)
    for (unsigned i = 0; i < {n}; ++i)
      r += table[i](r + it * 7 + i);
  return r & 1;
}}""")
else:
    for j in range(k):
        out.append(f"""__attribute__((noinline)) unsigned w{j}(unsigned i, unsigned x) {{
  return table[i](x) + {j};
}}""")
    cases = "\n".join(f"      case {j}: r += w{j}(i, r + it * 7 + i); break;"
                      for j in range(k))
    out.append(f"""int main(int argc, char **argv) {{
  unsigned r = 0, iters = argc > 1 ? atoi(argv[1]) : 40;
  for (unsigned it = 0; it < iters; ++it)
    for (unsigned i = 0; i < {n}; ++i)
      switch (i % {k}) {{
{cases}
      }}
  return r == 0xdeadbeef; /* r stays live; the exit status is 0 */
}}""")
print("\n".join(out))
