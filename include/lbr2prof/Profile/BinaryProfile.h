//===- BinaryProfile.h - counts on one binary's instructions ----*- C++ -*-===//
//
// Where counts meet instructions: the aggregated branches and fall-through
// ranges of one DSO are turned into link-time addresses, each distinct range
// is validated against the disassembly once, and each touched function gets
// a CFG with block and edge counts:
//   - a range is valid if both ends lie in one function, begin <= end, both
//     ends are instruction starts, and no instruction before its end stops
//     the fall-through (unconditional or indirect jump, return, trap);
//   - blocks start at the function entry, after every terminator, at every
//     direct branch target and at every observed jump target;
//   - a valid range adds its count to each instruction it covers, and a
//     fall-through edge (last instruction of a block -> next block) for each
//     block boundary it crosses.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_PROFILE_BINARYPROFILE_H
#define LBR2PROF_PROFILE_BINARYPROFILE_H

#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "lbr2prof/Binary/BinaryImage.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <vector>

namespace lbr2prof {

/// Binary address standing for "outside this binary".
constexpr uint64_t ExternalAddr = 0;

/// A counted edge between binary addresses.
struct Edge {
  uint64_t From = 0, To = 0;
  /// Estimated executions and mispredictions (window-weighted).
  uint64_t Count = 0, Mispred = 0;
  /// Branch-stack entries actually observed.
  uint64_t Seen = 0;
};

struct Block {
  /// [Start, End) binary addresses.
  uint64_t Start = 0, End = 0;
  /// Executions, from the ranges covering the block's first instruction.
  uint64_t Count = 0;
};

/// The profile of one function.
struct FunctionCfg {
  unsigned Func = 0;
  std::vector<Block> Blocks;
  /// Taken branches whose source is in this function, by source address.
  std::vector<Edge> Taken;
  /// Inferred fall-throughs: From = last instruction of a block, To = the
  /// next block's start.
  std::vector<Edge> FallThrough;
  /// Calls and other transfers into the entry from elsewhere.
  uint64_t EntryCount = 0;
  /// Executions of each instruction covered by a valid range, by address
  /// (instructions never covered are left out).
  std::vector<std::pair<uint64_t, uint64_t>> InstCounts;
};

/// Counts of ranges and branches, each kept or dropped with a reason.
/// Counts are weighted by occurrences (samples), Distinct by address pair.
struct ProfileStats {
  struct Reason {
    uint64_t Count = 0, Distinct = 0;
  };
  Reason RangesTotal, RangesValid;
  Reason RangeOutsideFunctions;  ///< an end in no function (PLT0, padding)
  Reason RangeCrossFunction;     ///< ends in different functions
  Reason RangeBackwards;         ///< begin > end
  Reason RangeNotBoundary;       ///< an end is not an instruction start
  Reason RangeCrossUncond;       ///< passes an unconditional transfer
  Reason RangeOtherDso;          ///< from another DSO (not this binary)
  Reason BranchesTotal, BranchesInBinary, BranchesReturn;
  Reason BranchesSourceNotBoundary; ///< dropped: source mid-instruction
  Reason BranchesTargetNotBoundary; ///< dropped: target mid-instruction
  Reason BranchesSourceNotBranch;   ///< dropped: source cannot branch
  Reason BranchesWrongTarget;       ///< dropped: differs from encoded target

