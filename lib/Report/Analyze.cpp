//===- Analyze.cpp - from address-keyed counts to report tables -----------===//
//
// Builds every table of the report in binary addresses from what the
// collector counted (the Driver reads the inputs and picks the binary). Each
// distinct address is symbolized once (function from the symbol table,
// file:line from DWARF); instruction kinds come from the disassembly of the
// functions the counts touch. An address in another DSO is named by that
// file's symbols when it can be read (and its build-id matches).
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Binary/BinaryImage.h"
#include "lbr2prof/Binary/Symbolizer.h"
#include "lbr2prof/Report/Annotate.h"
#include "lbr2prof/Report/Report.h"
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Support/OutputFile.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include <algorithm>
#include <cstring>
#include <map>
#include <thread>

using namespace llvm;

namespace lbr2prof {

unsigned cycleBin(uint32_t Cycles) {
  assert(Cycles >= 1);
  unsigned B = 0;
  while (B + 1 < CycleBins && (uint64_t(1) << (B + 1)) <= Cycles)
    ++B;
  return B;
}

std::string cycleBinLabel(unsigned Bin) {
  uint64_t Lo = uint64_t(1) << Bin, Hi = (uint64_t(1) << (Bin + 1)) - 1;
  return Lo == Hi ? std::to_string(Lo) : formatv("{0}-{1}", Lo, Hi).str();
}

std::string formatLoc(const ReportLoc &L) {
  if (L.External)
    return L.Function.empty() ? "[unknown]"
                              : formatv("[{0}+{1:x}]", L.Function, L.FuncOffset)
                                    .str();
  std::string S = formatv("{0:x}", L.Addr).str();
  if (!L.Function.empty())
    S += formatv(" {0}+{1:x}", L.Function, L.FuncOffset).str();
  if (L.Line)
    S += formatv(" {0}:{1}", L.File, L.Line).str();
  return S;
}

namespace {

/// Everything the tables are built from.
class Analyzer {
public:
  Analyzer(const ReportOptions &Opts, RawProfile &Raw, const ReportCounts &C,
           const ReportCollector *Col, const ProcessMaps &Maps,
           const BinaryImage &Image, Symbolizer *Sym,
           std::vector<bool> InBinary)
      : Opts(Opts), Raw(Raw), C(C), Col(Col), Maps(Maps), Image(Image),
        Sym(Sym), InBinary(std::move(InBinary)) {}
  Error run(ReportData &D);

private:
  /// Binary address of L if it lies in the binary.
  std::optional<uint64_t> addrOf(Loc L) const {
    int Dso = locDso(L);
    if (L == ExternalLoc || Dso < 0 || size_t(Dso) >= InBinary.size() ||
        !InBinary[Dso])
      return std::nullopt;
    return Image.fileOffsetToAddr(locOffset(L));
  }
  /// A row key: the binary address, or the Loc with the top bit set (and
  /// remembered as such: a kernel's addresses have the top bit set too, and
  /// vmlinux's were taken for other files' Locs, a crash).
  uint64_t keyOf(Loc L) const {
    if (auto A = addrOf(L))
      return *A;
    uint64_t Key = L | (1ULL << 63);
    ExternalKeys.insert(Key);
    return Key;
  }
  const ReportLoc &loc(uint64_t Key);
  /// The image of another DSO, opened on first use to name branch targets
  /// there by their symbols; null if the file cannot be read or its
  /// build-id differs from the recorded one.
  const BinaryImage *otherImage(int Dso);
  /// Symbolizes, in one batch, the addresses loc() will be asked about.
  Error prefetchLines();
  /// The instruction at binary address A, or null.
  const Inst *instAt(uint64_t A);
  void branches(ReportData &D);
  void conditionals(ReportData &D);
  void blocks(ReportData &D);
  Error detail(ReportData &D);
  void paths(ReportData &D);
  void functions(ReportData &D);
  void dsos(ReportData &D);
  /// The function a Loc is in, named as the tables name it.
  const std::string &functionName(Loc L);
  /// The kind of the instruction at L, in the binary or another readable
  /// file; nullopt if unknown.
  std::optional<InstKind> kindAt(Loc L);
  void flame(ReportData &D);
  Error annotate(ReportData &D);
  void annotateOne(unsigned F, const InstPrinter &P, AnnotatedFunction &A);
  /// Source lines of files read for the annotation (empty if unreadable).
  StringMap<std::vector<std::string>> Sources;
  DenseMap<Loc, std::string> FuncNames;

