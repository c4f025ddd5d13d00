//===- ProbeProfileBuilder.cpp - probe counts, call targets, checksums ----===//
//
// Three passes over the functions that ran: body samples of every probe in
// them (zero for those that never ran), call targets at call probes, head
// samples from the transfers into each entry; then totals bottom-up.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Profile/ProbeProfileBuilder.h"
#include "lbr2prof/Profile/ProfileDensity.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MD5.h"
#include <algorithm>
#include <map>
#include <set>

using namespace llvm;
using namespace llvm::sampleprof;

namespace lbr2prof {

namespace {

class Builder {
public:
  Builder(const BinaryProfile &P, const BinaryImage &Image,
          const PseudoProbes &Probes, ProbeProfileResult &R)
      : P(P), Image(Image), Probes(Probes), R(R) {}

  void run() {
    addBodySamples();
    // Unlike llvm-profgen, call probes keep their range counts even when
    // their call targets add up to more (FunctionSamples::
    // updateCallsiteSamples): on branchy.c raising them moved the profile
    // away from the exact one (98.72% -> 98.69% similarity).
    addCalls();
    addHeadSamples();
    finish();
  }

private:
  /// The profile node of probe Q's function under its inline call sites,
  /// created on first use with the checksums; null if a function on the
  /// way has no descriptor.
  FunctionSamples *nodeFor(const Probe &Q) {
    // Call-site index 0 restarts the chain at the inlinee, which becomes a
    // top-level profile (PseudoProbes::inlineChain).
    if (!Probes.inlineChain(Q, Chain))
      return nullptr;
    FunctionSamples *FS = &topLevel(*Chain.front().first);
    for (size_t K = 1; K < Chain.size(); ++K) {
      const ProbeFunctionDesc *D = Chain[K].first;
      FunctionSamplesMap &Inl =
          FS->functionSamplesAt(LineLocation(Chain[K - 1].second, 0));
      auto [It, New] = Inl.try_emplace(FunctionId(D->Name));
      if (New) {
        It->second.setFunction(FunctionId(D->Name));
        It->second.setFunctionHash(D->Hash);
      }
      FS = &It->second;
    }
    return FS;
  }

  FunctionSamples &topLevel(const ProbeFunctionDesc &D) {
    FunctionSamples &FS = R.Profiles.create(SampleContext(FunctionId(D.Name)));
    FS.setFunctionHash(D.Hash);
    return FS;
  }

  StringRef probedName(unsigned F) {
    return Probes.nameOf(Image.functions()[F]);
  }

  void addBodySamples() {
    ProbeProfileStats &St = R.Stats;
    // Every function of a family that ran gets all its probes written,
    // zeros included.
    std::set<unsigned> Families;
    for (const auto &[F, Cfg] : P.Functions)
      if (!Cfg.InstCounts.empty())
        Families.insert(functionFamily(Image, F));
    for (unsigned F = 0; F < Image.functions().size(); ++F) {
      if (!Families.count(functionFamily(Image, F)))
        continue;
      const FunctionSym &S = Image.functions()[F];
      DenseMap<uint64_t, uint64_t> Counts;
      auto It = P.Functions.find(F);
      if (It != P.Functions.end())
        for (const auto &[Addr, Count] : It->second.InstCounts)
          Counts[Addr] = Count;
      ArrayRef<Probe> In = Probes.probesIn(S.Start, S.End);
      for (const Probe &Q : In) {
        FunctionSamples *FS = nodeFor(Q);
        if (!FS) {
          ++St.ProbesNoDesc;
          continue;
        }
        uint64_t C = Counts.lookup(Q.Addr);
        // Instances of one probe add up: each copy of a duplicated block
        // ran its own share of the executions.
        FS->addBodySamples(Q.Index, Q.Discriminator, C);
        ++(C ? St.ProbesCounted : St.ProbesZero);
      }
      ProbesPerFunction[functionFamily(Image, F)] += In.size();
    }
  }

