//===- Arena.h - lbr2prof's bump allocator ----------------------*- C++ -*-===//
//
// Memory handed out in order from large blocks and given back all at once:
// interned byte strings, inline stacks, the nodes of a map that only grows.
//
// Why not llvm::BumpPtrAllocator: calling its Allocate() from our code
// compiles its slow path (StartNewSlab) into our objects, and the linker
// keeps one copy of such an inline function for the whole program. Under
// ASan our copy poisons a new slab and unpoisons only what it hands out,
// while LLVM's uninstrumented libraries (UniqueStringSaver, which the
// symbolizer uses) inline the fast path without the unpoisoning: every name
// saved after the first of a slab lay in poisoned memory and the sanitized
// suite failed with use-after-poison (issue 23, session 10). This arena is
// a type of its own, so nothing of LLVM's is replaced.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_SUPPORT_ARENA_H
#define LBR2PROF_SUPPORT_ARENA_H

#include "lbr2prof/Support/HugePages.h"
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

namespace lbr2prof {

class Arena {
public:
  explicit Arena(size_t BlockSize = 64 * 1024) : BlockSize(BlockSize) {}
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;
  Arena(Arena &&) = default;
  Arena &operator=(Arena &&) = default;

  /// Size bytes aligned to Align (a power of two); never moves, lives until
  /// reset() or the arena's end.
  void *allocate(size_t Size, size_t Align) {
    uintptr_t P = (Cur + Align - 1) & ~uintptr_t(Align - 1);
    if (Cur == 0 || P + Size > End) {
      newBlock(Size + Align);
      P = (Cur + Align - 1) & ~uintptr_t(Align - 1);
    }
    Cur = P + Size;
    return reinterpret_cast<void *>(P);
  }

  /// Room for N objects of the trivially destructible T (not constructed).
  template <typename T> T *make(size_t N) {
    static_assert(std::is_trivially_destructible<T>::value,
                  "the arena never runs destructors");
    return static_cast<T *>(allocate(N * sizeof(T), alignof(T)));
  }

  /// A lasting copy of N objects of T, trivially copyable.
  template <typename T> T *copy(const T *From, size_t N) {
    static_assert(std::is_trivially_copyable<T>::value, "copied bytewise");
    T *To = make<T>(N);
    if (N)
      std::memcpy(static_cast<void *>(To), From, N * sizeof(T));
    return To;
  }

  /// Gives everything back; keeps the first block for the next round.
  void reset() {
    if (Blocks.size() > 1)
      Blocks.resize(1);
    if (Blocks.empty()) {
      Cur = End = 0;
      return;
    }
    Cur = reinterpret_cast<uintptr_t>(Blocks[0].get());
    End = Cur + FirstSize;
  }

private:
  /// Each block is twice the one before, up to a huge page
  /// (Support/HugePages.h), so a large arena takes one page fault per 2
  /// MiB: the symbolizer's inline stacks, in 64 KiB blocks, took 2.0k of
  /// the parent's 3.6k faults while it absorbed bench/scale's 20 MB broad
  /// line profile.
  void newBlock(size_t AtLeast) {
    size_t Size = AtLeast > BlockSize ? AtLeast : BlockSize;
    if (BlockSize < HugePageBytes)
      BlockSize = BlockSize * 2 < HugePageBytes ? BlockSize * 2 : HugePageBytes;
    Blocks.emplace_back(new char[Size]);
    if (Blocks.size() == 1)
      FirstSize = Size;
    Cur = reinterpret_cast<uintptr_t>(Blocks.back().get());
    End = Cur + Size;
  }

  size_t BlockSize;
  size_t FirstSize = 0;
  uintptr_t Cur = 0, End = 0;
  std::vector<std::unique_ptr<char[]>> Blocks;
};

} // namespace lbr2prof

#endif
