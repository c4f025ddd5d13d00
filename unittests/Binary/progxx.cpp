// A C++ program for the symbolizer tests: namespaces, a class whose
// members are defined out of line (DW_AT_specification), templates and
// lambdas inlined at several depths (DW_AT_abstract_origin, DW_AT_ranges
// where inlined code is split), built -O2 -g in DWARF 4 and 5.
#include <cstdio>
#include <cstdlib>

namespace shapes {
class Acc {
public:
  explicit Acc(int Seed);
  int step(int X);
  int total() const;

private:
  int Sum;
};
Acc::Acc(int Seed) : Sum(Seed) {}
template <typename T> static inline T twice(T V) { return V + V; }
template <typename T> static inline T mix(T A, T B) {
  return A & 1 ? twice(A) ^ B : twice(B) - A;
}
int Acc::step(int X) {
  for (int K = 0; K < X % 7; ++K)
    Sum = mix(Sum, X + K);
  return Sum;
}
int Acc::total() const { return Sum; }
} // namespace shapes

namespace {
int apply(int N, int (*F)(int)) {
  int R = 0;
  for (int K = 0; K < N; ++K)
    R += F(K);
  return R;
}
} // namespace

int main(int argc, char **argv) {
  shapes::Acc A(argc);
  auto Sq = [](int V) { return V * V % 11; };
  int N = argc > 1 ? std::atoi(argv[1]) : 100;
  for (int K = 0; K < N; ++K)
    A.step(K + apply(K % 5, +Sq));
  std::printf("%d\n", A.total());
  return 0;
}
