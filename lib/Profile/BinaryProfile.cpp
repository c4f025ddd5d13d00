//===- BinaryProfile.cpp - range validation, blocks and edges -------------===//
//
// Works per distinct address pair: ranges and branches were aggregated by
// address before this stage, so each is validated and symbolized once.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Profile/BinaryProfile.h"
#include "lbr2prof/Profile/FlowInference.h"
#include "lbr2prof/Support/Parallel.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"
#include <algorithm>

using namespace llvm;

namespace lbr2prof {
namespace {

void bump(ProfileStats::Reason &R, uint64_t N) {
  R.Count += N;
  ++R.Distinct;
}

/// Per-function working state.
struct Work {
  std::vector<uint64_t> Leaders; // sorted block starts
  size_t StaticLeaders = 0;      // the first ones, sorted and unique
  /// Each valid range's count, added at its first instruction's index and
  /// taken back after its last, summed in index order when the CFG is
  /// filled. Not an array over the function: a context's profile touches
  /// a few ranges of a large function, and zeroing and summing an array of
  /// all its instructions per context and function was 8% of sqlite's
  /// CSSPGO instructions (bench/pgo; 12,700 such pairs).
  struct Bound {
    uint32_t Index;
    int64_t Count;
  };
  std::vector<Bound> Bounds;
  /// Fall-throughs as ranges add them (a pair may repeat), summed when
  /// the CFG is filled: one vector, not a hash map per function.
  std::vector<Edge> FallThrough;
  std::vector<Edge> Taken;
  uint64_t EntryCount = 0;
};

/// The working state of the touched functions, found by function index
/// (a std::map of 32k functions was 4% of a broad run, its nodes as much
/// again in malloc and free).
class WorkSet {
public:
  WorkSet(size_t NumFunctions, ArrayRef<unsigned> Funcs)
      : Slot(NumFunctions, -1), Funcs(Funcs), Works(Funcs.size()) {
    for (size_t K = 0; K < Funcs.size(); ++K)
      Slot[Funcs[K]] = int32_t(K);
  }
  /// F must be one of Funcs (every function a branch or range touches).
  Work &operator[](unsigned F) {
    assert(Slot[F] >= 0 && "a function no branch or range touched");
    return Works[size_t(Slot[F])];
  }
  ArrayRef<unsigned> functions() const { return Funcs; }
  std::vector<Work> &all() { return Works; }

private:
  std::vector<int32_t> Slot;
  ArrayRef<unsigned> Funcs;
  std::vector<Work> Works;
};

/// The static leaders of F, sorted and unique.
std::vector<uint64_t> staticLeaders(const BinaryImage &Image, unsigned F) {
  const FunctionSym &FS = Image.functions()[F];
  ArrayRef<Inst> I = Image.instructions(F);
  std::vector<uint64_t> L{FS.Start};
  for (size_t K = 0; K < I.size(); ++K) {
    if (isTerminator(I[K].Kind) && K + 1 < I.size())
      L.push_back(I[K + 1].Addr);
    uint64_t T = I[K].target();
    if ((I[K].Kind == InstKind::CondBranch ||
         I[K].Kind == InstKind::UncondBranch) &&
        T >= FS.Start && T < FS.End)
      L.push_back(T);
  }
  llvm::sort(L);
  L.erase(std::unique(L.begin(), L.end()), L.end());
  return L;
}

/// A range's binary addresses, estimated count (used for the CFG) and
/// entries seen (for statistics), and the functions at its ends (-1:
/// none), found once in step 1.
struct AddrRange {
  uint64_t Begin, End, Count, Seen;
  int FB, FE;
};

/// The binary address of L, or ExternalAddr if L is in another file or in
/// no executable segment of Image.
uint64_t toBinaryAddr(Loc L, int Dso, const BinaryImage &Image) {
  if (L == ExternalLoc || locDso(L) != Dso)
    return ExternalAddr;
  std::optional<uint64_t> A = Image.fileOffsetToAddr(locOffset(L));
  return A ? *A : ExternalAddr;
}

/// Marks the function holding binary address A (if any) in Touched;
/// returns it (-1: none).
int touchFunction(const BinaryImage &Image, uint64_t A,
                  std::vector<char> &Touched) {
  if (A == ExternalAddr)
    return -1;
  int F = Image.functionAt(A);
  if (F >= 0)
    Touched[F] = 1;
  return F;
}

/// Step 1 over the entries of a raw map M: Fn(Entry, Out, Stats, Touched)
/// for each, on up to Threads threads, each a contiguous part of the
/// entries with its own outputs, joined in the map's order (what one thread
/// would give: outputs in order, statistics and touched functions added).
template <typename MapT, typename OutT, typename Fn>
void collect(const MapT &M, unsigned Threads, std::vector<OutT> &Out,
             ProfileStats &St, std::vector<char> &Touched, Fn F) {
  if (Threads <= 1 || M.size() < 2048) {
    for (const auto &E : M)
      F(E, Out, St, Touched);
    return;
  }
  std::vector<const typename MapT::value_type *> Entries;
  Entries.reserve(M.size());
  for (const auto &E : M)
    Entries.push_back(&E);
  struct Part {
    std::vector<OutT> Out;
    ProfileStats St;
    std::vector<char> Touched;
  };
  std::vector<Part> Parts(Threads);
  parallelParts(Entries.size(), Threads, Threads,
                [&](size_t K, size_t B, size_t E) {
                  Part &Pt = Parts[K];
                  Pt.Touched.assign(Touched.size(), 0);
                  for (size_t I = B; I < E; ++I)
                    F(*Entries[I], Pt.Out, Pt.St, Pt.Touched);
                });
  for (Part &Pt : Parts) {
    Out.insert(Out.end(), Pt.Out.begin(), Pt.Out.end());
    St.add(Pt.St);
    for (size_t K = 0; K < Touched.size(); ++K)
      Touched[K] |= Pt.Touched[K];
  }
}

/// Step 1, branches: those with an end in this binary go to P.Branches in
/// binary addresses, sorted, with window-weighted count estimates.
void collectBranches(const RawProfile &Raw, int Dso, const BinaryImage &Image,
                     BinaryProfile &P, std::vector<char> &Touched,
                     unsigned Threads) {
  collect(Raw.Branches, Threads, P.Branches, P.Stats, Touched,
          [&](const auto &KV, std::vector<Edge> &Out, ProfileStats &St,
              std::vector<char> &Touched) {
            const auto &[K, C] = KV;
            bump(St.BranchesTotal, C.Count);
            // Counts are window-weighted estimates; mispredictions keep
            // their observed ratio.
            uint64_t Est = Raw.estimate(C.Weight, C.Count);
            uint64_t Mis =
                C.Count ? uint64_t(double(C.Mispred) * Est / C.Count + 0.5)
                        : 0;
            Edge E{toBinaryAddr(K.first, Dso, Image),
                   toBinaryAddr(K.second, Dso, Image), Est, Mis, C.Count};
            if (E.From == ExternalAddr && E.To == ExternalAddr)
              return;
            bump(St.BranchesInBinary, C.Count);
            touchFunction(Image, E.From, Touched);
            touchFunction(Image, E.To, Touched);
            Out.push_back(E);
          });
  parallelSort(
      P.Branches.begin(), P.Branches.end(),
      [](const Edge &A, const Edge &B) {
        return std::tie(A.From, A.To) < std::tie(B.From, B.To);
      },
      Threads);
}

/// Step 1, ranges: those with both ends in this binary, in binary
/// addresses.
std::vector<AddrRange> collectRanges(const RawProfile &Raw, int Dso,
                                     const BinaryImage &Image, ProfileStats &St,
                                     std::vector<char> &Touched,
                                     unsigned Threads) {
  std::vector<AddrRange> Ranges;
  collect(Raw.Ranges, Threads, Ranges, St, Touched,
          [&](const auto &KV, std::vector<AddrRange> &Out, ProfileStats &St,
              std::vector<char> &Touched) {
            const auto &[K, RC] = KV;
            // Statistics count entries seen; the CFG counts use the
            // estimates.
            uint64_t C = RC.Count;
            bump(St.RangesTotal, C);
            if (locDso(K.first) != Dso) {
              bump(St.RangeOtherDso, C);
              return;
            }
            uint64_t B = toBinaryAddr(K.first, Dso, Image),
                     E = toBinaryAddr(K.second, Dso, Image);
            if (B == ExternalAddr || E == ExternalAddr) {
              bump(St.RangeOutsideFunctions, C);
              return;
            }
            Out.push_back({B, E, Raw.estimate(RC.Weight, C), C,
                           touchFunction(Image, B, Touched),
                           touchFunction(Image, E, Touched)});
          });
  return Ranges;
}

/// Step 3, start: the working state of each function in Funcs, with its
/// static leaders (entry, after terminators, direct targets).
WorkSet initWork(const BinaryImage &Image, ArrayRef<unsigned> Funcs,
                 const BinaryProfileOptions &Opts) {
  WorkSet W(Image.functions().size(), Funcs);
  auto init = [&](size_t B, size_t E) {
    for (size_t K = B; K < E; ++K) {
      unsigned F = Funcs[K];
      Work &Wk = W.all()[K];
      if (Opts.Parts == ProfileParts::Counts) {
        // No blocks: no leaders.
      } else if (Opts.Leaders) {
        ArrayRef<uint64_t> L = Opts.Leaders->of(Image, F);
        Wk.Leaders.assign(L.begin(), L.end());
      } else {
        Wk.Leaders = staticLeaders(Image, F);
      }
      Wk.StaticLeaders = Wk.Leaders.size();
    }
  };
  // A LeaderCache is not thread-safe.
  parallelChunks(Funcs.size(), Opts.Leaders ? 1 : Opts.Threads, 256, init);
  return W;
}

/// Step 3, branches: checks each branch against the disassembly and keeps
/// in P.Branches those the code can produce: LBR entries that it cannot
/// mean a different binary (or a corrupt record) and would put blocks in
/// the wrong places. A kept branch goes to its source function's taken
/// edges; its target becomes a leader (a jump within the function) or
/// adds to the target's entry count (a call or a jump from elsewhere).
/// The checks (two function and two instruction searches a branch) run
/// on all threads; what they decide is applied in order on one.
void validateBranches(const BinaryImage &Image, BinaryProfile &P,
                      WorkSet &W, unsigned Threads) {
  enum Verdict : uint8_t {
    Keep,
    SourceNotBoundary,
    SourceNotBranch,
    WrongTarget,
    TargetNotBoundary
  };
  struct Check {
    int From, To;
    InstKind SrcKind;
    Verdict V;
  };
  std::vector<Check> Checks(P.Branches.size());
  parallelChunks(P.Branches.size(), Threads, 4096, [&](size_t B, size_t End) {
    for (size_t K = B; K < End; ++K) {
      const Edge &E = P.Branches[K];
      Check &C = Checks[K];
      C.From = E.From == ExternalAddr ? -1 : Image.functionAt(E.From);
      C.To = E.To == ExternalAddr ? -1 : Image.functionAt(E.To);
      C.SrcKind = InstKind::Other;
      C.V = Keep;
      if (C.From >= 0) {
        ArrayRef<Inst> I = Image.instructions(C.From);
        int Idx = instIndexAt(I, E.From);
        if (Idx < 0) {
          C.V = SourceNotBoundary;
          continue;
        }
        C.SrcKind = I[Idx].Kind;
        if (C.SrcKind == InstKind::Other && E.To != ExternalAddr) {
          C.V = SourceNotBranch;
          continue;
        }
        if (uint64_t T = I[Idx].target();
            T && E.To != ExternalAddr && E.To != T) {
          C.V = WrongTarget;
          continue;
        }
      }
      if (C.To >= 0 && instIndexAt(Image.instructions(C.To), E.To) < 0)
        C.V = TargetNotBoundary;
    }
  });
  ProfileStats &St = P.Stats;
  std::vector<Edge> Kept;
  for (size_t K = 0; K < P.Branches.size(); ++K) {
    const Edge &E = P.Branches[K];
    const Check &C = Checks[K];
    switch (C.V) {
    case SourceNotBoundary:
      bump(St.BranchesSourceNotBoundary, E.Seen);
      continue;
    case SourceNotBranch:
      bump(St.BranchesSourceNotBranch, E.Seen);
      continue;
    case WrongTarget:
      bump(St.BranchesWrongTarget, E.Seen);
      continue;
    case Keep:
    case TargetNotBoundary:
      break;
    }
    // A return is counted as one before its target is checked.
    if (C.SrcKind == InstKind::Return)
      bump(St.BranchesReturn, E.Seen);
    if (C.V == TargetNotBoundary) {
      bump(St.BranchesTargetNotBoundary, E.Seen);
      continue;
    }
    Kept.push_back(E);
    if (C.From >= 0)
      W[C.From].Taken.push_back(E);
    if (C.To >= 0) {
      const FunctionSym &T = Image.functions()[C.To];
      bool Jump = C.From == C.To && C.SrcKind != InstKind::Return &&
                  C.SrcKind != InstKind::Call &&
                  C.SrcKind != InstKind::IndirectCall;
      if (Jump)
        W[C.To].Leaders.push_back(E.To);
      else if (E.To == T.Start && C.SrcKind != InstKind::Return)
        W[C.To].EntryCount += E.Count;
    }
  }
  P.Branches = std::move(Kept);
}

/// Step 3, end: jump targets seen (appended after the static leaders) join
/// them, sorted and unique.
void mergeSeenLeaders(Work &Wk) {
  auto Static = Wk.Leaders.begin() + Wk.StaticLeaders;
  if (Static == Wk.Leaders.end())
    return;
  std::sort(Static, Wk.Leaders.end());
  std::vector<uint64_t> All;
  All.reserve(Wk.Leaders.size());
  std::merge(Wk.Leaders.begin(), Static, Static, Wk.Leaders.end(),
             std::back_inserter(All));
  All.erase(std::unique(All.begin(), All.end()), All.end());
  Wk.Leaders = std::move(All);
}

void mergeSeenLeaders(WorkSet &W, unsigned Threads) {
  parallelChunks(W.all().size(), Threads, 256, [&](size_t B, size_t E) {
    for (size_t K = B; K < E; ++K)
      mergeSeenLeaders(W.all()[K]);
  });
}

/// Step 4: validates each distinct range; a valid one adds its count to
/// the instructions it covers (as a difference array) and to the
/// fall-throughs into each leader inside it, as far as Parts has them.
void countRangeSlice(const BinaryImage &Image, ArrayRef<AddrRange> Ranges,
                     WorkSet &W, ProfileParts Parts, ProfileStats &St) {
  for (const AddrRange &Rg : Ranges) {
    int FB = Rg.FB, FE = Rg.FE;
    if (FB < 0 || FE < 0) {
      bump(St.RangeOutsideFunctions, Rg.Seen);
      continue;
    }
    if (FB != FE) {
      bump(St.RangeCrossFunction, Rg.Seen);
      continue;
    }
    if (Rg.Begin > Rg.End) {
      bump(St.RangeBackwards, Rg.Seen);
      continue;
    }
    ArrayRef<Inst> I = Image.instructions(FB);
    int IB = instIndexAt(I, Rg.Begin), IE = instIndexAt(I, Rg.End);
    if (IB < 0 || IE < 0) {
      bump(St.RangeNotBoundary, Rg.Seen);
      continue;
    }
    if (!runsThrough(I, IB, IE)) {
      bump(St.RangeCrossUncond, Rg.Seen);
      continue;
    }
    bump(St.RangesValid, Rg.Seen);
    Work &Wk = W[FB];
    if (Parts != ProfileParts::Edges) {
      Wk.Bounds.push_back({uint32_t(IB), int64_t(Rg.Count)});
      Wk.Bounds.push_back({uint32_t(IE + 1), -int64_t(Rg.Count)});
    }
    if (Parts == ProfileParts::Counts)
      continue;
    // The leaders inside the range, in address order, are found among
    // its own instructions, each search starting where the last stopped
    // (a search of the whole function per leader was a seventh of
    // sqlite's CSSPGO run, which builds a profile per context).
    auto L = std::upper_bound(Wk.Leaders.begin(), Wk.Leaders.end(), Rg.Begin);
    const Inst *Pos = I.begin() + IB, *RangeEnd = I.begin() + IE + 1;
    for (; L != Wk.Leaders.end() && *L <= Rg.End; ++L) {
      Pos = std::lower_bound(Pos, RangeEnd, *L, [](const Inst &X, uint64_t A) {
        return X.Addr < A;
      });
      if (Pos == RangeEnd || Pos->Addr != *L || Pos == I.begin())
        continue;
      Wk.FallThrough.push_back({Pos[-1].Addr, *L, Rg.Count, 0, 0});
    }
  }
}

/// Step 4 on Threads threads: each function's ranges are counted by one
/// thread (what a range adds to its function's work is summed, in any
/// order), the statistics per slice and then added.
void countRanges(const BinaryImage &Image, std::vector<AddrRange> &Ranges,
                 WorkSet &W, ProfileParts Parts, ProfileStats &St,
                 unsigned Threads) {
  constexpr size_t Slice = 1024;
  if (Threads <= 1 || Ranges.size() <= Slice) {
    countRangeSlice(Image, Ranges, W, Parts, St);
    return;
  }
  // By start: a function's ranges are then together (functionAt is
  // nondecreasing in the address, apart from -1 in gaps, which touches no
  // work), and slices are cut where the function of the start changes.
  parallelSort(
      Ranges.begin(), Ranges.end(),
      [](const AddrRange &A, const AddrRange &B) {
        return std::tie(A.Begin, A.End) < std::tie(B.Begin, B.End);
      },
      Threads);
  std::vector<size_t> Cuts{0};
  int Last = Ranges[0].FB;
  for (size_t K = 1; K < Ranges.size(); ++K) {
    int F = Ranges[K].FB;
    if (F != Last && K - Cuts.back() >= Slice)
      Cuts.push_back(K);
    Last = F;
  }
  Cuts.push_back(Ranges.size());
  std::vector<ProfileStats> Part(Cuts.size() - 1);
  parallelChunks(Part.size(), Threads, 1, [&](size_t B, size_t E) {
    for (size_t C = B; C < E; ++C)
      countRangeSlice(Image,
                      ArrayRef<AddrRange>(Ranges).slice(
                          Cuts[C], Cuts[C + 1] - Cuts[C]),
                      W, Parts, Part[C]);
  });
  for (const ProfileStats &P : Part)
    St.add(P);
}

/// Step 5: the CFG of function F from its working state, as far as
/// Opts.Parts has it: instruction counts, blocks with counts, edges sorted
/// by address, and (if asked) counts made consistent by flow inference.
void fillCfg(const BinaryImage &Image, unsigned F, Work &Wk,
             const BinaryProfileOptions &Opts, FunctionCfg &Cfg) {
  Cfg.Func = F;
  Cfg.EntryCount = Wk.EntryCount;
  ArrayRef<Inst> I = Image.instructions(F);
  const FunctionSym &FS = Image.functions()[F];
  // Per instruction, for the blocks' counts below.
  bool Blocks = Opts.Parts == ProfileParts::All;
  std::vector<uint64_t> InstCount(Blocks ? I.size() : 0);
  if (Opts.Parts != ProfileParts::Edges) {
    // The instructions between two bounds ran as often as the ranges
    // around them add up to.
    std::vector<Work::Bound> &Bd = Wk.Bounds;
    llvm::sort(Bd, [](const Work::Bound &A, const Work::Bound &B) {
      return A.Index < B.Index;
    });
    auto spans = [&](auto Span) {
      int64_t Run = 0;
      for (size_t K = 0; K < Bd.size();) {
        uint32_t At = Bd[K].Index;
        for (; K < Bd.size() && Bd[K].Index == At; ++K)
          Run += Bd[K].Count;
        size_t Next = K < Bd.size() ? Bd[K].Index : I.size();
        if (Run > 0)
          Span(size_t(At), std::min(Next, I.size()), uint64_t(Run));
      }
    };
    size_t Counted = 0;
    spans([&](size_t B, size_t E, uint64_t) { Counted += E - B; });
    Cfg.InstCounts.reserve(Counted);
    spans([&](size_t B, size_t E, uint64_t Count) {
      for (size_t K = B; K < E; ++K) {
        if (Blocks)
          InstCount[K] = Count;
        Cfg.InstCounts.push_back({I[K].Addr, Count});
      }
    });
  }
  Cfg.Taken = std::move(Wk.Taken);
  auto ByAddr = [](const Edge &A, const Edge &B) {
    return std::tie(A.From, A.To) < std::tie(B.From, B.To);
  };
  std::sort(Cfg.Taken.begin(), Cfg.Taken.end(), ByAddr);
  if (Opts.Parts == ProfileParts::Counts)
    return;
  // Leaders are sorted: their instructions are met walking the function
  // once, as the counts above were.
  const Inst *Pos = I.begin();
  for (size_t K = 0; Blocks && K < Wk.Leaders.size(); ++K) {
    Block B;
    B.Start = Wk.Leaders[K];
    B.End = K + 1 < Wk.Leaders.size() ? Wk.Leaders[K + 1] : FS.End;
    while (Pos != I.end() && Pos->Addr < B.Start)
      ++Pos;
    B.Count = Pos != I.end() && Pos->Addr == B.Start ? InstCount[Pos - I.begin()]
                                                      : 0;
    Cfg.Blocks.push_back(B);
  }
  std::sort(Wk.FallThrough.begin(), Wk.FallThrough.end(), ByAddr);
  for (const Edge &E : Wk.FallThrough) {
    if (!Cfg.FallThrough.empty() && Cfg.FallThrough.back().From == E.From &&
        Cfg.FallThrough.back().To == E.To)
      Cfg.FallThrough.back().Count += E.Count;
    else
      Cfg.FallThrough.push_back({E.From, E.To, E.Count, 0, 0});
  }
  if (Blocks)
    inferConsistentCounts(Cfg, Image, Opts.InferFlow);
}

} // namespace

ArrayRef<uint64_t> LeaderCache::of(const BinaryImage &Image, unsigned F) {
  auto [It, New] = Leaders.try_emplace(F);
  if (New)
    It->second = staticLeaders(Image, F);
  return It->second;
}

BinaryProfile buildBinaryProfile(const RawProfile &Raw, int Dso,
                                 const BinaryImage &Image,
                                 BinaryProfileOptions Opts) {
  assert((Opts.Parts == ProfileParts::All ||
          Opts.InferFlow == FlowInferenceMethod::None) &&
         "flow inference needs the blocks and counts");
  BinaryProfile P;
  // 1. Branches and ranges in binary addresses; which functions they touch.
  std::vector<char> Touched(Image.functions().size(), 0);
  collectBranches(Raw, Dso, Image, P, Touched, Opts.Threads);
  std::vector<AddrRange> Ranges =
      collectRanges(Raw, Dso, Image, P.Stats, Touched, Opts.Threads);

  // 2. Decode the touched functions (in parallel).
  std::vector<unsigned> Funcs;
  for (unsigned F = 0; F < Touched.size(); ++F)
    if (Touched[F])
      Funcs.push_back(F);
  Image.decodeFunctions(Funcs, Opts.Threads);

  // 3. Leaders: entry, after terminators, direct targets, jump targets seen.
  WorkSet W = initWork(Image, Funcs, Opts);
  validateBranches(Image, P, W, Opts.Threads);
  mergeSeenLeaders(W, Opts.Threads);

  // 4. Validate each distinct range, then count instructions and
  //    fall-throughs.
  countRanges(Image, Ranges, W, Opts.Parts, P.Stats, Opts.Threads);

  // 5. Blocks with counts, edges sorted; each function on its own.
  std::vector<FunctionCfg *> Cfgs;
  Cfgs.reserve(Funcs.size());
  for (unsigned F : Funcs)
    Cfgs.push_back(&P.Functions[F]);
  parallelChunks(Funcs.size(), Opts.Threads, 256, [&](size_t B, size_t E) {
    for (size_t K = B; K < E; ++K)
      fillCfg(Image, Funcs[K], W.all()[K], Opts, *Cfgs[K]);
  });
  return P;
}

EntryTransfer entryTransfer(const BinaryImage &Image, unsigned F,
                            const Edge &E, unsigned &Callee) {
  // A PLT stub's jump is the second half of a call counted at the call.
  if (Image.functions()[F].Plt)
    return EntryTransfer::None;
  ArrayRef<Inst> Insts = Image.instructions(F);
  int Idx = instIndexAt(Insts, E.From);
  int C = E.To == ExternalAddr ? -1 : Image.functionAt(E.To);
  if (Idx < 0 || C < 0 || Image.functions()[C].Start != E.To ||
      Image.functions()[C].Parent >= 0)
    return EntryTransfer::None;
  InstKind K = Insts[Idx].Kind;
  bool IsCall = K == InstKind::Call || K == InstKind::IndirectCall;
  // A call (or tail call) to foo@PLT is one of foo when foo is in this
  // binary (what clang compiled: the stub only jumps on); else it leaves
  // the binary.
  if (Image.functions()[C].Plt) {
    C = Image.functions()[C].PltTarget;
    if (C < 0)
      return EntryTransfer::None;
  }
  Callee = unsigned(C);
  if (IsCall)
    return EntryTransfer::Call;
  if ((K == InstKind::UncondBranch || K == InstKind::IndirectBranch ||
       K == InstKind::CondBranch) &&
      functionFamily(Image, Callee) != functionFamily(Image, F))
    return EntryTransfer::TailCall;
  return EntryTransfer::None;
}

void printCfgs(const BinaryProfile &P, const BinaryImage &Image,
               raw_ostream &OS) {
  for (const auto &[F, Cfg] : P.Functions) {
    const FunctionSym &FS = Image.functions()[F];
    OS << "function " << FS.Name << " " << format_hex(FS.Start, 0)
       << " entry " << Cfg.EntryCount << "\n";
    for (const Block &B : Cfg.Blocks)
      OS << "  block " << format_hex(B.Start - FS.Start, 0) << "-"
         << format_hex(B.End - FS.Start, 0) << " count " << B.Count << "\n";
    for (const Edge &E : Cfg.Taken) {
      OS << "  taken " << format_hex(E.From - FS.Start, 0) << " -> ";
      int T = E.To == ExternalAddr ? -1 : Image.functionAt(E.To);
      if (T == int(F))
        OS << format_hex(E.To - FS.Start, 0);
      else if (T >= 0)
        OS << Image.functions()[T].Name << "+"
           << format_hex(E.To - Image.functions()[T].Start, 0);
      else
        OS << "[external]";
      OS << " count " << E.Count << " mispred " << E.Mispred << "\n";
    }
    for (const Edge &E : Cfg.FallThrough)
      OS << "  fallthrough " << format_hex(E.From - FS.Start, 0) << " -> "
         << format_hex(E.To - FS.Start, 0) << " count " << E.Count << "\n";
  }
}

static void line(raw_ostream &OS, const char *What,
                 const ProfileStats::Reason &R, uint64_t Total) {
  if (!R.Count && !R.Distinct)
    return;
  OS << format("  %-44s %12" PRIu64 " (%5.1f%%) %9" PRIu64 " distinct\n",
               What, R.Count, Total ? 100.0 * R.Count / Total : 0.0,
               R.Distinct);
}

void printProfileStats(const ProfileStats &S, const AggregateStats &A,
                       raw_ostream &OS) {
  OS << "samples: " << A.Samples << " (" << A.SamplesFiltered
     << " from other pids, " << A.SamplesNoBranches
     << " without branch stack)\n";
  OS << "branch entries: " << A.Entries << " (" << A.EntriesZero
     << " empty, " << A.EntriesExternal << " outside any file, "
     << A.EntriesWrongPath << " wrong-path, " << A.DuplicateTop
     << " duplicated newest entries dropped)\n";
  OS << "ranges between entries: " << A.Ranges << " (" << A.RangesExternal
     << " with an end outside any file, " << A.RangesCrossDso
     << " across files)\n";
  uint64_t T = S.RangesTotal.Count;
  OS << "ranges in files:\n";
  line(OS, "total", S.RangesTotal, T);
  line(OS, "valid (used)", S.RangesValid, T);
  line(OS, "dropped: in another file", S.RangeOtherDso, T);
  line(OS, "dropped: an end outside any function", S.RangeOutsideFunctions,
       T);
  line(OS, "dropped: crosses a function boundary", S.RangeCrossFunction, T);
  line(OS, "dropped: begin after end", S.RangeBackwards, T);
  line(OS, "dropped: not on an instruction boundary", S.RangeNotBoundary, T);
  line(OS, "dropped: crosses an unconditional transfer", S.RangeCrossUncond,
       T);
  uint64_t BT = S.BranchesTotal.Count;
  OS << "taken branches:\n";
  line(OS, "total", S.BranchesTotal, BT);
  line(OS, "with an end in the binary", S.BranchesInBinary, BT);
  line(OS, "returns (not written to fdata)", S.BranchesReturn, BT);
  line(OS, "dropped: source not on an instruction boundary",
       S.BranchesSourceNotBoundary, BT);
  line(OS, "dropped: target not on an instruction boundary",
       S.BranchesTargetNotBoundary, BT);
  line(OS, "dropped: source is not a branch", S.BranchesSourceNotBranch, BT);
  line(OS, "dropped: target differs from the instruction's",
       S.BranchesWrongTarget, BT);
}

} // namespace lbr2prof
