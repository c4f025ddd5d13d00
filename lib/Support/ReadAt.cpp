//===- ReadAt.cpp - whole reads at an offset of a file --------------------===//
#include "lbr2prof/Support/ReadAt.h"
#include <cerrno>
#include <unistd.h>

namespace lbr2prof {

ssize_t preadFull(int Fd, void *Dst, size_t N, uint64_t Off) {
  size_t Got = 0;
  while (Got < N) {
    ssize_t R = ::pread(Fd, static_cast<char *>(Dst) + Got, N - Got,
                        off_t(Off + Got));
    if (R < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    if (R == 0)
      break;
    Got += size_t(R);
  }
  return ssize_t(Got);
}

} // namespace lbr2prof
