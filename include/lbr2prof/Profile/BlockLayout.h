//===- BlockLayout.h - Propeller's block and function layout ----*- C++ -*-===//
//
// Counts of a BinaryProfile moved onto the binary's MachineBasicBlocks
// (BBAddrMap.h), and the layout Propeller would ask the compiler and linker
// for:
//   - a block's count is the count of its first instruction; an edge is a
//     taken branch from inside one block to another block's start, or the
//     fall-through from a block to the next in address order, over any
//     alignment padding between them (the
//     BinaryProfile's fall-through edge where its CFG has a block boundary,
//     else the count of the instruction before: it falls through always);
//   - a block is aligned if padding lies before it in the binary, or if
//     the map carries the CFG and static frequencies
//     (-pgo-analysis-map=bb-freq,br-prob) and LLVM's alignBlocks rule
//     marks it and it starts on a 16-byte boundary (clang aligns loop
//     blocks before it orders them by the cluster list, so the alignment
//     stays): a fall-through into it runs the padding;
//   - hot blocks are those with a count, and the entry; they go into one
//     cluster. The orders tried: the address order, ext-TSP's
//     (llvm::codelayout::computeExtTspLayout, the entry stays first),
//     ext-TSP's without the edges into aligned blocks and with those
//     edges at a tenth of their count, and each ext-TSP order with its
//     chains resequenced to run the least padding. Each order's cost is
//     predicted: the jmps clang will add or keep, and the fall-throughs
//     into an aligned block that lands off a 16-byte boundary (block sizes
//     from the map, branches rewritten for their new neighbours). Over
//     the program, the orders of the highest summed ext-TSP score whose
//     summed cost is no more than the binary's are chosen; the others
//     are left to the cold section;
//   - hot functions (with a counted block) are ordered by Cache-Directed
//     Sort (computeCacheDirectedLayout, ext-TSP's extension to functions)
//     over the calls between them, sized by their hot blocks.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_PROFILE_BLOCKLAYOUT_H
#define LBR2PROF_PROFILE_BLOCKLAYOUT_H

#include "lbr2prof/Binary/BBAddrMap.h"
#include "lbr2prof/Binary/BinaryImage.h"
#include "lbr2prof/Profile/BinaryProfile.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"
#include <vector>

namespace lbr2prof {

/// One hot function's layout.
struct FunctionLayout {
  /// Index in the image's functions.
  unsigned Func = 0;
  /// Hot block ids in their new order; the entry (id of the first block)
  /// first.
  std::vector<uint32_t> Cluster;
  /// Bytes of the hot blocks.
  uint64_t HotSize = 0;
  /// Blocks the binary has for the function.
  unsigned Blocks = 0;
  /// ext-TSP scores (codelayout::calcExtTspScore) of the hot blocks in address
  /// order and in the new order.
  double ScoreBefore = 0, ScoreAfter = 0;
  /// Counts of the edges that fall through into a block the compiler
  /// aligned (runs of its padding), in the binary and (predicted, only
  /// where the block lands off a 16-byte boundary) in the new order.
  uint64_t PaddedBefore = 0, PaddedAfter = 0;
  /// Counts of the jmps the blocks run, in the binary and in the new
  /// order (predicted: a block followed by neither its unconditional
  /// successor nor its conditional target jumps to the former).
  uint64_t JumpsBefore = 0, JumpsAfter = 0;
};

struct LayoutStats {
  /// Functions with counts, and those of them with no entry in
  /// .llvm_bb_addr_map (assembler, another compiler): left out.
  unsigned Counted = 0, NoBlockMap = 0;
  /// Taken-branch counts that landed inside a block, not at its start
  /// (the binary's code is not the one the map describes): left out.
  uint64_t MidBlockCount = 0, EdgeCount = 0;
  /// Blocks taken as aligned with no padding before them: alignBlocks'
  /// rule marks them (the map's CFG and frequencies) and they start on a
  /// 16-byte boundary.
  unsigned AlignedByRule = 0;
};

struct PropellerLayout {
  /// Hot functions in their new order.
  std::vector<FunctionLayout> Functions;
  LayoutStats Stats;
};

/// The layout of P's counted functions that Blocks describes.
PropellerLayout
computePropellerLayout(const BinaryProfile &P, const BinaryImage &Image,
                       llvm::ArrayRef<MachineFunctionBlocks> Blocks);

/// --stats: functions laid out, blocks kept hot, ext-TSP scores.
void printLayoutStats(const PropellerLayout &L, llvm::raw_ostream &OS);

} // namespace lbr2prof

#endif
