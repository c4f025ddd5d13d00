//===- NewDelete.cpp - lbr2prof's operator new and delete -----------------===//
//
// The replaceable global operator new and delete of the program, for
// everything it allocates (LLVM's maps and DWARF parser included): memory
// from allocateBlock(), which puts large blocks on huge pages and, in a
// BumpScope, carves small ones from a region of its own; freed with
// freeBlock() (Support/HugePages.h). Not in sanitizer builds, whose runtime
// replaces these itself. libstdc++'s nothrow and array forms call these
// (its operator delete called free(), which a BumpScope's block is not
// for), so these six are all there is to replace.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Support/HugePages.h"
#include <new>

namespace {
/// Asks the new-handler for memory until there is some, as the standard's
/// operator new does; without one, fails with std::bad_alloc.
void *allocateOrThrow(std::size_t Bytes, std::size_t Align) {
  for (;;) {
    if (void *P = lbr2prof::allocateBlock(Bytes, Align))
      return P;
    std::new_handler Handler = std::get_new_handler();
    if (!Handler)
      throw std::bad_alloc();
    Handler();
  }
}
} // namespace

void *operator new(std::size_t Bytes) {
  return allocateOrThrow(Bytes, __STDCPP_DEFAULT_NEW_ALIGNMENT__);
}

void *operator new(std::size_t Bytes, std::align_val_t Align) {
  return allocateOrThrow(Bytes, static_cast<std::size_t>(Align));
}

void operator delete(void *P) noexcept { lbr2prof::freeBlock(P); }
void operator delete(void *P, std::size_t) noexcept {
  lbr2prof::freeBlock(P);
}
void operator delete(void *P, std::align_val_t) noexcept {
  lbr2prof::freeBlock(P);
}
void operator delete(void *P, std::size_t, std::align_val_t) noexcept {
  lbr2prof::freeBlock(P);
}
