//===- BlockLayout.cpp - Propeller's block and function layout ------------===//
//
// BlockLayout.h states the rules. The CFG counts come from
// buildBinaryProfile (the same counts fdata is written from); this file only
// re-cuts them at MachineBasicBlock boundaries and hands them to LLVM's
// code-layout algorithms.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Profile/BlockLayout.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Transforms/Utils/CodeLayout.h"
#include <algorithm>
#include <map>
#include <numeric>

using namespace llvm;
using codelayout::EdgeCount;

namespace lbr2prof {

namespace {

/// What a fall-through into an aligned block loses of ext-TSP's credit
/// (1 x count for a fall-through): all but a short jump's 0.1.
constexpr double PaddingCost = 0.9;

/// Count of the instruction at Addr (0 if no range covered it).
uint64_t instCount(const FunctionCfg &C, uint64_t Addr) {
  auto It = std::lower_bound(C.InstCounts.begin(), C.InstCounts.end(), Addr,
                             [](const std::pair<uint64_t, uint64_t> &P,
                                uint64_t A) { return P.first < A; });
  return It != C.InstCounts.end() && It->first == Addr ? It->second : 0;
}

/// Executions that fall through into address X from the instruction
/// before it.
uint64_t fallThroughInto(const FunctionCfg &C, ArrayRef<Inst> Insts,
                         uint64_t X) {
  int Idx = instIndexAt(Insts, X);
  if (Idx <= 0)
    return 0;
  const Inst &Prev = Insts[Idx - 1];
  if (endsFallThrough(Prev.Kind))
    return 0;
  // The CFG has a block boundary at X: its fall-through edge says it.
  auto FT = std::find_if(C.FallThrough.begin(), C.FallThrough.end(),
                         [&](const Edge &E) { return E.To == X; });
  if (FT != C.FallThrough.end())
    return FT->Count;
  bool Boundary = std::any_of(C.Blocks.begin(), C.Blocks.end(),
                              [&](const Block &B) { return B.Start == X; });
  if (Boundary)
    return 0;
  // Inside one of the CFG's blocks: whatever ran before X ran on into it.
  return instCount(C, Prev.Addr);
}

/// Index of the non-empty block containing Addr, or -1.
int blockAt(const MachineFunctionBlocks &M, uint64_t Addr) {
  auto It = std::upper_bound(
      M.Blocks.begin(), M.Blocks.end(), Addr,
      [](uint64_t A, const MachineBlock &B) { return A < B.Start; });
  // The last block starting at or before Addr is non-empty if it holds
  // Addr (empty blocks sort before the one sharing their start).
  if (It == M.Blocks.begin())
    return -1;
  --It;
  if (Addr >= It->End)
    return -1;
  return int(It - M.Blocks.begin());
}

FunctionLayout layoutFunction(const FunctionCfg &C, const BinaryImage &Image,
                              const MachineFunctionBlocks &M, LayoutStats &St) {
  ArrayRef<Inst> Insts = Image.instructions(C.Func);
  size_t N = M.Blocks.size();
  std::vector<uint64_t> Count(N), Size(N);
  std::map<std::pair<unsigned, unsigned>, uint64_t> Edges;
  for (size_t K = 0; K < N; ++K) {
    const MachineBlock &B = M.Blocks[K];
    Size[K] = B.End - B.Start;
    if (Size[K])
      Count[K] = instCount(C, B.Start);
  }
  // Fall-throughs between neighbours in address order; an empty block
  // passes on what falls into it. Alignment padding may lie between a
  // block and the next (a loop header's): the map leaves it out of both,
  // and the block still falls through it.
  for (size_t K = 0; K + 1 < N; ++K) {
    const MachineBlock &B = M.Blocks[K], &Next = M.Blocks[K + 1];
    if (!B.CanFallThrough || B.End > Next.Start)
      continue;
    uint64_t FT = fallThroughInto(C, Insts, Next.Start);
    if (!Size[K + 1])
      Count[K + 1] = FT;
    if (FT)
      Edges[{unsigned(K), unsigned(K + 1)}] += FT;
  }
  for (const Edge &E : C.Taken) {
    int Idx = instIndexAt(Insts, E.From);
    if (Idx < 0 || E.Count == 0)
      continue;
    InstKind K = Insts[Idx].Kind;
    if (K != InstKind::CondBranch && K != InstKind::UncondBranch &&
        K != InstKind::IndirectBranch)
      continue;
    int Src = blockAt(M, E.From), Dst = blockAt(M, E.To);
    if (Src < 0 || Dst < 0)
      continue; // out of the function: a tail call
    St.EdgeCount += E.Count;
    if (M.Blocks[Dst].Start != E.To) {
      St.MidBlockCount += E.Count;
      continue;
    }
    Edges[{unsigned(Src), unsigned(Dst)}] += E.Count;
  }
  // The hot blocks, entry first.
  std::vector<unsigned> Hot{0};
  for (size_t K = 1; K < N; ++K)
    if (Count[K])
      Hot.push_back(K);
  std::vector<int> HotIndex(N, -1);
  for (size_t H = 0; H < Hot.size(); ++H)
    HotIndex[Hot[H]] = int(H);
  std::vector<uint64_t> HSize, HCount;
  for (unsigned K : Hot) {
    HSize.push_back(Size[K]);
    HCount.push_back(Count[K]);
  }
  std::vector<EdgeCount> HEdges;
  for (auto &[SD, Cnt] : Edges)
    if (HotIndex[SD.first] >= 0 && HotIndex[SD.second] >= 0)
      HEdges.push_back(
          {uint64_t(HotIndex[SD.first]), uint64_t(HotIndex[SD.second]), Cnt});
  // Blocks the compiler aligned: padding lies between them and the block
  // before in the recorded binary. clang aligns a loop header before the
  // basic-block-sections pass orders the blocks, so the block keeps its
  // alignment in the new order, and a block put before it falls through
  // the padding's nops each time it runs on into it.
  std::vector<bool> Aligned(N);
  for (size_t K = 1, Reach = M.Blocks[0].End; K < N; ++K) {
    Aligned[K] = M.Blocks[K].Start > Reach;
    Reach = std::max<uint64_t>(Reach, M.Blocks[K].End);
  }
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> HEdgeCount;
  for (const EdgeCount &E : HEdges)
    HEdgeCount[{E.src, E.dst}] += E.count;
  // Executions of padding: counts of the edges the order makes fall
  // through into an aligned block.
  auto padded = [&](ArrayRef<uint64_t> Order) {
    uint64_t Sum = 0;
    for (size_t I = 0; I + 1 < Order.size(); ++I)
      if (Aligned[Hot[Order[I + 1]]]) {
        auto It = HEdgeCount.find({Order[I], Order[I + 1]});
        if (It != HEdgeCount.end())
          Sum += It->second;
      }
    return Sum;
  };
  // ext-TSP credits a fall-through with its count, a short jump with a
  // tenth of it. One through padding runs the nops where a jump would run
  // the jmp: it is credited as a jump, 0.1 of its count. The score an
  // order is judged by is ext-TSP's less 0.9 of its padded count.
  // (Measured: crediting it nothing kept the compiler's order nearly
  // everywhere, bzip2's taken branches -0.1% where -16.6% was there to
  // take; bench/propeller/README.md.)
  auto judge = [&](ArrayRef<uint64_t> Order) {
    return codelayout::calcExtTspScore(Order, HSize, HCount, HEdges) -
           PaddingCost * double(padded(Order));
  };
  // ext-TSP keeps the entry first; clang requires it to begin a cluster.
  auto extTsp = [&](ArrayRef<EdgeCount> Es) {
    std::vector<uint64_t> O = codelayout::computeExtTspLayout(HSize, HCount, Es);
    auto Entry = std::find(O.begin(), O.end(), 0);
    std::rotate(O.begin(), Entry, Entry + 1);
    return O;
  };
  FunctionLayout L;
  L.Func = C.Func;
  L.Blocks = unsigned(N);
  std::vector<uint64_t> Identity(Hot.size());
  std::iota(Identity.begin(), Identity.end(), 0);
  // Candidates: the address order (the compiler's layout, which also holds
  // what ext-TSP does not model), ext-TSP's order of all the edges,
  // ext-TSP's order without the edges into aligned blocks (which then fall
  // through only where that costs no other fall-through), and ext-TSP's
  // order with those edges at the tenth of their count the judge credits
  // them (ext-TSP then optimizes nearly the judged score). The best judged
  // wins; on a tie the earlier.
  std::vector<uint64_t> Order = Identity;
  double Best = judge(Identity);
  std::vector<EdgeCount> Unaligned;
  for (const EdgeCount &E : HEdges)
    if (!Aligned[Hot[E.dst]])
      Unaligned.push_back(E);
  std::vector<std::vector<uint64_t>> Candidates{extTsp(HEdges)};
  if (Unaligned.size() != HEdges.size()) {
    Candidates.push_back(extTsp(Unaligned));
    std::vector<EdgeCount> Scaled = HEdges;
    for (EdgeCount &E : Scaled)
      if (Aligned[Hot[E.dst]])
        E.count = uint64_t(double(E.count) * (1 - PaddingCost) + 0.5);
    Candidates.push_back(extTsp(Scaled));
  }
  for (std::vector<uint64_t> &O : Candidates) {
    double J = judge(O);
    if (J > Best) {
      Best = J;
      Order = std::move(O);
    }
  }
  L.ScoreBefore = codelayout::calcExtTspScore(Identity, HSize, HCount, HEdges);
  L.ScoreAfter = codelayout::calcExtTspScore(Order, HSize, HCount, HEdges);
  L.PaddedBefore = padded(Identity);
  L.PaddedAfter = padded(Order);
  for (uint64_t H : Order) {
    L.Cluster.push_back(M.Blocks[Hot[H]].Id);
    L.HotSize += HSize[H];
  }
  return L;
}

} // namespace

PropellerLayout computePropellerLayout(const BinaryProfile &P,
                                       const BinaryImage &Image,
                                       ArrayRef<MachineFunctionBlocks> Blocks) {
  PropellerLayout R;
  std::vector<FunctionLayout> Hot;
  DenseMap<unsigned, unsigned> HotIndex;
  for (const auto &[F, C] : P.Functions) {
    const FunctionSym &FS = Image.functions()[F];
    if (FS.Plt)
      continue;
    // A function with no count in any block (only a call or a return
    // seen) is not hot.
    bool Counted = !C.InstCounts.empty();
    if (!Counted)
      continue;
    ++R.Stats.Counted;
    auto It = std::lower_bound(
        Blocks.begin(), Blocks.end(), FS.Start,
        [](const MachineFunctionBlocks &M, uint64_t A) { return M.Entry < A; });
    if (It == Blocks.end() || It->Entry != FS.Start || It->Blocks.empty()) {
      ++R.Stats.NoBlockMap;
      continue;
    }
    HotIndex[F] = unsigned(Hot.size());
    Hot.push_back(layoutFunction(C, Image, *It, R.Stats));
  }
  // Function order: calls between hot functions, by call site.
  std::vector<uint64_t> Sizes, Counts;
  for (const FunctionLayout &L : Hot) {
    Sizes.push_back(std::max<uint64_t>(L.HotSize, 1));
    const FunctionCfg &C = P.Functions.at(L.Func);
    uint64_t Entry = C.Blocks.empty() ? 0 : C.Blocks.front().Count;
    Counts.push_back(std::max<uint64_t>({Entry, C.EntryCount, 1}));
  }
  std::map<std::pair<unsigned, unsigned>, std::pair<uint64_t, uint64_t>>
      Calls; // (caller, callee) -> (count, offset of the busiest site)
  std::map<std::pair<unsigned, unsigned>, uint64_t> Busiest;
  for (const Edge &E : P.Branches) {
    int F = E.From == ExternalAddr ? -1 : Image.functionAt(E.From);
    unsigned Callee = 0;
    if (F < 0 || !HotIndex.count(unsigned(F)) ||
        entryTransfer(Image, unsigned(F), E, Callee) != EntryTransfer::Call ||
        !HotIndex.count(Callee))
      continue;
    std::pair<unsigned, unsigned> Key{HotIndex[unsigned(F)], HotIndex[Callee]};
    auto &[Cnt, Off] = Calls[Key];
    Cnt += E.Count;
    if (E.Count > Busiest[Key]) {
      Busiest[Key] = E.Count;
      Off = std::min(E.From - Image.functions()[F].Start, Sizes[Key.first] - 1);
    }
  }
  std::vector<EdgeCount> CallCounts;
  std::vector<uint64_t> Offsets;
  for (auto &[Key, CO] : Calls) {
    CallCounts.push_back({Key.first, Key.second, CO.first});
    Offsets.push_back(CO.second);
  }
  std::vector<uint64_t> Order =
      Hot.empty() ? std::vector<uint64_t>()
                  : codelayout::computeCacheDirectedLayout(Sizes, Counts,
                                                           CallCounts, Offsets);
  for (uint64_t K : Order)
    R.Functions.push_back(std::move(Hot[K]));
  return R;
}

void printLayoutStats(const PropellerLayout &L, raw_ostream &OS) {
  unsigned Blocks = 0, HotBlocks = 0;
  double Before = 0, After = 0;
  uint64_t PaddedBefore = 0, PaddedAfter = 0;
  for (const FunctionLayout &F : L.Functions) {
    Blocks += F.Blocks;
    HotBlocks += F.Cluster.size();
    Before += F.ScoreBefore;
    After += F.ScoreAfter;
    PaddedBefore += F.PaddedBefore;
    PaddedAfter += F.PaddedAfter;
  }
  const LayoutStats &S = L.Stats;
  OS << formatv("propeller: {0} hot functions laid out ({1} counted, {2} "
                "without a .llvm_bb_addr_map entry); {3} of their {4} blocks "
                "hot\n",
                L.Functions.size(), S.Counted, S.NoBlockMap, HotBlocks, Blocks);
  OS << formatv("propeller: ext-TSP score {0:f1} in address order, {1:f1} "
                "in the new order\n",
                Before, After);
  OS << formatv("propeller: {0} fall-throughs into aligned blocks' padding "
                "in address order, {1} in the new order\n",
                PaddedBefore, PaddedAfter);
  if (S.MidBlockCount)
    OS << formatv("propeller: {0} of {1} taken-branch counts land inside a "
                  "block and were left out\n",
                  S.MidBlockCount, S.EdgeCount);
}

} // namespace lbr2prof
