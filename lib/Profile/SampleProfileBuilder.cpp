//===- SampleProfileBuilder.cpp - body samples, calls, inline trees -------===//
//
// One pass over the instructions of the functions that ran, in address
// order and by runs of one inline stack: each location is raised to the
// maximum count of its instructions, the executed bytes added to the
// totals on the way; then call targets and head samples are added.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Profile/SampleProfileBuilder.h"
#include "lbr2prof/Profile/ProfileDensity.h"
#include "lbr2prof/Support/HugePages.h"
#include "lbr2prof/Support/Parallel.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"
#include <algorithm>

using namespace llvm;
using namespace llvm::sampleprof;

namespace lbr2prof {

namespace {
/// Profile nodes by inline stack. The Symbolizer interns names (equal names
/// are equal pointers), and callers ask in address order, so consecutive
/// stacks mostly share their outer frames: the chain of nodes of the last
/// stack is kept, and only the levels below the first difference are looked
/// up (a lookup hashes the name: MD5, in SampleProfileMap and
/// FunctionSamplesMap). The nodes are stable: both maps are node-based.
class Nodes {
public:
  explicit Nodes(SampleProfileMap &M) : M(M) {}
  /// The profile node for the innermost frame of Frames, creating the
  /// inline chain from the outermost function down; adds Total to the total
  /// samples of every node on the chain (the function and each inlined
  /// call site).
  FunctionSamples &nodeFor(ArrayRef<SourceFrame> Frames, uint64_t Total = 0) {
    size_t Depth = Frames.size(), J = 0;
    // Level J (0: the outermost function) is Frames[Depth - 1 - J], called
    // at the location of the frame outside it.
    auto keyOf = [&](size_t J) {
      Level L{Frames[Depth - 1 - J].Function.data(), 0, 0, nullptr};
      if (J) {
        L.LineOffset = Frames[Depth - J].LineOffset;
        L.Discriminator = Frames[Depth - J].Discriminator;
      }
      return L;
    };
    while (J < Depth && J < Last.size() && Last[J].sameKey(keyOf(J)))
      ++J;
    Last.resize(J);
    for (; J < Depth; ++J) {
      Level L = keyOf(J);
      StringRef Name = Frames[Depth - 1 - J].Function;
      if (J == 0) {
        L.FS = &function(Name);
      } else {
        FunctionSamplesMap &Inl = Last.back().FS->functionSamplesAt(
            LineLocation(L.LineOffset, L.Discriminator));
        auto [CIt, CNew] = Inl.try_emplace(FunctionId(Name));
        if (CNew)
          CIt->second.setFunction(FunctionId(Name));
        L.FS = &CIt->second;
      }
      Last.push_back(L);
    }
    if (Total)
      for (Level &L : Last)
        L.FS->addTotalSamples(Total);
    return *Last.back().FS;
  }
  /// The top-level profile of a function (Name interned).
  FunctionSamples &function(StringRef Name) {
    auto [It, New] = Tops.try_emplace(Name.data());
    if (New)
      It->second = &M.create(SampleContext(FunctionId(Name)));
    return *It->second;
  }

private:
  /// One node of a chain: its function (interned name) and the call site
  /// in its caller's node where it was inlined (0, 0 for the outermost).
  struct Level {
    const char *Function;
    uint32_t LineOffset, Discriminator;
    FunctionSamples *FS;
    bool sameKey(const Level &O) const {
      return Function == O.Function && LineOffset == O.LineOffset &&
             Discriminator == O.Discriminator;
    }
  };
  SampleProfileMap &M;
  /// The chain of the last stack asked for, outermost first.
  std::vector<Level> Last;
  DenseMap<const char *, FunctionSamples *> Tops;
};

/// The body samples of FS and of everything inlined into it (what the total
/// samples were before they counted bytes; the density below keeps it).
uint64_t bodySamples(const FunctionSamples &FS) {
  uint64_t Sum = 0;
  for (const auto &[Loc, Rec] : FS.getBodySamples())
    Sum += Rec.getSamples();
  for (const auto &[Loc, Callees] : FS.getCallsiteSamples())
    for (const auto &[Id, Callee] : Callees)
      Sum += bodySamples(Callee);
  return Sum;
}
} // namespace

std::vector<uint64_t> sampleProfileAddresses(const BinaryProfile &P,
                                             const BinaryImage &Image) {
  // Instructions come in address order (functions by index, which is by
  // start), so only the branch targets are sorted before the two merge.
  std::vector<uint64_t> A, T;
  size_t N = 0;
  for (const auto &[F, Cfg] : P.Functions)
    if (!Cfg.InstCounts.empty() || !Cfg.Taken.empty())
      N += Image.instructions(F).size();
  A.reserve(N);
  for (const auto &[F, Cfg] : P.Functions) {
    if (Cfg.InstCounts.empty() && Cfg.Taken.empty())
      continue;
    for (const Inst &I : Image.instructions(F))
      A.push_back(I.Addr);
    for (const Edge &E : Cfg.Taken)
      if (E.To != ExternalAddr)
        T.push_back(E.To);
  }
  for (const Edge &E : P.Branches)
    if (E.From == ExternalAddr && E.To != ExternalAddr)
      T.push_back(E.To);
  // Overlapping function symbols can interleave instructions.
  if (!std::is_sorted(A.begin(), A.end()))
    llvm::sort(A);
  llvm::sort(T);
  std::vector<uint64_t> R;
  R.reserve(A.size() + T.size());
  std::merge(A.begin(), A.end(), T.begin(), T.end(), std::back_inserter(R));
  R.erase(std::unique(R.begin(), R.end()), R.end());
  return R;
}

namespace {
/// Which top-level profiles one thread builds: those whose function name
/// (interned: one pointer per name) hashes to K of N. Each thread walks
/// everything and adds only to its own profiles, so no profile is built
/// by two threads, and each sees its instructions in the same order as one
/// thread would (see buildSampleProfile).
struct Shard {
  unsigned K = 0, N = 1;
  bool owns(StringRef TopFunction) const {
    if (N == 1)
      return true;
    uint64_t H = uint64_t(uintptr_t(TopFunction.data())) * 0x9E3779B97F4A7C15ULL;
    return (H >> 32) % N == K;
  }
  /// Counts made once, not per profile, go to the first thread.
  bool first() const { return K == 0; }
};

/// A run of consecutive instructions with one inline stack: the Symbolizer
/// shares one copy of a stack among consecutive addresses that have it, so
/// the run is known by its pointer, and its node, location and
/// duplication factor are looked up once for the run.
struct StackRun {
  ArrayRef<SourceFrame> Frames;
  uint64_t Max = 0;   ///< the largest count x duplication factor
  uint64_t Bytes = 0; ///< executed bytes (count x size), for the totals

