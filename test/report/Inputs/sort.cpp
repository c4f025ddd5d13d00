// A C++ program whose hot function is a deep template instance
// (std::__introsort_loop<...> with a comparator in an anonymous
// namespace): demangle.test.
#include <algorithm>
#include <vector>
#include <cstdio>
namespace {
struct Cmp { bool operator()(int a, int b) const { return (a ^ 0x55) < (b ^ 0x55); } };
}
template <class T> struct Box { T v; T get() const { return v; } };
int main() {
  std::vector<int> v;
  unsigned s = 1;
  for (int i = 0; i < 200000; ++i) { s = s * 1103515245u + 12345u; v.push_back(s >> 8); }
  std::sort(v.begin(), v.end(), Cmp());
  Box<long> b{v[5]};
  printf("%ld\n", b.get());
}
