//===- ContextProfileBuilder.h - context-sensitive sample profiles -*- C++ -*-===//
//
// Builds a context-sensitive (CS) sample profile from the context-keyed
// counts of a hybrid recording (call stack + branch stack per sample, see
// Aggregate/Contexts.h):
//  - each calling context's branches and ranges are validated and turned
//    into instruction counts as for the whole program (BinaryProfile);
//  - code is named by DWARF lines (line-based) or by pseudo probes
//    (probe-based, CSSPGO); a context's frames are its call sites, each
//    with its inline frames: [main:3 @ parse:12 @ lex] for code of lex
//    called from parse's line +12 (or call probe 12), called from main's
//    line +3;
//  - body samples, call targets and head samples go to the profile of the
//    innermost frame of each context: a line takes its hottest
//    instruction's count, a probe the sum of its instances'; total samples
//    count executed bytes (line-based) or probe executions (probe-based),
//    as the context-free profiles do;
//  - a pre-inliner keeps a call context only for hot calls into small
//    functions, merging the others into their function's base profile;
//    then the contexts are nested under their callers' call sites (as
//    LLVM's ProfileConverter does), the form llvm-profgen 19 writes by
//    default and
//    clang reads as a plain profile: a call site with a nested profile is
//    an inlining candidate, and clang merges the nested profile back into
//    the callee where it does not inline it;
//  - the pre-inliner's decisions are marked (ContextShouldBeInlined) and
//    clang follows them; probe-based profiles also carry each function's
//    CFG checksum.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_PROFILE_CONTEXTPROFILEBUILDER_H
#define LBR2PROF_PROFILE_CONTEXTPROFILEBUILDER_H

