//===- ReadAt.h - whole reads at an offset of a file ------------*- C++ -*-===//
//
// pread(2) returns short reads and EINTR; the readers that read a file by
// offset (the perf.data byte source, the DWARF unit index, the relocation
// check) want N bytes or the reason there are fewer.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_SUPPORT_READAT_H
#define LBR2PROF_SUPPORT_READAT_H

#include <cstddef>
#include <cstdint>
#include <sys/types.h>

namespace lbr2prof {

/// Reads N bytes at Off of the file open as Fd into Dst with pread(2),
/// again after a short read or EINTR, until N bytes, the end of the file
/// or an error: the bytes read, or -1 with errno set.
ssize_t preadFull(int Fd, void *Dst, size_t N, uint64_t Off);

} // namespace lbr2prof

#endif
