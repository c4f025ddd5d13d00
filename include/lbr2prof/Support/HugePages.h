//===- HugePages.h - large blocks on transparent huge pages -----*- C++ -*-===//
//
// Every 4 KiB page a run writes for the first time costs a page fault and
// a page cleared. On the VMs of sessions 20-22 a fault costs about 11 us,
// so a table of tens of megabytes, written once (a large binary's symbols,
// the aggregation's hash maps as they grow, the decoded instructions),
// costs more in faults than in the work that fills it: the symbol table of
// bench/scale's 300 MB binary took 35k faults, a third of a fixed
// profile's time (sys 128 of 234 ms), and the 20 MB broad fdata's 38k
// faults were most of its 0.36 s of system time.
//
// lbr2prof's operator new (tools/lbr2prof/NewDelete.cpp) takes its memory
// from allocateBlock(): a block of HugeBlockMin bytes or more is rounded up
// to whole 2 MiB pages, aligned to one and marked MADV_HUGEPAGE, so the
// kernel backs it with one huge page per 2 MiB where it can (512 times
// fewer faults); smaller blocks come from malloc as before. Only a hint:
// where transparent huge pages are off (or not Linux) the block is an
// ordinary one, aligned.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_SUPPORT_HUGEPAGES_H
#define LBR2PROF_SUPPORT_HUGEPAGES_H

#include <cstddef>

namespace lbr2prof {

/// The size of a transparent huge page on x86-64 and AArch64 (4 KiB base
/// pages).
constexpr size_t HugePageBytes = size_t(2) << 20;
/// Blocks from this size up are rounded to whole huge pages. At 2 MiB a
/// block wastes less than half of what it holds, the largest share where
/// it gets a huge page at all; on bench/scale's 20 MB broad fdata, 2 MiB
/// gave 18.5k faults, 0.41-0.45 s and 122-131 MB against 38k, 0.63 s and
/// 115-123 MB with no huge blocks, and 1 MiB (a 1 MiB block in 2 MiB)
/// 10-12k faults but 144-157 MB (3 runs each, interleaved).
constexpr size_t HugeBlockMin = HugePageBytes;

/// Bytes of memory aligned to Align (a power of two) and to HugePageBytes
/// if Bytes >= HugeBlockMin, as described above; freed with free(). Null if
/// the memory is not there.
void *allocateBlock(size_t Bytes, size_t Align);

} // namespace lbr2prof

#endif
