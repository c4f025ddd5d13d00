//===- Parallel.h - a loop over chunks on a few threads ---------*- C++ -*-===//
//
// parallelChunks(N, Threads, Chunk, Fn) calls Fn(Begin, End) for the
// chunks [0, Chunk), [Chunk, 2 Chunk), ... of [0, N), on Threads threads,
// the caller's among them. Each thread takes the next chunk from a shared
// counter as it finishes one, so uneven chunks even out. The threads are
// made per call: a call costs tens of microseconds, against the tasks of
// LLVM's ThreadPool, which cost a heap-allocated future each (one per
// function of a 160k-function binary was a visible part of its decoding).
// Fn must be safe to run concurrently on disjoint chunks. parallelParts
// cuts a range into contiguous parts joined in order; parallelSort sorts
// parts at once and merges them.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_SUPPORT_PARALLEL_H
#define LBR2PROF_SUPPORT_PARALLEL_H

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <utility>
#include <vector>

namespace lbr2prof {

template <typename Fn>
void parallelChunks(size_t N, unsigned Threads, size_t Chunk, Fn &&F) {
  Chunk = std::max<size_t>(Chunk, 1);
  if (Threads <= 1 || N <= Chunk) {
    if (N)
      F(size_t(0), N);
    return;
  }
  Threads = unsigned(std::min<size_t>(Threads, (N + Chunk - 1) / Chunk));
  std::atomic<size_t> Next{0};
  auto Work = [&] {
    for (;;) {
      size_t B = Next.fetch_add(Chunk, std::memory_order_relaxed);
      if (B >= N)
        return;
      F(B, std::min(N, B + Chunk));
    }
  };
  std::vector<std::thread> Others;
  for (unsigned T = 1; T < Threads; ++T)
    Others.emplace_back(Work);
  Work();
  for (std::thread &T : Others)
    T.join();
}

/// Part K of [0, N) cut into Parts >= 1 contiguous parts of nearly equal
/// size (the last ones may be empty): [first, second).
inline std::pair<size_t, size_t> partOf(size_t N, size_t Parts, size_t K) {
  size_t Per = (N + Parts - 1) / Parts;
  return {std::min(N, K * Per), std::min(N, (K + 1) * Per)};
}

/// Calls Fn(K, Begin, End) for each part K of [0, N) (partOf), on Threads
/// threads. Part K's range comes before part K + 1's, so what each part
/// keeps of its own joins, in part order, into what one thread would have
/// made.
template <typename Fn>
void parallelParts(size_t N, size_t Parts, unsigned Threads, Fn &&F) {
  parallelChunks(Parts, Threads, 1, [&](size_t B, size_t E) {
    for (size_t K = B; K < E; ++K) {
      auto [PB, PE] = partOf(N, Parts, K);
      F(K, PB, PE);
    }
  });
}

/// Sorts [First, Last) by Less on up to Threads threads: contiguous parts
/// sorted at once, then neighbours merged, each round's merges at once.
/// The result is sorted; elements that compare equal may end in another
/// order than std::sort would leave them (callers sort by a total order,
/// or do not tell equal elements apart).
template <typename It, typename Cmp>
void parallelSort(It First, It Last, Cmp Less, unsigned Threads) {
  size_t N = size_t(Last - First);
  if (Threads <= 1 || N < 8192) {
    std::sort(First, Last, Less);
    return;
  }
  // Runs [Bounds[K], Bounds[K + 1]).
  std::vector<size_t> Bounds;
  for (size_t K = 0; K < Threads; ++K)
    Bounds.push_back(partOf(N, Threads, K).first);
  Bounds.push_back(N);
  parallelChunks(Threads, Threads, 1, [&](size_t B, size_t E) {
    for (size_t K = B; K < E; ++K)
      std::sort(First + Bounds[K], First + Bounds[K + 1], Less);
  });
  while (Bounds.size() > 2) {
    size_t Runs = Bounds.size() - 1;
    parallelChunks(Runs / 2, Threads, 1, [&](size_t B, size_t E) {
      for (size_t P = B; P < E; ++P)
        std::inplace_merge(First + Bounds[2 * P], First + Bounds[2 * P + 1],
                           First + Bounds[2 * P + 2], Less);
    });
    std::vector<size_t> Next;
    for (size_t K = 0; K < Runs; K += 2)
      Next.push_back(Bounds[K]);
    Next.push_back(N);
    Bounds = std::move(Next);
  }
}

} // namespace lbr2prof

#endif
