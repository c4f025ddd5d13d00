//===- BoltYaml.h - BOLT's YAML profile writer ------------------*- C++ -*-===//
//
// Writes a BinaryProfile as the YAML profile `perf2bolt -w` writes and
// `llvm-bolt -data=FILE.yaml` reads (llvm-bolt 19; docs/formats.md):
//   header:    profile-version, binary-name, binary-build-id,
//              profile-flags [ lbr ], profile-origin, profile-events,
//              dfs-order false, hash-func xxh3
//   functions: name, fid, hash, exec, nblocks,
//     blocks:  bid, insns, hash, exec, calls [ {off, fid, disc, cnt, mis} ],
//              succ [ {bid, cnt, mis} ]
// Unlike fdata it names blocks, not offsets, and carries BOLT's hashes of
// functions and blocks, so `llvm-bolt -infer-stale-profile` can place the
// counts on a rebuilt binary. The hashes are computed here as BOLT 19
// computes them (bolt/lib/Core/HashUtilities.cpp, BinaryFunction's
// computeHash, StaleProfileMatching's computeBlockHashes), over the CFG
// BOLT builds (BinaryFunction::buildCFG): boltCfg() below.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_WRITERS_BOLTYAML_H
#define LBR2PROF_WRITERS_BOLTYAML_H

#include "lbr2prof/Binary/BinaryImage.h"
#include "lbr2prof/Profile/BinaryProfile.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace lbr2prof {

/// One basic block as BOLT cuts it.
struct BoltBlock {
  /// [Start, End) binary addresses.
  uint64_t Start = 0, End = 0;
  /// Its instructions: [First, First + Count) of the function's.
  unsigned First = 0, Count = 0;
  /// Successor block indices in BOLT's order (taken branches in
  /// instruction order, then the fall-through) and predecessors in the
  /// order BOLT adds the edges.
  std::vector<unsigned> Succs, Preds;
  /// For each successor, the address of the branch taken to it, or 0 for
  /// the fall-through.
  std::vector<uint64_t> SuccBranch;
  /// BOLT's blended block hash (offset, opcode, instruction, neighbour
  /// hashes).
  uint64_t Hash = 0;
};

/// BOLT's CFG of one function, with its hashes.
struct BoltCfg {
  std::vector<BoltBlock> Blocks;
  /// BinaryFunction::computeHash in layout order with xxh3.
  uint64_t Hash = 0;
  /// Indirect jumps BOLT takes for tail calls (sorted addresses).
  std::vector<uint64_t> IndirectTails;
};

/// Builds the CFG llvm-bolt 19 builds for the function [Start, End) from
/// its instructions: blocks start at the entry, at direct branch targets
/// inside the function, and after each terminator (branch, return, trap),
/// except that a `jmp` right after a conditional branch stays in its
/// block. A direct jump out of the function is a tail call; so is an
/// indirect jump in an epilogue. Jump tables are not analysed: their
/// targets start blocks only where another rule starts one, and the
/// indirect jump has no successors.
BoltCfg buildBoltCfg(llvm::ArrayRef<HashedInst> Insts, uint64_t Start,
                     uint64_t End);

/// What the header says of the profile.
struct BoltYamlHeader {
  /// The binary's file name (not its path), as perf2bolt writes it.
  std::string BinaryName;
  /// Lower-case hex build-id, or empty.
  std::string BuildId;
  /// The sampled event ("cycles:u").
  std::string Events;
};

/// Writes the functions of P with counts; returns how many. x86-64 only
/// (Image.arch()).
size_t writeBoltYaml(const BinaryProfile &P, const BinaryImage &Image,
                     const BoltYamlHeader &H, llvm::raw_ostream &OS);

} // namespace lbr2prof

#endif