  void addCalls() {
    ProbeProfileStats &St = R.Stats;
    for (const auto &[F, Cfg] : P.Functions)
      for (const Edge &E : Cfg.Taken) {
        // Tail calls too: clang left the call's probe on the jump.
        unsigned Callee;
        if (entryTransfer(Image, F, E, Callee) == EntryTransfer::None)
          continue;
        ++St.Calls;
        const Probe *CallProbe = Probes.callProbeAt(E.From);
        FunctionSamples *FS = CallProbe ? nodeFor(*CallProbe) : nullptr;
        if (!FS) {
          ++St.CallsNoProbe;
          continue;
        }
        FS->addCalledTargetSamples(
            CallProbe->Index, CallProbe->Discriminator,
            FunctionId(Probes.calleeName(Image.functions()[Callee])),
            E.Count);
      }
  }

  /// Head samples: calls and other transfers into the entry (from this
  /// binary or from outside it, e.g. libc calling main).
  void addHeadSamples() {
    for (const auto &[F, Cfg] : P.Functions) {
      if (!Cfg.EntryCount || Image.functions()[F].Parent >= 0)
        continue;
      const FunctionSym &S = Image.functions()[F];
      for (const Probe &Q : Probes.probesIn(S.Start, S.End))
        if (Q.Context == 0) {
          if (const ProbeFunctionDesc *D = Probes.desc(Q.Guid))
            topLevel(*D).addHeadSamples(Cfg.EntryCount);
          break;
        }
    }
  }

  void finish() {
    ProbeProfileStats &St = R.Stats;
    std::vector<std::pair<uint64_t, double>> Dens; // total, density
    DenseMap<uint64_t, uint64_t> ProbesByGuid;
    for (const auto &[F, N] : ProbesPerFunction) {
      StringRef Name = probedName(F);
      if (!Name.empty())
        ProbesByGuid[MD5Hash(Name)] += N;
    }
    for (auto &[Ctx, FS] : R.Profiles) {
      FS.updateTotalSamples();
      ++St.Functions;
      St.TotalSamples += FS.getTotalSamples();
      uint64_t N = ProbesByGuid.lookup(MD5Hash(FS.getFunction().stringRef()));
      if (N)
        Dens.push_back({FS.getTotalSamples(), double(FS.getTotalSamples()) / N});
    }
    St.HotDensity = hotDensity(std::move(Dens));
  }

  const BinaryProfile &P;
  const BinaryImage &Image;
  const PseudoProbes &Probes;
  ProbeProfileResult &R;
  /// Probe instances per function family that ran.
  std::map<unsigned, uint64_t> ProbesPerFunction;
  std::vector<std::pair<const ProbeFunctionDesc *, uint32_t>> Chain;
};

} // namespace

ProbeProfileResult buildProbeProfile(const BinaryProfile &P,
                                     const BinaryImage &Image,
                                     const PseudoProbes &Probes) {
  ProbeProfileResult R;
  Builder(P, Image, Probes, R).run();
  return R;
}

void printProbeProfileStats(const ProbeProfileStats &S, raw_ostream &OS) {
  OS << "sample profile (probe-based): " << S.Functions << " functions, "
     << S.TotalSamples << " total samples\n";
  OS << "  probes: " << S.ProbesCounted << " with samples, " << S.ProbesZero
     << " cold (written as 0)";
  if (S.ProbesNoDesc)
    OS << ", " << S.ProbesNoDesc << " without a function descriptor (dropped)";
  OS << "\n";
  OS << "  calls to function entries: " << S.Calls << " (" << S.CallsNoProbe
     << " without a call probe)\n";
  OS << format("  hot-code density: %.1f samples per probe\n", S.HotDensity);
  // clang keeps call probes and inline contexts in debug locations: a
  // binary built without -g has block probes only, every inlined copy
  // looking like its own function.
  if (S.Calls && S.CallsNoProbe == S.Calls)
    OS << "warning: no call has a call probe: was the binary built without "
          "-g? Build with -g (or -gline-tables-only) and "
          "-fpseudo-probe-for-profiling, or call targets and inline "
          "contexts are lost\n";
  if (S.HotDensity < 20)
    OS << "warning: the profile is sparse (under 20 samples per hot probe): "
          "collect more samples (a longer run, a smaller period, or several "
          "perf.data files)\n";
}

} // namespace lbr2prof
