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

/// The jmps and alignment padding an order of blocks runs (counts).
struct LayoutCost {
  uint64_t Jumps = 0, Padded = 0;
  uint64_t total() const { return Jumps + Padded; }
};

/// One order a function's hot blocks may take.
struct LayoutOption {
  std::vector<uint64_t> Order; // of hot indices
  double Score = 0;            // ext-TSP's
  LayoutCost Cost;             // predicted
};

/// A hot function's orders, before one is chosen.
struct FunctionOptions {
  FunctionLayout L;
  LayoutCost Binary;
  std::vector<uint32_t> HotIds;
  std::vector<uint64_t> HotSize;
  std::vector<LayoutOption> Options; // [0]: the hot blocks in address order
  size_t Pick = 0;
};

FunctionOptions layoutFunction(const FunctionCfg &C, const BinaryImage &Image,
                               const MachineFunctionBlocks &M,
                               LayoutStats &St) {
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
  // What the compiler branches with after a block once the blocks are
  // reordered (BasicBlockSections re-cuts each terminator for its new
  // neighbour): a block's unconditional successor (the block it falls
  // through to, or its jmp's target) and its conditional branch's target.
  // Followed by either, it needs no jmp; else a jmp to the unconditional
  // successor runs as often as the edge to it. Body is the block's bytes
  // less those branches, which the compiler rewrites.
  std::vector<int> Uncond(N, -1), CondTarget(N, -1);
  std::vector<uint64_t> Body(Size);
  auto startsAt = [&](uint64_t A) {
    int D = blockAt(M, A);
    return D >= 0 && M.Blocks[D].Start == A ? D : -1;
  };
  for (size_t K = 0; K < N; ++K) {
    const MachineBlock &B = M.Blocks[K];
    int Next = B.CanFallThrough && K + 1 < N ? int(K + 1) : -1;
    int Idx = Size[K] ? instIndexAt(Insts, B.Start) : -1;
    if (Idx < 0) {
      Uncond[K] = Next;
      continue;
    }
    int First = Idx;
    while (size_t(Idx + 1) < Insts.size() && Insts[Idx + 1].Addr < B.End)
      ++Idx;
    const Inst &Last = Insts[Idx];
    const Inst *Cond = nullptr;
    if (Last.Kind == InstKind::UncondBranch) {
      Uncond[K] = Last.Target ? startsAt(Last.Target) : -1;
      if (Uncond[K] >= 0)
        Body[K] -= Last.Size;
      if (Idx > First && Insts[Idx - 1].Kind == InstKind::CondBranch)
        Cond = &Insts[Idx - 1];
    } else if (!endsFallThrough(Last.Kind)) {
      Uncond[K] = Next;
      if (Last.Kind == InstKind::CondBranch)
        Cond = &Last;
    }
    if (Cond && Cond->Target && (CondTarget[K] = startsAt(Cond->Target)) >= 0)
      Body[K] -= Cond->Size;
  }
  auto edgeCount = [&](unsigned S, int D) -> uint64_t {
    if (D < 0)
      return 0;
    auto It = Edges.find({S, unsigned(D)});
    return It == Edges.end() ? 0 : It->second;
  };
  // The binary's own jmps and padding runs: the padding before an aligned
  // block runs as often as the block before falls into it.
  LayoutCost Binary;
  for (size_t K = 0; K < N; ++K) {
    int Next = K + 1 < N ? int(K + 1) : -1;
    if (Next >= 0 && Aligned[Next])
      Binary.Padded += edgeCount(K, Next);
    if (Uncond[K] >= 0 && Uncond[K] != Next &&
        (Next < 0 || CondTarget[K] != Next))
      Binary.Jumps += edgeCount(K, Uncond[K]);
  }
  // A new order's, predicted: where each block of the cluster will start
  // (the function's 16-byte alignment at its start; each block its body
  // and its rewritten branches: 2 bytes if the target is within a signed
  // byte's reach, else 6 for a jcc, 5 for a jmp, and always so for a
  // target out of the cluster, in the cold section; first with the
  // binary's distances unknown taken as short, then once more with the
  // starts that gives), and the padding clang puts before an aligned
  // block: to the next multiple of 16, one long nop that runs each time
  // the block before falls into it.
  auto predict = [&](ArrayRef<uint64_t> Order) {
    size_t S = Order.size();
    std::vector<int> Pos(N, -1);
    for (size_t I = 0; I < S; ++I)
      Pos[Hot[Order[I]]] = int(I);
    std::vector<int64_t> Start(S, 0);
    LayoutCost Cost;
    for (int Pass = 0; Pass < 2; ++Pass) {
      Cost = LayoutCost();
      int64_t At = 0;
      std::vector<int64_t> NewStart(S);
      for (size_t I = 0; I < S; ++I) {
        unsigned B = Hot[Order[I]];
        int Next = I + 1 < S ? int(Hot[Order[I + 1]]) : -1;
        if (I > 0 && Aligned[B]) {
          int64_t Pad = (16 - At % 16) % 16;
          if (Pad)
            Cost.Padded += edgeCount(Hot[Order[I - 1]], int(B));
          At += Pad;
        }
        NewStart[I] = At;
        At += int64_t(Body[B]);
        auto branch = [&](int Target, int64_t Near) {
          if (Pos[Target] < 0)
            return Near;
          if (Pass == 0)
            return int64_t(2);
          int64_t Disp = Start[Pos[Target]] - (At + 2);
          return Disp >= -128 && Disp <= 127 ? int64_t(2) : Near;
        };
        bool Inverted = Next >= 0 && CondTarget[B] == Next && Uncond[B] >= 0;
        if (CondTarget[B] >= 0)
          At += branch(Inverted ? Uncond[B] : CondTarget[B], 6);
        if (Uncond[B] >= 0 && Uncond[B] != Next && !Inverted) {
          At += branch(Uncond[B], 5);
          Cost.Jumps += edgeCount(B, Uncond[B]);
        }
      }
      Start = std::move(NewStart);
    }
    return Cost;
  };
  // ext-TSP keeps the entry first; clang requires it to begin a cluster.
  auto extTsp = [&](ArrayRef<EdgeCount> Es) {
    std::vector<uint64_t> O = codelayout::computeExtTspLayout(HSize, HCount, Es);
    auto Entry = std::find(O.begin(), O.end(), 0);
    std::rotate(O.begin(), Entry, Entry + 1);
    return O;
  };
  FunctionOptions F;
  F.L.Func = C.Func;
  F.L.Blocks = unsigned(N);
  F.Binary = Binary;
  for (unsigned K : Hot)
    F.HotIds.push_back(M.Blocks[K].Id);
  F.HotSize = HSize;
  std::vector<uint64_t> Identity(Hot.size());
  std::iota(Identity.begin(), Identity.end(), 0);
  // The orders: the hot blocks in address order (the compiler's layout,
  // which also holds what ext-TSP does not model), ext-TSP's order of all
  // the edges, ext-TSP's order without the edges into aligned blocks
  // (which then fall through only where that costs no other
  // fall-through), and ext-TSP's order with those edges at a tenth of
  // their count (ext-TSP's credit for a short jump).
  std::vector<std::vector<uint64_t>> Orders{Identity, extTsp(HEdges)};
  std::vector<EdgeCount> Unaligned;
  for (const EdgeCount &E : HEdges)
    if (!Aligned[Hot[E.dst]])
      Unaligned.push_back(E);
  if (Unaligned.size() != HEdges.size()) {
    Orders.push_back(extTsp(Unaligned));
    std::vector<EdgeCount> Scaled = HEdges;
    for (EdgeCount &E : Scaled)
      if (Aligned[Hot[E.dst]])
        E.count = (E.count + 5) / 10;
    Orders.push_back(extTsp(Scaled));
  }
  // Each ext-TSP order again with its chains (runs of blocks that fall
  // through one to the next) in every other sequence after the entry's
  // (the first 120; past 6 chains, each moved once): the same
  // fall-throughs, other starts, so other padding before aligned blocks.
  // The cheapest of them (then the best scored) joins the options.
  size_t Given = Orders.size();
  for (size_t G = 1; G < Given; ++G) {
    std::vector<std::vector<uint64_t>> Chains;
    for (size_t I = 0; I < Orders[G].size(); ++I) {
      unsigned B = Hot[Orders[G][I]];
      bool Falls = false;
      if (I > 0) {
        unsigned A = Hot[Orders[G][I - 1]];
        Falls = edgeCount(A, int(B)) > 0 &&
                (Uncond[A] == int(B) || CondTarget[A] == int(B));
      }
      if (!Falls)
        Chains.emplace_back();
      Chains.back().push_back(Orders[G][I]);
    }
    if (Chains.size() < 3)
      continue;
    std::vector<size_t> Perm(Chains.size() - 1);
    std::iota(Perm.begin(), Perm.end(), 1);
    auto orderOf = [&](ArrayRef<size_t> P) {
      std::vector<uint64_t> O = Chains[0];
      for (size_t K : P)
        O.insert(O.end(), Chains[K].begin(), Chains[K].end());
      return O;
    };
    std::vector<uint64_t> Best = Orders[G];
    LayoutCost BestCost = predict(Best);
    double BestScore = codelayout::calcExtTspScore(Best, HSize, HCount, HEdges);
    auto consider = [&](std::vector<uint64_t> O) {
      LayoutCost Cost = predict(O);
      if (Cost.total() > BestCost.total())
        return;
      double Score = codelayout::calcExtTspScore(O, HSize, HCount, HEdges);
      if (Cost.total() == BestCost.total() && Score <= BestScore)
        return;
      Best = std::move(O);
      BestCost = Cost;
      BestScore = Score;
    };
    if (Perm.size() <= 5) {
      while (std::next_permutation(Perm.begin(), Perm.end()))
        consider(orderOf(Perm));
    } else {
      for (size_t From = 0; From < Perm.size(); ++From)
        for (size_t To = 0; To < Perm.size(); ++To) {
          if (From == To)
            continue;
          std::vector<size_t> Q = Perm;
          size_t K = Q[From];
          Q.erase(Q.begin() + From);
          Q.insert(Q.begin() + To, K);
          consider(orderOf(Q));
        }
    }
    if (Best != Orders[G])
      Orders.push_back(std::move(Best));
  }
  for (std::vector<uint64_t> &O : Orders) {
    LayoutOption Opt;
    Opt.Score = codelayout::calcExtTspScore(O, HSize, HCount, HEdges);
    Opt.Cost = predict(O);
    Opt.Order = std::move(O);
    F.Options.push_back(std::move(Opt));
  }
  F.L.ScoreBefore = F.Options[0].Score;
  F.L.PaddedBefore = Binary.Padded;
  F.L.JumpsBefore = Binary.Jumps;
  return F;
}

