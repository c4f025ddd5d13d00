//===- NewDelete.cpp - lbr2prof's operator new ----------------------------===//
//
// The replaceable global operator new of the program, for everything it
// allocates (LLVM's maps and DWARF parser included): memory from
// allocateBlock(), which puts large blocks on huge pages
// (Support/HugePages.h). Not in sanitizer builds, whose runtime replaces
// these itself. libstdc++'s operator delete, its nothrow and array forms
// call free() and these, so these two are all there is to replace.
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