  const ReportOptions &Opts;
  RawProfile &Raw;
  const ReportCounts &C;
  const ReportCollector *Col;
  const ProcessMaps &Maps;
  const BinaryImage &Image;
  Symbolizer *Sym;
  std::vector<bool> InBinary;
  DenseMap<uint64_t, ReportLoc> Locs;
  std::map<int, std::unique_ptr<BinaryImage>> Others;
  mutable DenseSet<uint64_t> ExternalKeys;
  /// Branch rows keyed by (from key, to key).
  std::map<std::pair<uint64_t, uint64_t>, BranchRow> Rows;
};

const ReportLoc &Analyzer::loc(uint64_t Key) {
  auto [It, New] = Locs.try_emplace(Key);
  ReportLoc &L = It->second;
  if (!New)
    return L;
  if (ExternalKeys.contains(Key)) {
    Loc Lc = Key & ~(1ULL << 63);
    L.External = true;
    if (Lc != ExternalLoc) {
      L.Function = sys::path::filename(Maps.dsos()[locDso(Lc)].Path).str();
      L.FuncOffset = locOffset(Lc);
      // "libc.so.6:qsort+0x10" when that file's symbols name the place.
      const BinaryImage *O = otherImage(locDso(Lc));
      std::optional<uint64_t> A =
          O ? O->fileOffsetToAddr(locOffset(Lc)) : std::nullopt;
      if (int F = A ? O->functionAt(*A) : -1; F >= 0) {
        L.Function +=
            ":" + displayName(O->functions()[F].Name, Opts.Demangle);
        L.FuncOffset = *A - O->functions()[F].Start;
      }
    }
    return L;
  }
  L.Addr = Key;
  int F = Image.functionAt(Key);
  if (F >= 0) {
    const FunctionSym &FS = Image.functions()[F];
    L.Function = displayName(FS.Name, Opts.Demangle);
    L.FuncOffset = Key - FS.Start;
  }
  if (Sym) {
    SourceLine SL = Sym->lineAt(Key);
    if (SL.Line) {
      L.File = sys::path::filename(SL.File).str();
      L.Line = SL.Line;
    }
  }
  return L;
}

const BinaryImage *Analyzer::otherImage(int Dso) {
  auto [It, New] = Others.try_emplace(Dso);
  if (!New)
    return It->second.get();
  const DsoInfo &D = Maps.dsos()[Dso];
  // Regular files only: a mapped device (/dev/zero) would be read forever.
  if (D.Path.empty() || D.Path[0] != '/' || !sys::fs::is_regular_file(D.Path))
    return nullptr;
  Expected<std::unique_ptr<BinaryImage>> O = BinaryImage::open(D.Path);
  if (!O) {
    consumeError(O.takeError());
    return nullptr;
  }
  if (!D.BuildId.empty() && !(*O)->buildId().empty() &&
      ArrayRef<uint8_t>(D.BuildId) != (*O)->buildId())
    return nullptr;
  It->second = std::move(*O);
  return It->second.get();
}

const Inst *Analyzer::instAt(uint64_t A) {
  int F = Image.functionAt(A);
  if (F < 0)
    return nullptr;
  ArrayRef<Inst> Insts = Image.instructions(F);
  int I = instIndexAt(Insts, A);
  return I < 0 ? nullptr : &Insts[I];
}

/// The function and DSO tables' order: samples, then taken branches.
template <typename Row>
static bool moreSamplesThenTaken(const Row &A, const Row &B) {
  if (A.Samples != B.Samples)
    return A.Samples > B.Samples;
  return A.Taken > B.Taken;
}

/// Orders V by L, keeping the current order among equals (rows arrive in
/// address order, so the output is deterministic), and keeps Top rows.
template <class T, class Less>
static void sortAndCut(std::vector<T> &V, size_t Top, Less L) {
  std::vector<size_t> Idx(V.size());
  for (size_t I = 0; I < Idx.size(); ++I)
    Idx[I] = I;
  std::sort(Idx.begin(), Idx.end(), [&](size_t A, size_t B) {
    if (L(V[A], V[B]))
      return true;
    if (L(V[B], V[A]))
      return false;
    return A < B;
  });
  std::vector<T> Out;
  Out.reserve(std::min(Top, V.size()));
  for (size_t I = 0; I < Idx.size() && I < Top; ++I)
    Out.push_back(std::move(V[Idx[I]]));
  V = std::move(Out);
}

void Analyzer::branches(ReportData &D) {
  for (auto &[K, BC] : Raw.Branches) {
    auto FA = addrOf(K.first), TA = addrOf(K.second);
    if (FA || TA)
      D.EntriesInBinary += BC.Count;
    if (!FA && !TA)
      continue;
    BranchRow &R = Rows[{keyOf(K.first), keyOf(K.second)}];
    R.Count += BC.Count;
    R.Mispred += BC.Mispred;
    R.CyclesSum += BC.Cycles;
  }
  // Rows in address order first, so that sorting ties stay deterministic.
  std::vector<BranchRow> V;
  for (auto &[K, R] : Rows) {
    BranchRow Row = R;
    Row.From = loc(K.first);
    Row.To = loc(K.second);
    V.push_back(std::move(Row));
  }
  D.BranchRowsAll = V.size();
  auto Rate = [](const BranchRow &R) {
    return double(R.Mispred) / double(R.Count);
  };
  auto Cyc = [](const BranchRow &R) {
    return double(R.CyclesSum) / double(R.Count);
  };
  sortAndCut(V, Opts.Top, [&](const BranchRow &A, const BranchRow &B) {
    switch (Opts.Sort) {
    case ReportSort::Mispred:
      if (A.Mispred != B.Mispred)
        return A.Mispred > B.Mispred;
      break;
    case ReportSort::MispredRate:
      if (Rate(A) != Rate(B))
        return Rate(A) > Rate(B);
      break;
    case ReportSort::Cycles:
      if (Cyc(A) != Cyc(B))
        return Cyc(A) > Cyc(B);
      break;
    case ReportSort::Count:
      break;
    }
    return A.Count > B.Count;
  });
  D.Branches = std::move(V);

  // Calls and indirect targets, from the kinds of the branch sources.
  std::map<uint64_t, IndirectRow> Ind;
  std::map<std::pair<std::string, std::string>, uint64_t> Calls;
  for (auto &[K, R] : Rows) {
    if (K.first >> 63)
      continue;
    const Inst *I = instAt(K.first);
    if (!I)
      continue;
    if (I->Kind == InstKind::Call || I->Kind == InstKind::IndirectCall) {
      const ReportLoc &Callee = loc(K.second);
      std::string To = Callee.External
                           ? formatLoc(Callee)
                           : (Callee.Function.empty() ? formatLoc(Callee)
                                                      : Callee.Function);
      std::string From = loc(K.first).Function;
      if (From.empty())
        From = formatLoc(loc(K.first));
      Calls[{From, To}] += R.Count;
    }
    if (I->Kind == InstKind::IndirectBranch ||
        I->Kind == InstKind::IndirectCall) {
      IndirectRow &IR = Ind[K.first];
      IR.IsCall = I->Kind == InstKind::IndirectCall;
      IR.Total += R.Count;
      IR.Targets.push_back({loc(K.second), R.Count});
    }
  }
  std::vector<IndirectRow> IV;
  for (auto &[A, IR] : Ind) {
    IR.Source = loc(A);
    sortAndCut(IR.Targets, IR.Targets.size(),
               [](const auto &X, const auto &Y) { return X.second > Y.second; });
    D.IndirectTotal += IR.Total;
    IV.push_back(std::move(IR));
  }
  D.IndirectRowsAll = IV.size();
  sortAndCut(IV, Opts.Top, [](const IndirectRow &A, const IndirectRow &B) {
    return A.Total > B.Total;
  });
  D.Indirects = std::move(IV);

  std::vector<CallRow> CV;
  for (auto &[K, N] : Calls) {
    CV.push_back({K.first, K.second, N});
    D.CallTotal += N;
  }
  D.CallRowsAll = CV.size();
  sortAndCut(CV, Opts.Top, [](const CallRow &A, const CallRow &B) {
    return A.Count > B.Count;
  });
  D.Calls = std::move(CV);
}

void Analyzer::conditionals(ReportData &D) {
  std::map<uint64_t, CondRow> Conds;
  for (auto &[K, R] : Rows) {
    if (K.first >> 63)
      continue;
    const Inst *I = instAt(K.first);
    if (!I || I->Kind != InstKind::CondBranch)
      continue;
    CondRow &CR = Conds[K.first];
    CR.Taken += R.Count;
    CR.MispredTaken += R.Mispred;
  }
  // Not taken: a fall-through range [B, E] ran over every conditional
  // branch in [B, E) (E itself is the source of the next taken branch).
  // Only ranges that could have executed are used: inside one function, on
  // instruction boundaries, not passing a jump, return or trap before E.
  for (auto &[K, RC] : Raw.Ranges) {
    auto B = addrOf(K.first), E = addrOf(K.second);
    if (!B || !E || *B > *E)
      continue;
    int F = Image.functionAt(*B);
    if (F < 0 || Image.functionAt(*E) != F)
      continue;
    ArrayRef<Inst> Insts = Image.instructions(F);
    int Bi = instIndexAt(Insts, *B), Ei = instIndexAt(Insts, *E);
    if (Bi < 0 || Ei < 0 || !runsThrough(Insts, Bi, Ei))
      continue;
    for (int J = Bi; J < Ei; ++J)
      if (Insts[J].Kind == InstKind::CondBranch)
        Conds[Insts[J].Addr].NotTaken += RC.Count;
  }
  std::vector<CondRow> V;
  for (auto &[A, CR] : Conds) {
    CondRow Row = CR;
    Row.Branch = loc(A);
    const Inst *I = instAt(A);
    if (I && I->target())
      Row.Target = loc(I->target());
    D.CondTotal += Row.Taken + Row.NotTaken;
    V.push_back(std::move(Row));
  }
  D.CondRowsAll = V.size();
  sortAndCut(V, Opts.Top, [](const CondRow &A, const CondRow &B) {
    return A.Taken + A.NotTaken > B.Taken + B.NotTaken;
  });
  D.Conds = std::move(V);
}

/// Fills a block row's statistics from its exact values (ascending).
static void summarize(BlockRow &R) {
  R.Count = R.Sum = 0;
  R.Bins.fill(0);
  for (auto &[Cyc, N] : R.Values) {
    R.Count += N;
    R.Sum += uint64_t(Cyc) * N;
    R.Bins[cycleBin(Cyc)] += N;
  }
  if (R.Values.empty())
    return;
  R.Min = R.Values.front().first;
  R.Max = R.Values.back().first;
  // Percentile p: the smallest value whose cumulative count reaches p% of
  // the entries (nearest-rank).
  auto Pct = [&](unsigned P) {
    uint64_t Need = (R.Count * P + 99) / 100, Acc = 0;
    for (auto &[Cyc, N] : R.Values)
      if ((Acc += N) >= Need)
        return Cyc;
    return R.Max;
  };
  R.P50 = Pct(50);
  R.P90 = Pct(90);
}

void Analyzer::blocks(ReportData &D) {
  std::map<std::pair<uint64_t, uint64_t>, std::map<uint32_t, uint64_t>> By;
  for (auto &[K, N] : C.BlockCycles) {
    auto B = addrOf(K.Start), E = addrOf(K.End);
    if (!B || !E || *B > *E)
      continue;
    By[{*B, *E}][K.Cycles] += N;
  }
  std::vector<BlockRow> V;
  for (auto &[K, Vals] : By) {
    BlockRow R;
    R.Start = loc(K.first);
    R.End = loc(K.second);
    R.Values.assign(Vals.begin(), Vals.end());
    summarize(R);
    D.BlockTotal += R.Count;
    V.push_back(std::move(R));
  }
  D.BlockRowsAll = V.size();
  sortAndCut(V, V.size(), [](const BlockRow &A, const BlockRow &B) {
    return A.Count > B.Count;
  });
  D.Blocks = std::move(V);
}

Error Analyzer::detail(ReportData &D) {
  D.BlockQuery = Opts.Block;
  if (Opts.Block.empty()) {
    for (size_t I = 0; I < D.Blocks.size() && I < Opts.HistogramBlocks; ++I)
      D.Detail.push_back(D.Blocks[I]);
    return Error::success();
  }
  StringRef Q = Opts.Block;
  if (D.EntriesWithCycles == 0)
    return makeError("--block {0}: the input records no cycles (every "
                     "entry's cycles field is 0, as on AMD), so there is no "
                     "block latency to show",
                     Q);
  auto Bad = [&]() {
    return makeError("--block {0}: expected 0xADDRESS or FUNCTION:LINE", Q);
  };
  if (Q.starts_with("0x") || Q.starts_with("0X")) {
    uint64_t A;
    if (Q.drop_front(2).getAsInteger(16, A))
      return Bad();
    for (const BlockRow &R : D.Blocks)
      if (R.Start.Addr == A)
        D.Detail.push_back(R);
    if (D.Detail.empty())
      for (const BlockRow &R : D.Blocks)
        if (R.Start.Addr <= A && A <= R.End.Addr)
          D.Detail.push_back(R);
  } else {
    auto [Func, LineS] = Q.rsplit(':');
    unsigned Line;
    if (Func.empty() || LineS.getAsInteger(10, Line))
      return Bad();
    for (const BlockRow &R : D.Blocks) {
      int F = Image.functionAt(R.Start.Addr);
      bool NameOk = R.Start.Function == Func ||
                    (F >= 0 && (Image.functions()[F].Name == Func ||
                                demangle(Image.functions()[F].Name) == Func));
      if (NameOk && R.Start.Line == Line)
        D.Detail.push_back(R);
    }
  }
  if (D.Detail.empty())
    return makeError("--block {0}: no block with cycles starts there (or, "
                     "for an address, contains it); the latency table lists "
                     "the blocks seen",
                     Q);
  return Error::success();
}

void Analyzer::paths(ReportData &D) {
  D.PathLength = Opts.PathLength;
  std::map<std::vector<uint64_t>, uint64_t> By;
  std::vector<uint64_t> Key;
  for (auto &[K, N] : C.Paths) {
    Key.clear();
    bool Ok = true;
    for (unsigned J = 0; J < 2 * Opts.PathLength && Ok; ++J) {
      auto A = addrOf(K.Ends[J]);
      Ok = A.has_value();
      if (Ok)
        Key.push_back(*A);
    }
    if (Ok)
      By[Key] += N;
  }
  std::vector<PathRow> V;
  for (auto &[K, N] : By) {
    PathRow R;
    R.Count = N;
    for (size_t J = 0; J + 1 < K.size(); J += 2)
      R.Blocks.push_back({loc(K[J]), loc(K[J + 1])});
    D.PathTotal += N;
    V.push_back(std::move(R));
  }
  D.PathRowsAll = V.size();
  sortAndCut(V, Opts.Top, [](const PathRow &A, const PathRow &B) {
    return A.Count > B.Count;
  });
  D.Paths = std::move(V);
}

void Analyzer::functions(ReportData &D) {
  D.MispredictPenalty = Opts.MispredictPenalty;
  // Functions of the binary by symbol index; other places by the name
  // loc() gives them ("libc.so.6:qsort", "libc.so.6", "" if unmapped).
  std::map<int, FunctionRow> In;
  std::map<std::string, FunctionRow> Out;
  std::string BinName = sys::path::filename(D.BinaryPath).str();
  auto rowOf = [&](Loc L) -> FunctionRow & {
    if (std::optional<uint64_t> A = addrOf(L)) {
      int F = Image.functionAt(*A);
      auto [It, New] = In.try_emplace(F);
      if (New) {
        It->second.Dso = BinName;
        It->second.Index = F;
        It->second.Name =
            F >= 0 ? displayName(Image.functions()[F].Name, Opts.Demangle)
                   : "(no symbol)";
      }
      return It->second;
    }
    const ReportLoc &RL = loc(keyOf(L));
    std::string Name = RL.Function.empty() ? "[unknown]" : RL.Function;
    auto [It, New] = Out.try_emplace(Name);
    if (New) {
      It->second.Name = Name;
      int Dso = locDso(L);
      It->second.Dso = Dso >= 0 ? sys::path::filename(Maps.dsos()[Dso].Path).str()
                                : "[unknown]";
    }
    return It->second;
  };
  for (const auto &[L, N] : Raw.Ips)
    rowOf(L).Samples += N;
  for (const auto &[K, BC] : Raw.Branches) {
    FunctionRow &R = rowOf(K.first);
    R.Taken += BC.Count;
    R.Mispred += BC.Mispred;
  }
  for (const auto &[K, N] : C.BlockCycles) {
    auto B = addrOf(K.Start), E = addrOf(K.End);
    if (!B || !E || *B > *E)
      continue;
    FunctionRow &R = rowOf(K.Start);
    R.BlockCount += N;
    R.BlockCycles += uint64_t(K.Cycles) * N;
  }
  std::vector<FunctionRow> V;
  for (auto &[F, R] : In)
    V.push_back(std::move(R));
  for (auto &[N, R] : Out)
    V.push_back(std::move(R));
  D.FunctionRowsAll = V.size();
  sortAndCut(V, Opts.Top, moreSamplesThenTaken<FunctionRow>);
  D.Functions = std::move(V);
}

const std::string &Analyzer::functionName(Loc L) {
  auto [It, New] = FuncNames.try_emplace(L);
  if (!New)
    return It->second;
  if (std::optional<uint64_t> A = addrOf(L)) {
    int F = Image.functionAt(*A);
    It->second = F >= 0 ? displayName(Image.functions()[F].Name, Opts.Demangle)
                        : "(no symbol)";
  } else {
    const ReportLoc &RL = loc(keyOf(L));
    It->second = RL.Function.empty() ? "[unknown]" : RL.Function;
  }
  return It->second;
}

std::optional<InstKind> Analyzer::kindAt(Loc L) {
  const BinaryImage *Img = nullptr;
  std::optional<uint64_t> A = addrOf(L);
  if (A) {
    Img = &Image;
  } else if (L != ExternalLoc && (Img = otherImage(locDso(L)))) {
    A = Img->fileOffsetToAddr(locOffset(L));
  }
  if (!Img || !A)
    return std::nullopt;
  int F = Img->functionAt(*A);
  if (F < 0)
    return std::nullopt;
  ArrayRef<Inst> Insts = Img->instructions(F);
  int I = instIndexAt(Insts, *A);
  if (I < 0)
    return std::nullopt;
  return Insts[I].Kind;
}

void Analyzer::flame(ReportData &D) {
  if (!Col)
    return;
  std::vector<FlameNode> &T = D.FlameNodes;
  T.clear();
  T.emplace_back();
  T[0].Name = "all";
  std::map<std::pair<int, std::string>, int> Child;
  auto child = [&](int P, const std::string &Name) {
    auto [It, New] = Child.try_emplace({P, Name}, int(T.size()));
    if (New) {
      FlameNode N;
      N.Name = Name;
      N.Parent = P;
      T.push_back(std::move(N));
      T[P].Children.push_back(It->second);
    }
    return It->second;
  };
  if (Col->SamplesWithStacks) {
    // Call stacks (-g): the collector's trie of Locs, renamed by function.
    D.Flame = FlameSource::CallStacks;
    const auto &St = Col->Stacks;
    std::vector<int> Map(St.Parent.size(), 0);
    for (size_t I = 1; I < St.Parent.size(); ++I) {
      Map[I] = child(Map[St.Parent[I]], functionName(St.Frame[I]));
      T[Map[I]].Self += St.Self[I];
    }
  } else if (Col->SamplesWithWindows) {
    // Call/return pairs of the branch stacks: from the oldest entry's
    // target on, a call pushes its target's function, a return pops (or,
    // returning above the window, starts again at its target), and
    // anything else that lands in another function replaces the top. A
    // branch whose kind is unknown (in a file that cannot be read) is
    // taken for a return when it lands in the caller.
    D.Flame = FlameSource::BranchStacks;
    std::vector<std::string> Stack;
    for (const auto &[K, N] : Col->Windows) {
      StringRef Bytes = K.val();
      size_t Count = Bytes.size() / sizeof(Loc);
      std::vector<Loc> W(Count);
      std::memcpy(W.data(), Bytes.data(), Bytes.size());
      Stack.clear();
      // W = IP, then (from, to) of each usable entry, newest first.
      size_t Entries = (Count - 1) / 2;
      if (Entries) {
        // An oldest entry that is a call also names its caller (in LBR
        // call-stack mode every entry is a call: the caller of the oldest
        // is the outermost frame).
        Loc From = W[1 + 2 * (Entries - 1)], To = W[2 + 2 * (Entries - 1)];
        std::optional<InstKind> Kind = kindAt(From);
        if (Kind && (*Kind == InstKind::Call || *Kind == InstKind::IndirectCall))
          Stack.push_back(functionName(From));
        Stack.push_back(functionName(To));
      }
      for (size_t E = Entries; E-- > 1;) {
        Loc From = W[1 + 2 * (E - 1)], To = W[2 + 2 * (E - 1)];
        const std::string &Target = functionName(To);
        std::optional<InstKind> Kind = kindAt(From);
        bool IsCall = Kind && (*Kind == InstKind::Call ||
                               *Kind == InstKind::IndirectCall);
        bool IsRet = Kind ? *Kind == InstKind::Return
                          : Stack.size() >= 2 &&
                                Stack[Stack.size() - 2] == Target;
        if (IsCall) {
          Stack.push_back(Target);
        } else if (IsRet) {
          if (Stack.size() >= 2)
            Stack.pop_back();
          Stack.back() = Target;
        } else if (Stack.back() != Target) {
          Stack.back() = Target;
        }
      }
      const std::string &Leaf = functionName(W[0]);
      if (Stack.empty())
        Stack.push_back(Leaf);
      else if (Stack.back() != Leaf)
        Stack.back() = Leaf;
      int Node = 0;
      for (const std::string &F : Stack)
        Node = child(Node, F);
      T[Node].Self += N;
    }
  } else {
    T.clear();
    return;
  }
  // Totals bottom-up (children come after their parents), then children
  // by total, highest first, names breaking ties.
  for (size_t I = T.size(); I-- > 0;) {
    T[I].Total += T[I].Self;
    if (T[I].Parent >= 0)
      T[T[I].Parent].Total += T[I].Total;
  }
  for (FlameNode &N : T)
    std::sort(N.Children.begin(), N.Children.end(), [&](int A, int B) {
      if (T[A].Total != T[B].Total)
        return T[A].Total > T[B].Total;
      return T[A].Name < T[B].Name;
    });
  // Number the nodes depth-first in that order, so that the output does
  // not depend on the order the stacks were read in.
  std::vector<FlameNode> Out;
  Out.reserve(T.size());
  std::vector<std::pair<int, int>> Work{{0, -1}}; // (old index, new parent)
  while (!Work.empty()) {
    auto [Old, NewParent] = Work.back();
    Work.pop_back();
    int New = int(Out.size());
    Out.push_back(std::move(T[Old]));
    Out.back().Parent = NewParent;
    if (NewParent >= 0)
      Out[NewParent].Children.push_back(New);
    std::vector<int> Kids = std::move(Out.back().Children);
    Out.back().Children.clear();
    for (size_t I = Kids.size(); I-- > 0;)
      Work.push_back({Kids[I], New});
  }
  T = std::move(Out);
}

Error Analyzer::annotate(ReportData &D) {
  std::vector<unsigned> Fs;
  if (!Opts.Annotate.empty()) {
    D.AnnotateChosen = true;
    StringRef Q = Opts.Annotate;
    for (unsigned F = 0; F < Image.functions().size(); ++F) {
      const FunctionSym &FS = Image.functions()[F];
      bool Match = FS.Name == Q || demangle(FS.Name) == Q ||
                   displayName(FS.Name, Opts.Demangle) == Q;
      for (StringRef A : FS.Aliases)
        Match = Match || A == Q;
      if (Match)
        Fs.push_back(F);
    }
    if (Fs.empty())
      return makeError("--annotate {0}: no function of {1} has that name "
                       "(give it as the report shows it, demangled in "
                       "full, or mangled)",
                       Q, D.BinaryPath);
  } else {
    for (const FunctionRow &R : D.Functions)
      if (R.Index >= 0 && R.Samples && Fs.size() < Opts.AnnotateHot)
        Fs.push_back(unsigned(R.Index));
  }
  if (Fs.empty())
    return Error::success();
  Expected<std::unique_ptr<InstPrinter>> P = InstPrinter::create(D.BinaryPath);
  if (!P)
    return makeError("--annotate: {0}", toString(P.takeError()));
  for (unsigned F : Fs) {
    AnnotatedFunction A;
    annotateOne(F, **P, A);
    D.Annotated.push_back(std::move(A));
  }
  return Error::success();
}

void Analyzer::annotateOne(unsigned F, const InstPrinter &P,
                           AnnotatedFunction &A) {
  const FunctionSym &FS = Image.functions()[F];
  A.Name = displayName(FS.Name, Opts.Demangle);
  A.Start = FS.Start;
  A.End = FS.End;
  ArrayRef<Inst> Insts = Image.instructions(F);
  std::vector<AnnotatedInst> &V = A.Insts;
  V.resize(Insts.size());
  for (size_t I = 0; I < Insts.size(); ++I) {
    V[I].Addr = Insts[I].Addr;
    V[I].Branch = Insts[I].Kind != InstKind::Other;
  }
  auto indexOf = [&](Loc L) -> int {
    std::optional<uint64_t> Ad = addrOf(L);
    if (!Ad || *Ad < FS.Start || *Ad >= FS.End)
      return -1;
    return instIndexAt(Insts, *Ad);
  };
  // Blocks: the function's start, direct branch targets inside it, and
  // whatever follows a branch.
  if (!V.empty())
    V[0].BlockStart = true;
  for (size_t I = 0; I < Insts.size(); ++I) {
    if (Insts[I].Kind != InstKind::Other && Insts[I].Kind != InstKind::Call &&
        Insts[I].Kind != InstKind::IndirectCall && I + 1 < V.size())
      V[I + 1].BlockStart = true;
    if (uint64_t To = Insts[I].target(); To >= FS.Start && To < FS.End)
      if (int T = instIndexAt(Insts, To); T >= 0)
        V[T].BlockStart = true;
  }
  for (const auto &[L, N] : Raw.Ips)
    if (int I = indexOf(L); I >= 0) {
      V[I].Samples += N;
      A.Samples += N;
    }
  for (const auto &[K, BC] : Raw.Branches)
    if (int I = indexOf(K.first); I >= 0) {
      V[I].Taken += BC.Count;
      V[I].Mispred += BC.Mispred;
    }
  // Ranges that can have executed (as for the conditional branches).
  for (const auto &[K, RC] : Raw.Ranges) {
    int Bi = indexOf(K.first), Ei = indexOf(K.second);
    if (Bi < 0 || Ei < 0 || Bi > Ei || !runsThrough(Insts, Bi, Ei))
      continue;
    for (int J = Bi; J <= Ei; ++J) {
      V[J].Count += RC.Count;
      if (J < Ei)
        V[J].FallThrough += RC.Count;
    }
  }
  for (const auto &[K, N] : C.BlockCycles)
    if (int I = indexOf(K.End); I >= 0 && addrOf(K.Start)) {
      V[I].Bins[cycleBin(K.Cycles)] += N;
      V[I].Measurements += N;
    }
  // Text and source lines.
  std::string LastFile;
  uint32_t LastLine = 0;
  for (size_t I = 0; I < Insts.size(); ++I) {
    AnnotatedInst &AI = V[I];
    AI.Text = P.text(Insts[I].Addr, Insts[I].Size);
    if (Insts[I].target()) {
      const ReportLoc &T = loc(Insts[I].target());
      if (!T.Function.empty())
        AI.Text += formatv(" <{0}+{1:x}>", T.Function, T.FuncOffset).str();
    }
    if (!Sym)
      continue;
    SourceLine SL = Sym->lineAt(Insts[I].Addr);
    if (!SL.Line)
      continue;
    AI.File = sys::path::filename(SL.File).str();
    AI.Line = SL.Line;
    if (SL.File == LastFile && SL.Line == LastLine)
      continue;
    LastFile = SL.File.str();
    LastLine = SL.Line;
    AI.NewLine = true;
    auto [It, New] = Sources.try_emplace(SL.File);
    if (New)
      if (auto Buf = MemoryBuffer::getFile(SL.File)) {
        SmallVector<StringRef, 0> Lines;
        (*Buf)->getBuffer().split(Lines, '\n');
        for (StringRef Ln : Lines)
          It->second.push_back(Ln.rtrim("\r").str());
      }
    if (SL.Line <= It->second.size())
      AI.SourceText = StringRef(It->second[SL.Line - 1]).trim().str();
  }
}

void Analyzer::dsos(ReportData &D) {
  // Index -1 holds what no mapping covers.
  std::map<int, DsoRow> By;
  for (const auto &[Dso, N] : Raw.SamplesPerDso)
    By[Dso].Samples += N;
  for (const auto &[K, BC] : Raw.Branches) {
    DsoRow &R = By[locDso(K.first)];
    R.Taken += BC.Count;
    R.Mispred += BC.Mispred;
  }
  std::vector<DsoRow> V;
  for (auto &[Dso, R] : By) {
    R.Path = Dso >= 0 && size_t(Dso) < Maps.dsos().size()
                 ? Maps.dsos()[Dso].Path
                 : "[unknown]";
    V.push_back(std::move(R));
  }
  D.DsoRowsAll = V.size();
  sortAndCut(V, Opts.Top, moreSamplesThenTaken<DsoRow>);
  D.Dsos = std::move(V);
}

Error Analyzer::prefetchLines() {
  if (!Sym)
    return Error::success();
  // Every address the tables may name lies in a function that some branch,
  // range, block or path touches: symbolize all their instructions at once
  // (in child processes, see Symbolizer).
  std::vector<bool> Touched(Image.functions().size());
  std::vector<uint64_t> Addrs;
  auto touch = [&](Loc L) {
    if (std::optional<uint64_t> A = addrOf(L)) {
      Addrs.push_back(*A);
      int F = Image.functionAt(*A);
      if (F >= 0)
        Touched[F] = true;
    }
  };
  for (const auto &[K, V] : Raw.Branches) {
    touch(K.first);
    touch(K.second);
  }
  for (const auto &[K, V] : Raw.Ranges) {
    touch(K.first);
    touch(K.second);
  }
  for (const auto &[K, V] : C.BlockCycles) {
    touch(K.Start);
    touch(K.End);
  }
  for (const auto &[K, V] : C.Paths)
    for (Loc L : K.Ends)
      touch(L);
  for (unsigned F = 0; F < Touched.size(); ++F)
    if (Touched[F])
      for (const Inst &I : Image.instructions(F)) {
        Addrs.push_back(I.Addr);
        if (I.target())
          Addrs.push_back(I.target());
      }
  return Sym->prefetch(Addrs, std::max(1u, std::thread::hardware_concurrency()));
}

Error Analyzer::run(ReportData &D) {
  D.Sort = Opts.Sort;
  if (Error E = prefetchLines())
    return E;
  branches(D);
  conditionals(D);
  blocks(D);
  if (Error E = detail(D))
    return E;
  if (D.Blocks.size() > Opts.Top)
    D.Blocks.resize(Opts.Top);
  paths(D);
  functions(D);
  dsos(D);
  flame(D);
  return annotate(D);
}

} // namespace

Error analyzeReport(const ReportOptions &Opts, RawProfile &Raw,
                    const ReportCounts &Counts, const ReportCollector *Col,
                    const ProcessMaps &Maps,
                    const BinaryImage &Image, Symbolizer *Sym,
                    std::vector<bool> InBinary, ReportData &D) {
  D.Samples = Raw.Stats.Samples - Raw.Stats.SamplesFiltered;
  D.SamplesWithBranches = D.Samples - Raw.Stats.SamplesNoBranches;
  D.Entries = Counts.Entries;
  D.EntriesWithCycles = Counts.EntriesWithCycles;
  Analyzer A(Opts, Raw, Counts, Col, Maps, Image, Sym, std::move(InBinary));
  return A.run(D);
}

} // namespace lbr2prof