  /// Adds O's counts (those of another part of the same work).
  void add(const ProfileStats &O) {
    static_assert(sizeof(ProfileStats) == 15 * sizeof(Reason),
                  "a new reason must be added here too");
    auto add = [](Reason &To, const Reason &From) {
      To.Count += From.Count;
      To.Distinct += From.Distinct;
    };
    add(RangesTotal, O.RangesTotal);
    add(RangesValid, O.RangesValid);
    add(RangeOutsideFunctions, O.RangeOutsideFunctions);
    add(RangeCrossFunction, O.RangeCrossFunction);
    add(RangeBackwards, O.RangeBackwards);
    add(RangeNotBoundary, O.RangeNotBoundary);
    add(RangeCrossUncond, O.RangeCrossUncond);
    add(RangeOtherDso, O.RangeOtherDso);
    add(BranchesTotal, O.BranchesTotal);
    add(BranchesInBinary, O.BranchesInBinary);
    add(BranchesReturn, O.BranchesReturn);
    add(BranchesSourceNotBoundary, O.BranchesSourceNotBoundary);
    add(BranchesTargetNotBoundary, O.BranchesTargetNotBoundary);
    add(BranchesSourceNotBranch, O.BranchesSourceNotBranch);
    add(BranchesWrongTarget, O.BranchesWrongTarget);
  }
};

struct BinaryProfile {
  /// Every taken branch with at least one end in the binary, by address.
  std::vector<Edge> Branches;
  /// Per touched function (key: function index).
  std::map<unsigned, FunctionCfg> Functions;
  ProfileStats Stats;
};

/// The block leaders every profile of a function starts from: its entry,
/// the instruction after each terminator, the direct branch targets inside
/// it; sorted, unique, found once per function. For callers that build
/// many profiles of one binary (one per calling context). Not thread-safe.
class LeaderCache {
public:
  llvm::ArrayRef<uint64_t> of(const BinaryImage &Image, unsigned F);

private:
  llvm::DenseMap<unsigned, std::vector<uint64_t>> Leaders;
};

/// Which solver makes counts consistent (FlowInference.h;
/// --infer-flow[=mcf|profi]); None leaves the sampled counts as they are.
enum class FlowInferenceMethod { None, MinCostFlow, Profi };

/// The parts of a FunctionCfg a profile's consumer reads; the others are
/// left empty (zero).
enum class ProfileParts {
  /// Blocks, taken and fall-through edges, instruction and entry counts.
  All,
  /// Instruction counts, taken edges and entry counts: no blocks, no
  /// fall-through edges (so no leaders). The context profile builder
  /// makes a profile per context and reads only those (sqlite's CSSPGO:
  /// 4,597 contexts, each copying and walking every leader of the
  /// functions that ran in it); line and probe profiles too.
  Counts,
  /// Taken and fall-through edges: no instruction or block counts (so no
  /// per-instruction difference array), what fdata reads. bench/scale's
  /// 20 MB broad fdata: 1.2M instructions' counts, 7k of its 18k page
  /// faults.
  Edges,
};

struct BinaryProfileOptions {
  unsigned Threads = 1;
  /// Make each function's counts flow-consistent (FlowInference.h).
  FlowInferenceMethod InferFlow = FlowInferenceMethod::None;
  /// Static leaders from here (kept for the next call) rather than found
  /// anew.
  LeaderCache *Leaders = nullptr;
  /// What the caller reads; anything but All is not with InferFlow, which
  /// works on blocks and counts.
  ProfileParts Parts = ProfileParts::All;
};

/// Builds the profile of DSO index Dso (as numbered by the aggregator's
/// ProcessMaps) against its image.
BinaryProfile buildBinaryProfile(const RawProfile &Raw, int Dso,
                                 const BinaryImage &Image,
                                 BinaryProfileOptions Opts = {});

/// How a taken branch E of function F enters another function's entry.
enum class EntryTransfer {
  None,
  Call,     ///< a call instruction
  TailCall, ///< a jump into another family's entry (clang saw a call)
};
/// Classifies E; Callee gets the function entered (not a .cold/.part
/// piece: entering one is no call). A transfer to a PLT stub foo@PLT enters
/// foo when foo is in this binary, and is None otherwise; the stub's own
/// jump is None (its call was counted).
EntryTransfer entryTransfer(const BinaryImage &Image, unsigned F,
                            const Edge &E, unsigned &Callee);

/// Deterministic text dump of the CFGs (for tests and --dump=cfg).
void printCfgs(const BinaryProfile &P, const BinaryImage &Image,
               llvm::raw_ostream &OS);

/// Prints the kept/dropped figures, one line per reason with ratios.
void printProfileStats(const ProfileStats &S, const AggregateStats &A,
                       llvm::raw_ostream &OS);

} // namespace lbr2prof

#endif
