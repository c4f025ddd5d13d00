// A C++ program whose hot code is inlined templates: std::sort with a
// lambda, and run<long> (noinline) with Acc<long>::add inlined into it.
#include <cstdio>
#include <vector>
#include <algorithm>
template <typename T> struct Acc {
  T sum{};
  void add(T v) { if (v % 3) sum += v; else sum -= v / 2; }
};
template <typename T> __attribute__((noinline)) T run(const std::vector<T> &v) {
  Acc<T> a;
  for (auto x : v) a.add(x);
  return a.sum;
}
int main() {
  std::vector<long> v(1000);
  for (size_t i = 0; i < v.size(); i++) v[i] = (i * 7919) % 1013;
  long t = 0;
  for (int k = 0; k < 300; k++) { std::sort(v.begin(), v.end(), [k](long a, long b){ return (a ^ k) < (b ^ k); }); t += run(v); }
  printf("%ld\n", t);
}