/// Picks one option per function: the highest total ext-TSP score (taken
/// branches saved) whose predicted jmps and padding runs, summed over the
/// functions, are no more than the binary's (so the layout adds no
/// instructions, as callgrind and a CPU's decoder see them). Each function
/// starts at its cheapest option (on a tie the higher score, then the
/// earlier); then, while the budget lasts, the move to a higher-scoring
/// option with the most score per instruction added is taken (free ones
/// first: most score).
void chooseOptions(std::vector<FunctionOptions> &Fs) {
  int64_t Budget = 0;
  for (FunctionOptions &F : Fs) {
    for (size_t I = 1; I < F.Options.size(); ++I) {
      const LayoutOption &O = F.Options[I], &P = F.Options[F.Pick];
      if (O.Cost.total() < P.Cost.total() ||
          (O.Cost.total() == P.Cost.total() && O.Score > P.Score))
        F.Pick = I;
    }
    Budget += int64_t(F.Binary.total()) -
              int64_t(F.Options[F.Pick].Cost.total());
  }
  for (;;) {
    FunctionOptions *BestF = nullptr;
    size_t BestI = 0;
    bool BestFree = false;
    double BestRate = 0;
    for (FunctionOptions &F : Fs) {
      const LayoutOption &P = F.Options[F.Pick];
      for (size_t I = 0; I < F.Options.size(); ++I) {
        const LayoutOption &O = F.Options[I];
        int64_t Extra = int64_t(O.Cost.total()) - int64_t(P.Cost.total());
        double Gain = O.Score - P.Score;
        if (Gain <= 0 || Extra > Budget)
          continue;
        bool Free = Extra <= 0;
        double Rate = Free ? Gain : Gain / double(Extra);
        if (!BestF || (Free && !BestFree) ||
            (Free == BestFree && Rate > BestRate)) {
          BestF = &F;
          BestI = I;
          BestFree = Free;
          BestRate = Rate;
        }
      }
    }
    if (!BestF)
      break;
    Budget -= int64_t(BestF->Options[BestI].Cost.total()) -
              int64_t(BestF->Options[BestF->Pick].Cost.total());
    BestF->Pick = BestI;
  }
  for (FunctionOptions &F : Fs) {
    const LayoutOption &O = F.Options[F.Pick];
    F.L.ScoreAfter = O.Score;
    F.L.PaddedAfter = O.Cost.Padded;
    F.L.JumpsAfter = O.Cost.Jumps;
    for (uint64_t H : O.Order) {
      F.L.Cluster.push_back(F.HotIds[H]);
      F.L.HotSize += F.HotSize[H];
    }
  }
}

} // namespace