#include "lbr2prof/Aggregate/Contexts.h"
#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "lbr2prof/Binary/BinaryImage.h"
#include "lbr2prof/Binary/PseudoProbes.h"
#include "lbr2prof/Binary/Symbolizer.h"
#include "lbr2prof/Profile/BinaryProfile.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ProfileData/SampleProf.h"
#include "llvm/Support/raw_ostream.h"
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace lbr2prof {

/// The context unwinder's view of a binary: its calls and returns by file
/// offset, from the decoded instructions of its functions.
class BinaryTransferOracle : public TransferOracle {
public:
  /// A DSO is this binary if its build-id matches, or its file name does
  /// and it has no build-id (or IgnoreBuildId). A function of Image is
  /// decoded when a question is first about an address in it, so a
  /// recording without call stacks costs nothing, and one with them costs
  /// the functions its stacks pass through.
  BinaryTransferOracle(const BinaryImage &Image, bool IgnoreBuildId);
  bool isBinary(const DsoInfo &D) const override;
  Kind kindAt(uint64_t Off) const override;
  uint64_t returnOffsetOf(uint64_t Off) const override;
  bool isReturnSite(uint64_t Off) const override;
  /// The binary address of the call whose return address is at file offset
  /// Off, if the instruction before Off is a call.
  std::optional<uint64_t> callBefore(uint64_t Off) const;

private:
  /// The instruction that starts at binary address A, if A is in a
  /// function and one does.
  const Inst *startingAt(uint64_t A) const;
  const BinaryImage &Image;
  std::string FileName;
  std::vector<uint8_t> BuildId;
  bool IgnoreBuildId;
};

struct ContextProfileOptions {
  /// Flow-consistent counts per context (BinaryProfileOptions::InferFlow).
  FlowInferenceMethod InferFlow = FlowInferenceMethod::None;
  /// Threads for each context's CFG profile (the contexts' counts are then
  /// added in context order on one: the result does not depend on it).
  unsigned Threads = 1;
  /// Keep a call context only where clang should inline it; the others go
  /// to the function's base profile. The kept ones are marked
  /// ContextShouldBeInlined, which clang follows without its own cost
  /// model: the pre-inliner is what bounds code growth. PreInline false
  /// (--cs-max-callee-size 0): keep every context, unmarked.
  bool PreInline = true;
  /// How the pre-inliner decides. Budget (the default; PreInliner.cpp):
  /// per caller, top down, its hottest calls first while the code they add
  /// stays under GrowthFactor x the caller's size (within [MinBudget,
  /// MaxBudget] bytes), each call above the profile's cold count, made at
  /// least MinCallShare % as often as its caller's context is entered, and
  /// into a callee under CalleeSizeLimit x 100 x the call's hotness + 1
  /// bytes (llvm-profgen 19's scale; 150 was chosen on bench/pgo's tuning
  /// half). Size: hot calls into functions of at most CalleeSizeLimit
  /// bytes (75 given by the driver).
  enum class PreInlinerKind { Size, Budget };
  PreInlinerKind PreInliner = PreInlinerKind::Budget;
  uint64_t CalleeSizeLimit = 150;
  uint64_t GrowthFactor = 12;
  uint64_t MinBudget = 100, MaxBudget = 50000;
  double MinCallShare = 2;
  /// Budget pre-inliner: the calls into a context without head samples
  /// (no branch stack saw one) are estimated from the count at its first
  /// site: FirstSite even if it is an explicit 0 (clang's and llvm-profgen
  /// 19's reading of a probe profile: probe 1 is the entry block),
  /// FirstCounted at its first non-zero site (llvm-profgen's on lines, where
  /// it writes no zeros). The driver picks llvm-profgen's reading of each
  /// kind unless told (Generate.cpp).
  enum class EntryKind { FirstSite, FirstCounted };
  EntryKind EntryEstimate = EntryKind::FirstCounted;
  /// Budget pre-inliner: code inlined in the profiled binary (DWARF inline
  /// frames, probe inline trees) stays inlined (Keep, as llvm-profgen's
  /// --csspgo-replay-preinline); or stays unless its calls are at or under
  /// the profile's cold count (Cold); or each inline frame is decided as a
  /// call is (Decide, llvm-profgen's default), sized by the callee's own
  /// code and kept within the caller's budget. A copy that does not stay
  /// moves to the callee's base profile and leaves a call at its inline
  /// site. The driver picks the default (Generate.cpp).
  enum class InlinedCode { Keep, Cold, Decide };
  InlinedCode Inlined = InlinedCode::Keep;
  /// Name code by these pseudo probes (CSSPGO) rather than by DWARF lines.
  const PseudoProbes *Probes = nullptr;
  /// Called once every context's counts are in the profiles under
  /// construction: the raw context counts are not read after that (the
  /// driver frees them there when nothing else needs them).
  std::function<void()> ContextsAdded;
};

struct ContextProfileStats {
  uint64_t Contexts = 0;          ///< contexts with counts in this binary
  uint64_t ContextProfiles = 0;   ///< (context, function) profiles built
  uint64_t ContextsMoved = 0;     ///< call contexts moved to base profiles
  uint64_t HotCallCount = 0;      ///< calls a kept context needs (budget:
                                  ///< the cold count it must pass)
  bool Budget = false;            ///< the budget pre-inliner decided
  uint64_t CallSitesNoDebug = 0;  ///< context frames without a name (line
                                  ///< info, or a call probe)
  bool ProbeBased = false;
  uint64_t TopLevel = 0;          ///< top-level profiles written
  uint64_t TotalSamples = 0;
};

struct ContextProfileResult {
  llvm::sampleprof::SampleProfileMap Profiles;
  ContextProfileStats Stats;
  /// Some context is marked ContextShouldBeInlined (after the
  /// pre-inliner): write it as pre-inlined
  /// (FunctionSamples::ProfileIsPreInlined), so clang follows the marks.
  bool PreInlined = false;
};

/// The addresses a line-based buildContextProfile() symbolizes (give them
/// to Symbolizer::prefetch() first): the call sites of every context and
/// every instruction of each function some context touched.
std::vector<uint64_t> contextProfileAddresses(const RawProfile &Raw, int Dso,
                                              const BinaryImage &Image,
                                              const BinaryTransferOracle &O);

/// The functions of DSO index Dso that ran, indexed like
/// Image.functions(): those holding an end of a branch or a range (with or
/// without a context), and with O, the call before a context's return
/// address; each with every function of its .cold/.part family. The
/// probes a profile of Dso can look up are all in these functions.
std::vector<bool> functionsRun(const RawProfile &Raw, int Dso,
                               const BinaryImage &Image,
                               const BinaryTransferOracle *O);

/// Builds the nested context-sensitive profile of DSO index Dso: line-based
/// through Sym, or probe-based (CSSPGO) through Opts.Probes (Sym unused,
/// may be null). Names in the result point into Sym, Opts.Probes and
/// Image, which must outlive it.
ContextProfileResult buildContextProfile(const RawProfile &Raw, int Dso,
                                         const BinaryImage &Image,
                                         const BinaryTransferOracle &O,
                                         Symbolizer *Sym,
                                         const ContextProfileOptions &Opts);

void printContextProfileStats(const ContextProfileStats &S,
                              const ContextStats &A, llvm::raw_ostream &OS);

} // namespace lbr2prof

#endif
