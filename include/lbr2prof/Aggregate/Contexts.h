//===- Contexts.h - calling contexts from call stacks + branch stacks -*- C++ -*-===//
//
// A sample that carries both a call stack (PERF_SAMPLE_CALLCHAIN: the IP,
// then the return address of every active frame) and a branch stack tells
// the calling context of every branch and fall-through range in the stack:
// the call stack is the context at the sample IP, and walking the branch
// stack from the newest entry back in time undoes each call and return.
//
//   context at IP:  [r_n ... r_2 r_1]      (return addresses, outermost first)
//   entry i, going back in time over From_i -> To_i:
//     a call   (From_i calls To_i): the callee's frame was not there yet, so
//              pop r_1 (it must be the call's own return address);
//     a return (From_i returns to To_i): the callee's frame was still there,
//              so push To_i (the return address it went to);
//     anything else: the same context.
//   The range To_i .. From_{i-1} ran in the context before that step, the
//   branch From_i -> To_i in the context after it (its source's).
//
// Contexts are interned in a trie of return addresses (ContextTrie), so a
// context is one 32-bit id and counting stays one hash update per entry.
// Aggregation knows no instructions: which instruction is a call or a
// return comes from a TransferOracle the driver builds from the binary.
// Frames outside that binary (libc's qsort calling back, main's caller) cut
// the context: it starts at the innermost run of frames in the binary.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_AGGREGATE_CONTEXTS_H
#define LBR2PROF_AGGREGATE_CONTEXTS_H

#include "lbr2prof/Support/Hash.h"
#include "lbr2prof/Aggregate/ProcessMaps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <vector>

namespace lbr2prof {

/// A DSO-relative location (see LbrAggregator.h).
using Loc = uint64_t;

/// What the context unwinder needs to know about the profiled binary's
/// instructions, by file offset. Implementations must be safe to query from
/// several threads at once (build tables first, then only read).
class TransferOracle {
public:
  enum Kind : uint8_t {
    Other,  ///< no change of frame (jumps, conditionals, non-branches)
    Call,   ///< a direct or indirect call
    Return, ///< a return
  };
  virtual ~TransferOracle();
  /// True if D is the profiled binary (build-id or name, as the driver
  /// matches it).
  virtual bool isBinary(const DsoInfo &D) const = 0;
  /// The kind of the instruction at file offset Off of the binary.
  virtual Kind kindAt(uint64_t Off) const = 0;
  /// For a call at Off: the offset of the instruction after it (the return
  /// address it pushes); ~0 if Off is not a call.
  virtual uint64_t returnOffsetOf(uint64_t Off) const = 0;
  /// True if the instruction before Off is a call (a return lands at Off).
  virtual bool isReturnSite(uint64_t Off) const = 0;
};

/// Calling contexts as a trie of return addresses; id 0 is the empty
/// context (code whose caller is outside the binary, e.g. main).
class ContextTrie {
public:
  ContextTrie();
  static constexpr uint32_t Root = 0;
  /// The context Parent + one more frame that returns to Ret.
  uint32_t child(uint32_t Parent, Loc Ret);
  uint32_t parent(uint32_t Id) const { return Parent[Id]; }
  /// The innermost frame's return address (0 for the root).
  Loc ret(uint32_t Id) const { return Ret[Id]; }
  unsigned depth(uint32_t Id) const { return Depth[Id]; }
  size_t size() const { return Parent.size(); }
  /// The return addresses of Id, outermost first.
  void path(uint32_t Id, std::vector<Loc> &Out) const;
  /// Id without its outermost frame (to bound the depth).
  uint32_t dropOutermost(uint32_t Id);

private:
  std::vector<uint32_t> Parent;
  std::vector<Loc> Ret;
  std::vector<uint16_t> Depth;
  llvm::DenseMap<std::pair<uint32_t, Loc>, uint32_t> Children;
  std::vector<Loc> Scratch;
};

/// A branch (From -> To) or a range (Begin .. End) in a context.
struct ContextKey {
  uint32_t Ctx = 0;
  Loc A = 0, B = 0;
  bool operator==(const ContextKey &O) const {
    return Ctx == O.Ctx && A == O.A && B == O.B;
  }
};
struct ContextKeyInfo {
  static ContextKey getEmptyKey() { return {~0u, ~0ULL, ~0ULL}; }
  static ContextKey getTombstoneKey() { return {~0u - 1, ~0ULL, ~0ULL}; }
  static unsigned getHashValue(const ContextKey &K) {
    return hashFold(hashMix(hashMix(hashMix(0, K.Ctx), K.A), K.B));
  }
  static bool isEqual(const ContextKey &X, const ContextKey &Y) {
    return X == Y;
  }
};

struct ContextCount {
  uint64_t Count = 0;
  /// Sum of the entries' sampling weights (as RangeCount::Weight).
  double Weight = 0;
};

/// How unwinding went, counted in samples and entries.
struct ContextStats {
  uint64_t Samples = 0;          ///< samples with a call stack and branches
  uint64_t SamplesWhole = 0;     ///< unwound through every entry
  uint64_t SamplesMismatch = 0;  ///< stopped: a call did not match the stack
  uint64_t SamplesUnusable = 0;  ///< stopped: an unusable entry
  uint64_t Entries = 0;          ///< entries given a context
  uint64_t EntriesLeft = 0;      ///< entries after a stop (no context)
  uint64_t DepthCut = 0;         ///< outermost frames dropped (depth bound)
};

/// The counts of a hybrid (call stack + branch stack) recording.
struct ContextCounts {
  ContextTrie Trie;
  llvm::DenseMap<ContextKey, ContextCount, ContextKeyInfo> Branches;
  llvm::DenseMap<ContextKey, ContextCount, ContextKeyInfo> Ranges;
  ContextStats Stats;

  bool empty() const { return Branches.empty() && Ranges.empty(); }
  /// Frees the branch and range counts (the trie and the stats stay).
  void releaseCounts() {
    decltype(Branches)().swap(Branches);
    decltype(Ranges)().swap(Ranges);
  }
  /// Adds O's counts (its context ids are re-interned in this trie).
  void merge(const ContextCounts &O);
  /// Re-keys every Loc (DSO renumbering), merging what collides.
  void rename(llvm::function_ref<Loc(Loc)> Re);
  /// Deterministic text form: one block per context, its return addresses
  /// outermost first, then "B from to count" and "R begin end count".
  void print(llvm::raw_ostream &OS,
             llvm::function_ref<void(llvm::raw_ostream &, Loc)> PrintLoc)
      const;

private:
  /// Adds O's counts (not its stats), with Re applied to every Loc.
  void addFrom(const ContextCounts &O, llvm::function_ref<Loc(Loc)> Re);
};

} // namespace lbr2prof

#endif
