//===- DefaultInit.h - vectors whose new elements are not zeroed -*- C++ -*-===//
//
// std::vector<T>(N) and resize(N) value-initialize: zeros for integers,
// written over every byte before the caller writes its own. For a buffer
// that is filled right after (a read window, answers written by the
// symbolizer's children) that is a second pass over fresh memory, and on a
// page written after a fork a copy that was not needed.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_SUPPORT_DEFAULTINIT_H
#define LBR2PROF_SUPPORT_DEFAULTINIT_H

#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace lbr2prof {

/// std::allocator whose construct() without arguments default-initializes
/// (leaves a trivial type's bytes as they are) instead of value-
/// initializing; with arguments it constructs as usual.
template <typename T> struct DefaultInitAllocator : std::allocator<T> {
  template <typename U> struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U> &) noexcept {}
  template <typename U> void construct(U *P) {
    ::new (static_cast<void *>(P)) U;
  }
  template <typename U, typename... A> void construct(U *P, A &&...Args) {
    ::new (static_cast<void *>(P)) U(std::forward<A>(Args)...);
  }
};

/// A vector whose resize() leaves the new elements uninitialized.
template <typename T>
using DefaultInitVector = std::vector<T, DefaultInitAllocator<T>>;

} // namespace lbr2prof

#endif
