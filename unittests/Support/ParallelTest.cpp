//===- ParallelTest.cpp - parallelSort against std::sort ------------------===//
#include "lbr2prof/Support/Parallel.h"
#include "gtest/gtest.h"
#include <random>

using namespace lbr2prof;

namespace {
// Keys with many repeats (a part's sort and the merges must keep every
// element), in sizes below, at and above the threshold for threads, on
// 2 threads (one merge) and 3 and 5 (an odd run left over in a round).
TEST(Parallel, SortMatchesStdSort) {
  std::mt19937_64 Rng(7);
  for (size_t N : {0u, 1u, 100u, 8191u, 8192u, 8193u, 50000u, 123457u})
    for (unsigned Threads : {1u, 2u, 3u, 5u}) {
      SCOPED_TRACE(testing::Message() << N << " elements, " << Threads
                                      << " threads");
      std::vector<std::pair<uint32_t, uint32_t>> V(N);
      for (size_t K = 0; K < N; ++K)
        V[K] = {uint32_t(Rng() % 1000), uint32_t(K)};
      auto Want = V;
      std::sort(Want.begin(), Want.end());
      parallelSort(V.begin(), V.end(), std::less<>(), Threads);
      EXPECT_EQ(V, Want);
      // By the first half only: equal keys may come in any order, but the
      // keys must be sorted and the elements the same.
      auto ByKey = [](const auto &A, const auto &B) { return A.first < B.first; };
      std::shuffle(V.begin(), V.end(), Rng);
      parallelSort(V.begin(), V.end(), ByKey, Threads);
      EXPECT_TRUE(std::is_sorted(V.begin(), V.end(), ByKey));
      std::sort(V.begin(), V.end());
      EXPECT_EQ(V, Want);
    }
}
} // namespace
