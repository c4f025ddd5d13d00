//===- SampleProfileBuilder.cpp - body samples, calls, inline trees -------===//
//
// Two passes: first the maximum count per (profile node, location), then
// the samples are added once per location, call targets added, and totals
// recomputed bottom-up.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Profile/SampleProfileBuilder.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"
#include <algorithm>
#include <map>

using namespace llvm;
using namespace llvm::sampleprof;

namespace lbr2prof {

namespace {
/// The profile node for the innermost frame of Frames, creating the inline
/// chain from the outermost function down.
FunctionSamples &nodeFor(SampleProfileMap &M, ArrayRef<SourceFrame> Frames) {
  const SourceFrame &Top = Frames.back();
  FunctionSamples *FS = &M.create(SampleContext(FunctionId(Top.Function)));
  for (size_t K = Frames.size() - 1; K > 0; --K) {
    const SourceFrame &Site = Frames[K];
    const SourceFrame &Callee = Frames[K - 1];
    FunctionSamplesMap &Inl = FS->functionSamplesAt(
        LineLocation(Site.LineOffset, Site.Discriminator));
    auto [It, New] = Inl.try_emplace(FunctionId(Callee.Function));
    if (New)
      It->second.setFunction(FunctionId(Callee.Function));
    FS = &It->second;
  }
  return *FS;
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
  return A;
}

SampleProfileResult buildSampleProfile(const BinaryProfile &P,
                                       const BinaryImage &Image,
                                       Symbolizer &Sym) {
  SampleProfileResult R;
  SampleProfileStats &St = R.Stats;
  SampleProfileMap &M = R.Profiles;
  // Body samples: maximum over the instructions of one location.
  std::map<std::pair<FunctionSamples *, LineLocation>, uint64_t> Body;
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
      FunctionSamples &FS = nodeFor(M, Frames);
      uint64_t C = Count * Frames.front().DupFactor;
      uint64_t &Max =
          Body[{&FS, LineLocation(Frames.front().LineOffset,
                                  Frames.front().Discriminator)}];
      Max = std::max(Max, C);
    }
  }
  for (const auto &[K, C] : Body)
    K.first->addBodySamples(K.second.LineOffset, K.second.Discriminator, C);

  // Calls: call instructions to function entries, and tail calls (jumps
  // from one function to another's entry, which clang sees as calls).
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
      if (Site.empty() || Target.empty()) {
        ++St.CallsNoDebug;
        continue;
      }
      StringRef CalleeName = Target.back().Function;
      FunctionSamples &FS = nodeFor(M, Site);
      FS.addCalledTargetSamples(Site.front().LineOffset,
                                Site.front().Discriminator,
                                FunctionId(CalleeName), E.Count);
      M.create(SampleContext(FunctionId(CalleeName))).addHeadSamples(E.Count);
    }
  }

  // Totals bottom-up; density of the hot functions.
  std::vector<std::pair<uint64_t, double>> Dens; // total, density
  std::map<StringRef, uint64_t> InstsPerFunction;
  for (const auto &[F, Cfg] : P.Functions)
    if (!Cfg.InstCounts.empty())
      if (ArrayRef<SourceFrame> Fr = Sym.frames(Cfg.InstCounts.front().first);
          !Fr.empty())
        InstsPerFunction[Fr.back().Function] += Image.instructions(F).size();
  for (auto &[Ctx, FS] : M) {
    FS.updateTotalSamples();
    ++St.Functions;
    St.TotalSamples += FS.getTotalSamples();
    uint64_t N = InstsPerFunction.count(FS.getFunction().stringRef())
                     ? InstsPerFunction[FS.getFunction().stringRef()]
                     : 0;
    if (N)
      Dens.push_back({FS.getTotalSamples(), double(FS.getTotalSamples()) / N});
  }
  std::sort(Dens.rbegin(), Dens.rend());
  uint64_t Acc = 0, Sum = 0;
  double W = 0;
  for (auto &[T, D] : Dens)
    Sum += T;
  for (auto &[T, D] : Dens) {
    if (Sum && Acc >= Sum * 0.99)
      break;
    Acc += T;
    W += double(T) * D;
  }
  St.HotDensity = Acc ? W / Acc : 0;
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
