//===- HugePages.h - large tables on transparent huge pages -----*- C++ -*-===//
//
// A table of hundreds of thousands of entries, written once from start to
// end (a large binary's symbols, its function table), costs a page fault
// and a page cleared for every 4 KiB: on bench/scale's 300 MB binary the
// symbol table's 35k faults were a third of a fixed profile's time (sys
// 128 of 234 ms). Asked for transparent huge pages (madvise), the kernel
// backs each 2 MiB of it with one page where it can: 512 times fewer
// faults. Only a hint: where THP is off (or not Linux) nothing changes.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_SUPPORT_HUGEPAGES_H
#define LBR2PROF_SUPPORT_HUGEPAGES_H

#include <cstddef>
#include <vector>

namespace lbr2prof {

/// Asks for huge pages under the whole 2 MiB pages of [P, P + Bytes); a
/// range too small to hold one is left alone.
void adviseHugePages(void *P, size_t Bytes);

/// V.reserve(N), with huge pages asked for the room not written yet: call
/// it before the entries are written.
template <class T> void reserveHuge(std::vector<T> &V, size_t N) {
  V.reserve(N);
  adviseHugePages(V.data() + V.size(), (V.capacity() - V.size()) * sizeof(T));
}

} // namespace lbr2prof

#endif
