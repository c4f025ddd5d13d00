//===- HugePages.h - lbr2prof's blocks on transparent huge pages -*- C++ -*-===//
//
// Every 4 KiB page a run writes for the first time costs a page fault and
// a page cleared. On the VMs of sessions 20-23 a fault costs about 11 us
// (session 28 found why: they report free 8 MiB blocks to the host, and a
// page from a reported block faults on the host too when first written;
// docs/design.md, Memory),
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
// fewer faults); smaller blocks come from malloc as before, except in a
// BumpScope (below): a phase that builds a large structure to keep. Only a
// hint: where transparent huge pages are off (or not Linux) the block is
// an ordinary one, aligned.
//
// Why small blocks stay malloc's otherwise (session 23): every small block
// on huge pages, from a heap of size classes of our own once malloc held
// 16 MiB, took bench/scale's 100 MB broad line profile from 5.12 to 4.21
// s but from 803 to 1013 MB; mimalloc (LD_PRELOAD, large OS pages) 4.53
// -> 3.63 s at 802 -> 884 MB; bench/pgo's sqlite line profile 28 -> 44-47
// MB with mimalloc or jemalloc's thp:always. Two heaps side by side strand
// each other's free memory (LLVM's SmallVector and StringMap call malloc
// itself: 205 MB of malloc's heap sat free beside the new one), and size
// classes do not share theirs.
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
/// if Bytes >= HugeBlockMin, as described above (or from a BumpScope);
/// freed with freeBlock(). Null if the memory is not there.
void *allocateBlock(size_t Bytes, size_t Align);

/// Frees a block from allocateBlock(): a BumpScope's stays where it is.
void freeBlock(void *P);

/// Gives the pages of malloc's free blocks back to the system (glibc's
/// malloc_trim; nothing elsewhere). Before a fork, so that neither process
/// copies on write a page the parent only reuses (bench/scale's 100 MB
/// broad line profile, once the aggregation's counts are freed: 6.15 ->
/// 5.57 s, 151k -> 121k page faults, medians of 5 interleaved runs), and
/// before a BumpScope, whose blocks would otherwise sit beside malloc's
/// free ones (the same profile's nodes: 800 -> 767 MB resident).
void releaseFreeMemory();

/// The address space reserved for BumpScope; only what is written takes
/// memory.
constexpr size_t BumpRegionBytes = size_t(64) << 30;
/// The start of that region left on 4 KiB pages, so that a small run's
/// scope costs no more memory than malloc's heap: with the whole region
/// on huge pages bench/pgo's jq line profile peaked at 22 MB (20 MB
/// without a scope), with this 21 MB; sqlite's 26 MB either way.
constexpr size_t BumpSmallBytes = size_t(8) << 20;

/// While one lives on a thread, allocateBlock() gives that thread's small
/// blocks (under HugeBlockMin, alignment up to 16) in order from 2 MiB
/// spans of one region on huge pages, and freeBlock() leaves them there:
/// for a phase that builds a large structure of small nodes that lives
/// until the run ends (a sample profile's maps), whose every 4 KiB page of
/// malloc's heap would cost a page fault. Its blocks are never reused, so
/// a scope is for memory that is kept, not churned. Scopes nest; without
/// lbr2prof's operator new (sanitizer builds, unit tests) they change
/// nothing. bench/scale's 100 MB broad line profile, with the builder's
/// threads in scopes: 3.88 -> 3.53 s, 112k -> 66k page faults, 814 -> 822
/// MB (medians of 5 interleaved runs).
class BumpScope {
public:
  BumpScope();
  ~BumpScope();
  BumpScope(const BumpScope &) = delete;
  BumpScope &operator=(const BumpScope &) = delete;
  /// The region's bytes handed out so far (in spans of 2 MiB, and blocks
  /// from 256 KiB up), by every thread.
  static size_t bytesCarved();
  /// Whether P is a block a scope gave.
  static bool holds(const void *P);

private:
  bool Inactive = false;
};

} // namespace lbr2prof

#endif
