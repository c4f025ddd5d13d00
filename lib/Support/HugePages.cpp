//===- HugePages.cpp - large tables on transparent huge pages -------------===//
#include "lbr2prof/Support/HugePages.h"
#include <cstdint>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace lbr2prof {

void adviseHugePages(void *P, size_t Bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t Huge = uintptr_t(2) << 20;
  uintptr_t Begin = (reinterpret_cast<uintptr_t>(P) + Huge - 1) & ~(Huge - 1);
  uintptr_t End = (reinterpret_cast<uintptr_t>(P) + Bytes) & ~(Huge - 1);
  if (P && End > Begin)
    (void)::madvise(reinterpret_cast<void *>(Begin), End - Begin,
                    MADV_HUGEPAGE);
#else
  (void)P;
  (void)Bytes;
#endif
}

} // namespace lbr2prof
