//===- SampleProfileBuilder.cpp - body samples, calls, inline trees -------===//
//
// Two passes: first the maximum count per (profile node, location), with
// the executed bytes added to the totals on the way, then the samples are
// added once per location, and call targets and head samples added.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Profile/SampleProfileBuilder.h"
#include "lbr2prof/Profile/ProfileDensity.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"
#include <algorithm>
#include <map>

using namespace llvm;
using namespace llvm::sampleprof;

namespace lbr2prof {

namespace {
/// Profile nodes by inline stack. The Symbolizer interns names and shares
/// one copy of a stack among the addresses that have it, so a stack (and a
/// name) is known by its address: each is hashed (MD5 of the name, in
/// SampleProfileMap) and walked once, not once per instruction. The nodes
/// are stable: SampleProfileMap and FunctionSamplesMap are node-based.
class Nodes {
public:
  explicit Nodes(SampleProfileMap &M) : M(M) {}
  /// The profile node for the innermost frame of Frames, creating the
  /// inline chain from the outermost function down; adds Total to the total
  /// samples of every node on the chain (the function and each inlined
  /// call site).
  FunctionSamples &nodeFor(ArrayRef<SourceFrame> Frames, uint64_t Total = 0) {
    auto [It, New] = Chains.try_emplace(Frames.data());
    if (New) {
      It->second.first = uint32_t(Chain.size());
      FunctionSamples *FS = &function(Frames.back().Function);
      Chain.push_back(FS);
      for (size_t K = Frames.size() - 1; K > 0; --K) {
        const SourceFrame &Site = Frames[K];
        const SourceFrame &Callee = Frames[K - 1];
        FunctionSamplesMap &Inl = FS->functionSamplesAt(
            LineLocation(Site.LineOffset, Site.Discriminator));
        auto [CIt, CNew] = Inl.try_emplace(FunctionId(Callee.Function));
        if (CNew)
          CIt->second.setFunction(FunctionId(Callee.Function));
        FS = &CIt->second;
        Chain.push_back(FS);
      }
      It->second.second = uint32_t(Chain.size());
    }
    auto [B, E] = It->second;
    if (Total)
      for (uint32_t K = B; K < E; ++K)
        Chain[K]->addTotalSamples(Total);
    return *Chain[E - 1];
  }
  /// The top-level profile of a function (Name interned).
  FunctionSamples &function(StringRef Name) {
    auto [It, New] = Tops.try_emplace(Name.data());
    if (New)
      It->second = &M.create(SampleContext(FunctionId(Name)));
    return *It->second;
  }

private:
  SampleProfileMap &M;
  /// Stack (its first frame) -> its nodes in Chain, outermost first.
  DenseMap<const SourceFrame *, std::pair<uint32_t, uint32_t>> Chains;
  std::vector<FunctionSamples *> Chain;
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
  std::vector<uint64_t> A;
  for (const auto &[F, Cfg] : P.Functions) {
    if (Cfg.InstCounts.empty() && Cfg.Taken.empty())
      continue;
    for (const Inst &I : Image.instructions(F))
      A.push_back(I.Addr);
    for (const Edge &E : Cfg.Taken)
      if (E.To != ExternalAddr)
        A.push_back(E.To);
  }
  for (const Edge &E : P.Branches)
    if (E.From == ExternalAddr && E.To != ExternalAddr)
      A.push_back(E.To);
  return A;
}

namespace {
/// Pass 1 and 2 for the body samples of every function that ran: the
/// maximum count per (profile node, location), executed bytes added to the
/// totals of the node's inline chain on the way, then the samples added
/// once per location.
void addBodySamples(const BinaryProfile &P, const BinaryImage &Image,
                    Symbolizer &Sym, Nodes &N, SampleProfileStats &St) {
  // Body samples: maximum over the instructions of one location (line
  // offset << 32 | discriminator). Each location is added once, so the
  // order of the map does not matter.
  DenseMap<std::pair<FunctionSamples *, uint64_t>, uint64_t> Body;
  // Every instruction of a function that ran at all is visited: code that
  // never ran gets explicit 0 samples, which tells the compiler it is cold
  // (a line with no record would be left for it to guess).
  for (const auto &[F, Cfg] : P.Functions) {
    if (Cfg.InstCounts.empty())
      continue;
    DenseMap<uint64_t, uint64_t> Counts(Cfg.InstCounts.size());
    for (const auto &[Addr, Count] : Cfg.InstCounts)
      Counts[Addr] = Count;
    for (const Inst &I : Image.instructions(F)) {
      uint64_t Addr = I.Addr;
      uint64_t Count = Counts.lookup(Addr);
      if (Count)
        ++St.Instructions;
      ArrayRef<SourceFrame> Frames = Sym.frames(Addr);
      if (Frames.empty()) {
        St.InstructionsNoDebug += Count != 0;
        continue;
      }
      // Total samples count every executed byte, as llvm-profgen does
      // (ProfileGenerator: TotalSamples += Count * InstSize), not the sum
      // of the body samples. Why: clang's sample loader inlines a call
      // site of the profile when its total samples reach the hot count of
      // the profile summary, and that summary is made of body samples (one
      // per line); totals in body units (about a tenth of these) make
      // every inlined site look colder than in both peers' profiles of
      // the same data, which are what clang's thresholds were tuned on.
      FunctionSamples &FS = N.nodeFor(Frames, Count * I.Size);
      uint64_t C = Count * Frames.front().DupFactor;
      uint64_t &Max =
          Body[{&FS, uint64_t(Frames.front().LineOffset) << 32 |
                         Frames.front().Discriminator}];
      Max = std::max(Max, C);
    }
  }
  for (const auto &[K, C] : Body)
    K.first->addBodySamples(uint32_t(K.second >> 32), uint32_t(K.second), C);
}

/// Calls: call instructions to function entries, and tail calls (jumps
/// from one function to another's entry, which clang sees as calls), as
/// call targets at the call site and head samples of the callee.
void addCalls(const BinaryProfile &P, const BinaryImage &Image, Symbolizer &Sym,
              Nodes &N, SampleProfileStats &St) {
  for (const auto &[F, Cfg] : P.Functions) {
    ArrayRef<Inst> Insts = Image.instructions(F);
    for (const Edge &E : Cfg.Taken) {
      int Idx = instIndexAt(Insts, E.From);
      int Callee = E.To == ExternalAddr ? -1 : Image.functionAt(E.To);
      if (Idx < 0 || Callee < 0 || Image.functions()[Callee].Start != E.To)
        continue;
      InstKind K = Insts[Idx].Kind;
      bool IsCall = K == InstKind::Call || K == InstKind::IndirectCall;
      bool IsTailCall = (K == InstKind::UncondBranch ||
                         K == InstKind::IndirectBranch ||
                         K == InstKind::CondBranch) &&
                        Callee != int(F);
      if (!IsCall && !IsTailCall)
        continue;
      ++St.Calls;
      ArrayRef<SourceFrame> Site = Sym.frames(E.From);
      ArrayRef<SourceFrame> Target = Sym.frames(E.To);
      if (Site.empty() || Target.empty())
        ++St.CallsNoDebug;
      if (Target.empty())
        continue;
      StringRef CalleeName = Target.back().Function;
      // Head samples even when the call site has no usable line (a call
      // through a pointer whose location the optimizer merged to line 0):
      // clang takes a function's entry count from its head samples, and
      // a hot function with none looks cold to every pass that asks
      // (sqlite's record comparators, called only that way, had none).
      N.function(CalleeName).addHeadSamples(E.Count);
      if (Site.empty())
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
                        Symbolizer &Sym, Nodes &N) {
  for (const Edge &E : P.Branches) {
    if (E.From != ExternalAddr || E.To == ExternalAddr)
      continue;
    int Callee = Image.functionAt(E.To);
    if (Callee < 0 || Image.functions()[Callee].Start != E.To)
      continue;
    ArrayRef<SourceFrame> Target = Sym.frames(E.To);
    if (Target.empty())
      continue;
    N.function(Target.back().Function).addHeadSamples(E.Count);
  }
}

/// Counts the profiles of M and their total samples into St, and sets
/// St.HotDensity: the density of the hot functions, in body samples per
/// instruction.
void addProfileStats(const BinaryProfile &P, const BinaryImage &Image,
                     Symbolizer &Sym, SampleProfileMap &M,
                     SampleProfileStats &St) {
  std::vector<std::pair<uint64_t, double>> Dens; // body samples, density
  std::map<StringRef, uint64_t> InstsPerFunction;
  for (const auto &[F, Cfg] : P.Functions)
    if (!Cfg.InstCounts.empty())
      if (ArrayRef<SourceFrame> Fr = Sym.frames(Cfg.InstCounts.front().first);
          !Fr.empty())
        InstsPerFunction[Fr.back().Function] += Image.instructions(F).size();
  for (auto &[Ctx, FS] : M) {
    ++St.Functions;
    St.TotalSamples += FS.getTotalSamples();
    uint64_t N = InstsPerFunction.count(FS.getFunction().stringRef())
                     ? InstsPerFunction[FS.getFunction().stringRef()]
                     : 0;
    if (N) {
      uint64_t B = bodySamples(FS);
      Dens.push_back({B, double(B) / N});
    }
  }
  St.HotDensity = hotDensity(std::move(Dens));
}
} // namespace

SampleProfileResult buildSampleProfile(const BinaryProfile &P,
                                       const BinaryImage &Image,
                                       Symbolizer &Sym) {
  SampleProfileResult R;
  Nodes N(R.Profiles);
  addBodySamples(P, Image, Sym, N, R.Stats);
  addCalls(P, Image, Sym, N, R.Stats);
  addExternalEntries(P, Image, Sym, N);
  addProfileStats(P, Image, Sym, R.Profiles, R.Stats);
  return R;
}

void printSampleProfileStats(const SampleProfileStats &S, raw_ostream &OS) {
  OS << "sample profile: " << S.Functions << " functions, " << S.TotalSamples
     << " total samples\n";
  OS << "  executed instructions: " << S.Instructions << " ("
     << S.InstructionsNoDebug << " without line info)\n";
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