  /// Adds the run to its node (creating it, as the first instruction of the
  /// run would have) and empties it. A location gets the maximum of its
  /// instructions' counts: its record is raised to Max, or made with Max
  /// (0 too: code that did not run is written as cold).
  void flush(Nodes &N) {
    if (Frames.empty())
      return;
    FunctionSamples &FS = N.nodeFor(Frames, Bytes);
    uint32_t L = Frames.front().LineOffset, D = Frames.front().Discriminator;
    ErrorOr<uint64_t> Cur = FS.findSamplesAt(L, D);
    if (!Cur)
      FS.addBodySamples(L, D, Max);
    else if (Max > *Cur)
      FS.addBodySamples(L, D, Max - *Cur);
    Frames = {};
    Max = Bytes = 0;
  }
};

/// The body samples of every function that ran: the maximum count per
/// (profile node, location), executed bytes added to the totals of the
/// node's inline chain on the way.
void addBodySamples(const BinaryProfile &P, const BinaryImage &Image,
                    Symbolizer &Sym, Nodes &N, SampleProfileStats &St,
                    Shard Sh) {
  StackRun Run;
  // Every instruction of a function that ran at all is visited: code that
  // never ran gets explicit 0 samples, which tells the compiler it is cold
  // (a line with no record would be left for it to guess).
  for (const auto &[F, Cfg] : P.Functions) {
    if (Cfg.InstCounts.empty())
      continue;
    // InstCounts is in address order, as the instructions are.
    auto C = Cfg.InstCounts.begin(), CEnd = Cfg.InstCounts.end();
    for (const Inst &I : Image.instructions(F)) {
      while (C != CEnd && C->first < I.Addr)
        ++C;
      uint64_t Count = C != CEnd && C->first == I.Addr ? C->second : 0;
      ArrayRef<SourceFrame> Frames = Sym.frames(I.Addr);
      if (Frames.empty()) {
        if (Sh.first()) {
          St.Instructions += Count != 0;
          St.InstructionsNoDebug += Count != 0;
        }
        continue;
      }
      // Another thread's: skipped, the run goes on (its instructions of
      // one stack, and another's between them, make the same maximum and
      // total as runs cut by them).
      if (!Sh.owns(Frames.back().Function))
        continue;
      if (Count)
        ++St.Instructions;
      // Frames on line 0 come only with SymbolizerOptions::KeepLineZero.
      if (Count && llvm::any_of(Frames, [](const SourceFrame &F) {
            return F.Line == 0;
          }))
        ++St.InstructionsLineZero;
      if (Frames.data() != Run.Frames.data()) {
        Run.flush(N);
        Run.Frames = Frames;
      }
      // Total samples count every executed byte, as llvm-profgen does
      // (ProfileGenerator: TotalSamples += Count * InstSize), not the sum
      // of the body samples. Why: clang's sample loader inlines a call
      // site of the profile when its total samples reach the hot count of
      // the profile summary, and that summary is made of body samples (one
      // per line); totals in body units (about a tenth of these) make
      // every inlined site look colder than in both peers' profiles of
      // the same data, which are what clang's thresholds were tuned on.
      Run.Bytes += Count * I.Size;
      Run.Max = std::max(Run.Max, Count * Frames.front().DupFactor);
    }
  }
  Run.flush(N);
}

/// Calls: call instructions to function entries, and tail calls (jumps
/// from one function to another's entry, which clang sees as calls), as
/// call targets at the call site and head samples of the callee.
/// A call through a PLT stub, caller -> foo@PLT -> foo, is two branches:
/// the call gives foo's call target at the caller's site (what clang
/// compiled is a call of foo), the stub's jump gives foo's head samples
/// (as llvm-profgen counts them: every branch into an entry).
void addCalls(const BinaryProfile &P, const BinaryImage &Image, Symbolizer &Sym,
              Nodes &N, SampleProfileStats &St, Shard Sh) {
  for (const auto &[F, Cfg] : P.Functions) {
    ArrayRef<Inst> Insts = Image.instructions(F);
    bool FromPlt = Image.functions()[F].Plt;
    for (const Edge &E : Cfg.Taken) {
      int Idx = instIndexAt(Insts, E.From);
      int Callee = E.To == ExternalAddr ? -1 : Image.functionAt(E.To);
      if (Idx < 0 || Callee < 0 || Image.functions()[Callee].Start != E.To)
        continue;
      bool ToPlt = Image.functions()[Callee].Plt;
      if (ToPlt && (Callee = Image.functions()[Callee].PltTarget) < 0)
        continue;
      if (FromPlt) {
        if (ArrayRef<SourceFrame> Target = Sym.frames(E.To);
            !Target.empty() && Sh.owns(Target.back().Function))
          N.function(Target.back().Function).addHeadSamples(E.Count);
        continue;
      }
      InstKind K = Insts[Idx].Kind;
      bool IsCall = K == InstKind::Call || K == InstKind::IndirectCall;
      bool IsTailCall = (K == InstKind::UncondBranch ||
                         K == InstKind::IndirectBranch ||
                         K == InstKind::CondBranch) &&
                        Callee != int(F);
      if (!IsCall && !IsTailCall)
        continue;
      ArrayRef<SourceFrame> Site = Sym.frames(E.From);
      ArrayRef<SourceFrame> Target =
          Sym.frames(Image.functions()[Callee].Start);
      if (Sh.first()) {
        ++St.Calls;
        St.CallsNoDebug += Site.empty() || Target.empty();
      }
      if (Target.empty())
        continue;
      StringRef CalleeName = Target.back().Function;
      // Head samples even when the call site has no usable line (a call
      // through a pointer whose location the optimizer merged to line 0):
      // clang takes a function's entry count from its head samples, and
      // a hot function with none looks cold to every pass that asks
      // (sqlite's record comparators, called only that way, had none).
      if (!ToPlt && Sh.owns(CalleeName))
        N.function(CalleeName).addHeadSamples(E.Count);
      if (Site.empty() || !Sh.owns(Site.back().Function))
        continue;
      FunctionSamples &FS = N.nodeFor(Site);
      FS.addCalledTargetSamples(Site.front().LineOffset,
                                Site.front().Discriminator,
                                FunctionId(CalleeName), E.Count);
    }
  }
}

/// Entries from outside the binary (callbacks from a library, main from
/// libc's start-up code) have no call site here but are calls all the
/// same: head samples, as llvm-profgen counts every branch to an entry.
void addExternalEntries(const BinaryProfile &P, const BinaryImage &Image,
                        Symbolizer &Sym, Nodes &N, Shard Sh) {
  for (const Edge &E : P.Branches) {
    if (E.From != ExternalAddr || E.To == ExternalAddr)
      continue;
    int Callee = Image.functionAt(E.To);
    if (Callee < 0 || Image.functions()[Callee].Start != E.To)
      continue;
    ArrayRef<SourceFrame> Target = Sym.frames(E.To);
    if (Target.empty() || !Sh.owns(Target.back().Function))
      continue;
    N.function(Target.back().Function).addHeadSamples(E.Count);
  }
}

} // namespace

SampleProfileResult buildSampleProfile(const BinaryProfile &P,
                                       const BinaryImage &Image,
                                       Symbolizer &Sym, unsigned Threads) {
  // Threads build disjoint sets of top-level profiles (Shard), each in
  // its own map, joined at the end (node by node: no profile is copied).
  // The map's order differs from one thread's, which no writer shows: they
  // sort the profiles, or (extbinary's metadata) write none for a line
  // profile. Lookups on demand are not thread-safe: isolated only.
  unsigned T = Sym.isolated() && P.Functions.size() >= 256
                   ? std::max(1u, Threads)
                   : 1;
  std::vector<SampleProfileMap> Maps(T);
  std::vector<SampleProfileStats> Stats(T);
  releaseFreeMemory();
  parallelChunks(T, T, 1, [&](size_t B, size_t E) {
    // The profile's nodes live until it is written: carved on huge pages
    // (Support/HugePages.h, BumpScope; the page faults of its 200 MB of
    // LLVM map nodes were half the build's time on bench/scale's 100 MB
    // broad line profile), malloc's free pages given back first.
    BumpScope Scope;
    for (size_t K = B; K < E; ++K) {
      Nodes N(Maps[K]);
      Shard Sh{unsigned(K), T};
      addBodySamples(P, Image, Sym, N, Stats[K], Sh);
      addCalls(P, Image, Sym, N, Stats[K], Sh);
      addExternalEntries(P, Image, Sym, N, Sh);
    }
  });
  SampleProfileResult R;
  R.Profiles = std::move(Maps[0]);
  using Base = SampleProfileMap::base_type;
  for (unsigned K = 1; K < T; ++K)
    static_cast<Base &>(R.Profiles).merge(static_cast<Base &>(Maps[K]));
  for (const SampleProfileStats &S : Stats) {
    R.Stats.Instructions += S.Instructions;
    R.Stats.InstructionsNoDebug += S.InstructionsNoDebug;
    R.Stats.InstructionsLineZero += S.InstructionsLineZero;
    R.Stats.Calls += S.Calls;
    R.Stats.CallsNoDebug += S.CallsNoDebug;
  }
  return R;
}

/// The profiles and their total samples, and the density of the hot
/// functions, in body samples per instruction.
void summarizeSampleProfile(const BinaryProfile &P, const BinaryImage &Image,
                            Symbolizer &Sym, SampleProfileResult &R) {
  SampleProfileStats &St = R.Stats;
  const SampleProfileMap &M = R.Profiles;
  std::vector<std::pair<uint64_t, double>> Dens; // body samples, density
  // By interned name: the profiles' names are the Symbolizer's pointers.
  DenseMap<const char *, uint64_t> InstsPerFunction;
  for (const auto &[F, Cfg] : P.Functions)
    if (!Cfg.InstCounts.empty())
      if (ArrayRef<SourceFrame> Fr = Sym.frames(Cfg.InstCounts.front().first);
          !Fr.empty())
        InstsPerFunction[Fr.back().Function.data()] +=
            Image.instructions(F).size();
  for (auto &[Ctx, FS] : M) {
    ++St.Functions;
    St.TotalSamples += FS.getTotalSamples();
    if (uint64_t N =
            InstsPerFunction.lookup(FS.getFunction().stringRef().data())) {
      uint64_t B = bodySamples(FS);
      Dens.push_back({B, double(B) / N});
    }
  }
  St.HotDensity = hotDensity(std::move(Dens));
}

void printSampleProfileStats(const SampleProfileStats &S, raw_ostream &OS) {
  OS << "sample profile: " << S.Functions << " functions, " << S.TotalSamples
     << " total samples\n";
  OS << "  executed instructions: " << S.Instructions << " ("
     << S.InstructionsNoDebug << " without line info";
  if (S.InstructionsLineZero)
    OS << ", " << S.InstructionsLineZero << " on line 0 kept";
  OS << ")\n";
  OS << "  calls to function entries: " << S.Calls << " (" << S.CallsNoDebug
     << " without line info)\n";
  OS << format("  hot-code density: %.1f samples per instruction\n",
               S.HotDensity);
  if (S.Instructions && S.InstructionsNoDebug * 2 > S.Instructions)
    OS << "warning: most executed code has no line information; build with "
          "-g (the fdata output does not need it)\n";
  if (S.HotDensity < 20)
    OS << "warning: the profile is sparse (under 20 samples per hot "
          "instruction): collect more samples (a longer run, a smaller "
          "period, or several perf.data files)\n";
}

} // namespace lbr2prof
