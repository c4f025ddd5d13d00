//===- HugePages.cpp - large blocks on transparent huge pages -------------===//
#include "lbr2prof/Support/HugePages.h"
#include <cstddef>
#include <cstdlib>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace lbr2prof {

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
  if (Align <= alignof(std::max_align_t))
    return std::malloc(Bytes);
  if (Align < sizeof(void *))
    Align = sizeof(void *);
  return posix_memalign(&P, Align, Bytes) ? nullptr : P;
}

} // namespace lbr2prof