PropellerLayout computePropellerLayout(const BinaryProfile &P,
                                       const BinaryImage &Image,
                                       ArrayRef<MachineFunctionBlocks> Blocks) {
  PropellerLayout R;
  std::vector<FunctionOptions> Hot;
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
  chooseOptions(Hot);
  // Function order: calls between hot functions, by call site.
  std::vector<uint64_t> Sizes, Counts;
  for (const FunctionOptions &FO : Hot) {
    const FunctionLayout &L = FO.L;
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
    R.Functions.push_back(std::move(Hot[K].L));
  return R;
}

void printLayoutStats(const PropellerLayout &L, raw_ostream &OS) {
  unsigned Blocks = 0, HotBlocks = 0;
  double Before = 0, After = 0;
  uint64_t PaddedBefore = 0, PaddedAfter = 0, JumpsBefore = 0, JumpsAfter = 0;
  for (const FunctionLayout &F : L.Functions) {
    Blocks += F.Blocks;
    HotBlocks += F.Cluster.size();
    Before += F.ScoreBefore;
    After += F.ScoreAfter;
    PaddedBefore += F.PaddedBefore;
    PaddedAfter += F.PaddedAfter;
    JumpsBefore += F.JumpsBefore;
    JumpsAfter += F.JumpsAfter;
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
                "and {1} jmps in the binary, {2} and {3} in the new order\n",
                PaddedBefore, JumpsBefore, PaddedAfter, JumpsAfter);
  if (S.MidBlockCount)
    OS << formatv("propeller: {0} of {1} taken-branch counts land inside a "
                  "block and were left out\n",
                  S.MidBlockCount, S.EdgeCount);
}

} // namespace lbr2prof
