//===- BBAddrMap.h - MachineBasicBlock addresses of a binary ----*- C++ -*-===//
//
// clang -fbasic-block-address-map (LLVM 19) writes a .llvm_bb_addr_map
// section: for each function, its MachineBasicBlocks with their ids (the
// numbers -fbasic-block-sections=list= names), offsets and sizes. Read here
// with LLVM Object's ELFObjectFileBase::readBBAddrMap. Binary (link-time)
// addresses. Built with -mllvm -pgo-analysis-map=bb-freq,br-prob as well,
// the section also carries each block's static frequency (MBFI's) and its
// successors with their probabilities (MBPI's), as the compiler saw them
// when it laid the blocks out.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_BINARY_BBADDRMAP_H
#define LBR2PROF_BINARY_BBADDRMAP_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <utility>
#include <vector>

namespace lbr2prof {

/// One MachineBasicBlock: [Start, End) binary addresses (Start == End for
/// a block with no code).
struct MachineBlock {
  uint32_t Id = 0;
  uint64_t Start = 0, End = 0;
  /// The block may fall through to the next one in address order.
  bool CanFallThrough = false;
  /// With the PGO analysis map: the block's frequency (relative to the
  /// function's other blocks), and its successors' ids with the edges'
  /// probabilities (numerators over 2^31, llvm::BranchProbability's).
  uint64_t Freq = 0;
  std::vector<std::pair<uint32_t, uint32_t>> Succs;
};

/// The blocks of one function, in address order; the first is the entry.
struct MachineFunctionBlocks {
  uint64_t Entry = 0;
  std::vector<MachineBlock> Blocks;
  /// Freq and Succs were read (bb-freq and br-prob), for one range of
  /// blocks (the compiler's layout, not an earlier cluster list's).
  bool HasCfg = false;
};

/// Reads Path's .llvm_bb_addr_map; sorted by entry address. A binary
/// without the section is an error naming the flag to build with.
llvm::Expected<std::vector<MachineFunctionBlocks>>
readMachineBlocks(llvm::StringRef Path);

} // namespace lbr2prof

#endif
