//===- HugePages.cpp - lbr2prof's blocks on transparent huge pages --------===//
#include "lbr2prof/Support/HugePages.h"
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <mutex>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace lbr2prof {

namespace {
/// The address space BumpScope carves blocks from: reserved at the first
/// scope, marked for huge pages; only what is written takes memory.
struct BumpRegion {
  /// Set once; read by every operator delete, on any thread.
  std::atomic<char *> Base{nullptr};
  std::atomic<size_t> Used{0};
  std::once_flag Once;

  /// Reserves the region; false if it cannot be had.
  bool ready() {
    std::call_once(Once, [this] {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
      void *P = ::mmap(nullptr, BumpRegionBytes + HugePageBytes,
                       PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (P == MAP_FAILED)
        return;
      uintptr_t A = (uintptr_t(P) + HugePageBytes - 1) & ~(HugePageBytes - 1);
      // The first BumpSmallBytes stay on 4 KiB pages: a small run's
      // scope takes no more memory than malloc's heap would.
      (void)::madvise(reinterpret_cast<void *>(A + BumpSmallBytes),
                      BumpRegionBytes - BumpSmallBytes, MADV_HUGEPAGE);
      Base.store(reinterpret_cast<char *>(A), std::memory_order_relaxed);
#endif
    });
    return Base.load(std::memory_order_relaxed);
  }
  /// Bytes of fresh region, null when it is spent.
  char *take(size_t Bytes) {
    size_t Off = Used.fetch_add(Bytes, std::memory_order_relaxed);
    if (Off > BumpRegionBytes || BumpRegionBytes - Off < Bytes)
      return nullptr;
    return Base.load(std::memory_order_relaxed) + Off;
  }
  /// Relaxed: a block reaches the thread that frees it after the scope
  /// that carved it saw Base set.
  bool holds(const void *P) const {
    char *B = Base.load(std::memory_order_relaxed);
    return B && uintptr_t(P) - uintptr_t(B) < BumpRegionBytes;
  }
} Region;

/// This thread's scopes and the span it carves from (what is left of it
/// when the thread ends stays unused).
thread_local unsigned ScopeDepth = 0;
thread_local char *SpanCur = nullptr, *SpanEnd = nullptr;

/// Bytes (a multiple of 16) from this thread's span, or straight from the
/// region from 256 KiB up; null when the region is spent.
void *bump(size_t Bytes) {
  if (Bytes >= HugePageBytes / 8)
    return Region.take(Bytes);
  if (size_t(SpanEnd - SpanCur) < Bytes) {
    char *S = Region.take(HugePageBytes);
    if (!S)
      return nullptr;
    SpanCur = S;
    SpanEnd = S + HugePageBytes;
  }
  void *P = SpanCur;
  SpanCur += Bytes;
  return P;
}
} // namespace

BumpScope::BumpScope() {
  if (Region.ready())
    ++ScopeDepth;
  else
    Inactive = true;
}

BumpScope::~BumpScope() {
  if (!Inactive)
    --ScopeDepth;
}

size_t BumpScope::bytesCarved() { return Region.Used.load(); }

bool BumpScope::holds(const void *P) { return Region.holds(P); }

void *allocateBlock(size_t Bytes, size_t Align) {
  void *P = nullptr;
  if (Bytes >= HugeBlockMin) {
    size_t Rounded = (Bytes + HugePageBytes - 1) & ~(HugePageBytes - 1);
    if (Rounded < Bytes ||
        posix_memalign(&P, Align > HugePageBytes ? Align : HugePageBytes,
                       Rounded))
      return nullptr;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    (void)::madvise(P, Rounded, MADV_HUGEPAGE);
#endif
    return P;
  }
  if (Bytes == 0)
    Bytes = 1;
  if (ScopeDepth && Align <= 16)
    if (void *B = bump((Bytes + 15) & ~size_t(15)))
      return B;
  if (Align <= alignof(std::max_align_t))
    return std::malloc(Bytes);
  if (Align < sizeof(void *))
    Align = sizeof(void *);
  return posix_memalign(&P, Align, Bytes) ? nullptr : P;
}

void releaseFreeMemory() {
#if defined(__GLIBC__)
  (void)malloc_trim(0);
#endif
}

void freeBlock(void *P) {
  if (!Region.holds(P))
    std::free(P);
}

} // namespace lbr2prof
