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

/// One function's blocks (indices into the map's blocks, address order)
/// with their counts, and what the compiler branches with after each once
/// the blocks are reordered (BasicBlockSections re-cuts each terminator
/// for its new neighbour): a block's unconditional successor (the block it
/// falls through to, or its jmp's target) and its conditional branch's
/// target. Followed by either, it needs no jmp; else a jmp to the
/// unconditional successor runs as often as the edge to it. Body is the
/// block's bytes less those branches, which the compiler rewrites.
struct CutBlocks {
  size_t N = 0;
  std::vector<uint64_t> Count, Size, Body;
  std::map<std::pair<unsigned, unsigned>, uint64_t> Edges;
  /// Aligned: the compiler aligns the block; Gap: padding lies before it
  /// in the binary (an aligned block on a 16-byte boundary has none).
  std::vector<bool> Aligned, Gap;
  std::vector<int> Uncond, CondTarget;
  /// The hot blocks, entry first, and each block's index among them.
  std::vector<unsigned> Hot;
  std::vector<int> HotIndex;

  uint64_t edge(unsigned S, int D) const {
    if (D < 0)
      return 0;
    auto It = Edges.find({S, unsigned(D)});
    return It == Edges.end() ? 0 : It->second;
  }
  /// True if A's successor B can follow it without a branch.
  bool fallsInto(unsigned A, unsigned B) const {
    return edge(A, int(B)) > 0 &&
           (Uncond[A] == int(B) || CondTarget[A] == int(B));
  }
};

/// The counts: blocks, and edges between block starts.
void countBlocks(const FunctionCfg &C, ArrayRef<Inst> Insts,
                 const MachineFunctionBlocks &M, CutBlocks &F,
                 LayoutStats &St) {
  size_t N = F.N;
  for (size_t K = 0; K < N; ++K) {
    const MachineBlock &B = M.Blocks[K];
    F.Size[K] = B.End - B.Start;
    if (F.Size[K])
      F.Count[K] = instCount(C, B.Start);
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
    if (!F.Size[K + 1])
      F.Count[K + 1] = FT;
    if (FT)
      F.Edges[{unsigned(K), unsigned(K + 1)}] += FT;
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
    F.Edges[{unsigned(Src), unsigned(Dst)}] += E.Count;
  }
}

/// Each block's branches (CutBlocks' Uncond, CondTarget, Body).
void readBranches(ArrayRef<Inst> Insts, const MachineFunctionBlocks &M,
                  CutBlocks &F) {
  auto startsAt = [&](uint64_t A) {
    int D = blockAt(M, A);
    return D >= 0 && M.Blocks[D].Start == A ? D : -1;
  };
  for (size_t K = 0; K < F.N; ++K) {
    const MachineBlock &B = M.Blocks[K];
    int Next = B.CanFallThrough && K + 1 < F.N ? int(K + 1) : -1;
    int Idx = F.Size[K] ? instIndexAt(Insts, B.Start) : -1;
    if (Idx < 0) {
      F.Uncond[K] = Next;
      continue;
    }
    int First = Idx;
    while (size_t(Idx + 1) < Insts.size() && Insts[Idx + 1].Addr < B.End)
      ++Idx;
    const Inst &Last = Insts[Idx];
    const Inst *Cond = nullptr;
    if (Last.Kind == InstKind::UncondBranch) {
      F.Uncond[K] = Last.target() ? startsAt(Last.target()) : -1;
      if (F.Uncond[K] >= 0)
        F.Body[K] -= Last.Size;
      if (Idx > First && Insts[Idx - 1].Kind == InstKind::CondBranch)
        Cond = &Insts[Idx - 1];
    } else if (!endsFallThrough(Last.Kind)) {
      F.Uncond[K] = Next;
      if (Last.Kind == InstKind::CondBranch)
        Cond = &Last;
    }
    if (Cond && Cond->target() &&
        (F.CondTarget[K] = startsAt(Cond->target())) >= 0)
      F.Body[K] -= Cond->Size;
  }
}

/// The blocks LLVM 19's MachineBlockPlacement::alignBlocks marks for loop
/// alignment, re-derived from the map's CFG and static frequencies: every
/// block but the first that lies in a natural loop (a back edge's target
/// dominating its source, and the blocks that reach the source without
/// passing the target), is not cold (its frequency at least a fifth of the
/// entry's and of its innermost loop's header's), and whose layout
/// predecessor either is not its predecessor in the CFG or falls into it
/// with at most a fifth of its frequency. Empty if the map has no CFG.
std::vector<bool> loopAligned(const MachineFunctionBlocks &M) {
  size_t N = M.Blocks.size();
  if (!M.HasCfg || N < 2)
    return {};
  DenseMap<uint32_t, unsigned> Index;
  for (size_t K = 0; K < N; ++K)
    Index[M.Blocks[K].Id] = unsigned(K);
  std::vector<std::vector<unsigned>> Succ(N), Pred(N);
  for (size_t K = 0; K < N; ++K)
    for (const auto &[Id, Prob] : M.Blocks[K].Succs) {
      auto It = Index.find(Id);
      if (It == Index.end())
        continue;
      Succ[K].push_back(It->second);
      Pred[It->second].push_back(unsigned(K));
    }
  // Reverse post-order from the entry, then the immediate dominators
  // (Cooper, Harvey and Kennedy's iteration over it).
  std::vector<unsigned> Post;
  std::vector<int> RpoNum(N, -1);
  {
    std::vector<bool> Seen(N, false);
    std::vector<std::pair<unsigned, size_t>> Stack{{0, 0}};
    Seen[0] = true;
    while (!Stack.empty()) {
      auto &[U, Next] = Stack.back();
      if (Next < Succ[U].size()) {
        unsigned V = Succ[U][Next++];
        if (!Seen[V]) {
          Seen[V] = true;
          Stack.push_back({V, 0});
        }
        continue;
      }
      Post.push_back(U);
      Stack.pop_back();
    }
  }
  std::vector<unsigned> Rpo(Post.rbegin(), Post.rend());
  for (size_t I = 0; I < Rpo.size(); ++I)
    RpoNum[Rpo[I]] = int(I);
  std::vector<int> Idom(N, -1);
  Idom[0] = 0;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t I = 1; I < Rpo.size(); ++I) {
      unsigned U = Rpo[I];
      int New = -1;
      for (unsigned P : Pred[U]) {
        if (Idom[P] < 0)
          continue;
        if (New < 0) {
          New = int(P);
          continue;
        }
        int A = int(P), B = New;
        while (A != B) {
          while (RpoNum[A] > RpoNum[B])
            A = Idom[A];
          while (RpoNum[B] > RpoNum[A])
            B = Idom[B];
        }
        New = A;
      }
      if (New != Idom[U]) {
        Idom[U] = New;
        Changed = true;
      }
    }
  }
  auto dominates = [&](unsigned A, unsigned B) {
    for (;;) {
      if (A == B)
        return true;
      if (B == 0)
        return false;
      B = unsigned(Idom[B]);
    }
  };
  // Natural loops by header; each block's innermost loop is the smallest
  // one holding it.
  std::map<unsigned, std::vector<bool>> Loops;
  std::map<unsigned, size_t> LoopSize;
  for (unsigned U : Rpo)
    for (unsigned H : Succ[U]) {
      if (!dominates(H, U))
        continue;
      std::vector<bool> &Body = Loops[H];
      Body.resize(N, false);
      Body[H] = true;
      std::vector<unsigned> Work{U};
      while (!Work.empty()) {
        unsigned X = Work.back();
        Work.pop_back();
        if (Body[X])
          continue;
        Body[X] = true;
        for (unsigned P : Pred[X])
          if (RpoNum[P] >= 0)
            Work.push_back(P);
      }
    }
  std::vector<int> Inner(N, -1);
  for (auto &[H, Body] : Loops) {
    size_t Size = size_t(std::count(Body.begin(), Body.end(), true));
    LoopSize[H] = Size;
    for (size_t X = 0; X < N; ++X)
      if (Body[X] && (Inner[X] < 0 || LoopSize[unsigned(Inner[X])] > Size))
        Inner[X] = int(H);
  }
  // alignBlocks' test: 1/5 (its ColdProb) of the entry's and of the
  // header's frequency; the layout predecessor's edge at most 1/5 of the
  // block's. Frequencies times 5 against frequencies: no division.
  std::vector<bool> Aligned(N, false);
  using U128 = unsigned __int128;
  U128 Entry = M.Blocks[0].Freq;
  for (size_t K = 1; K < N; ++K) {
    if (Inner[K] < 0)
      continue;
    U128 Freq = M.Blocks[K].Freq;
    if (Freq * 5 < Entry || Freq * 5 < M.Blocks[unsigned(Inner[K])].Freq)
      continue;
    const MachineBlock &Prev = M.Blocks[K - 1];
    auto Edge = std::find_if(
        Prev.Succs.begin(), Prev.Succs.end(),
        [&](const std::pair<uint32_t, uint32_t> &S) {
          return S.first == M.Blocks[K].Id;
        });
    if (Edge == Prev.Succs.end()) {
      Aligned[K] = true;
      continue;
    }
    // Prev.Freq * Prob / 2^31 <= Freq / 5.
    U128 EdgeFreq5 = U128(Prev.Freq) * Edge->second * 5;
    Aligned[K] = EdgeFreq5 <= (Freq << 31);
  }
  return Aligned;
}

CutBlocks cutBlocks(const FunctionCfg &C, ArrayRef<Inst> Insts,
                    const MachineFunctionBlocks &M, LayoutStats &St) {
  CutBlocks F;
  size_t N = F.N = M.Blocks.size();
  F.Count.assign(N, 0);
  F.Size.assign(N, 0);
  countBlocks(C, Insts, M, F, St);
  F.Body = F.Size;
  F.Uncond.assign(N, -1);
  F.CondTarget.assign(N, -1);
  readBranches(Insts, M, F);
  F.Hot.push_back(0);
  for (size_t K = 1; K < N; ++K)
    if (F.Count[K])
      F.Hot.push_back(K);
  F.HotIndex.assign(N, -1);
  for (size_t H = 0; H < F.Hot.size(); ++H)
    F.HotIndex[F.Hot[H]] = int(H);
  // Blocks the compiler aligned: padding lies between them and the block
  // before in the recorded binary, or (with the map's CFG) alignBlocks'
  // rule marks them and they start on a 16-byte boundary, where the
  // padding is empty. clang aligns loop blocks before the
  // basic-block-sections pass orders the blocks, so the block keeps its
  // alignment in the new order, and a block put before it falls through
  // the padding's nops each time it runs on into it.
  F.Aligned.assign(N, false);
  F.Gap.assign(N, false);
  std::vector<bool> ByRule = loopAligned(M);
  for (size_t K = 1, Reach = M.Blocks[0].End; K < N; ++K) {
    F.Aligned[K] = F.Gap[K] = M.Blocks[K].Start > Reach;
    if (!F.Aligned[K] && !ByRule.empty() && ByRule[K] &&
        M.Blocks[K].Start % 16 == 0 && M.Blocks[K].Start == Reach) {
      F.Aligned[K] = true;
      ++St.AlignedByRule;
    }
    Reach = std::max<uint64_t>(Reach, M.Blocks[K].End);
  }
  return F;
}

/// The binary's own jmps and padding runs: the padding before a block
/// runs as often as the block before falls into it.
LayoutCost binaryCost(const CutBlocks &F) {
  LayoutCost Cost;
  for (size_t K = 0; K < F.N; ++K) {
    int Next = K + 1 < F.N ? int(K + 1) : -1;
    if (Next >= 0 && F.Gap[Next])
      Cost.Padded += F.edge(K, Next);
    if (F.Uncond[K] >= 0 && F.Uncond[K] != Next &&
        (Next < 0 || F.CondTarget[K] != Next))
      Cost.Jumps += F.edge(K, F.Uncond[K]);
  }
  return Cost;
}

/// A new order's (of hot indices), predicted: where each block of the
/// cluster will start (the function's 16-byte alignment at its start;
/// each block its body and its rewritten branches: 2 bytes if the target
/// is within a signed byte's reach, else 6 for a jcc, 5 for a jmp, and
/// always so for a target out of the cluster, in the cold section; first
/// with all distances taken as short, then once more with the starts that
/// gives), and the padding clang puts before an aligned block: to the
/// next multiple of 16, one long nop that runs each time the block before
/// falls into it.
LayoutCost predictCost(const CutBlocks &F, ArrayRef<uint64_t> Order) {
  size_t S = Order.size();
  std::vector<int> Pos(F.N, -1);
  for (size_t I = 0; I < S; ++I)
    Pos[F.Hot[Order[I]]] = int(I);
  std::vector<int64_t> Start(S, 0);
  LayoutCost Cost;
  for (int Pass = 0; Pass < 2; ++Pass) {
    Cost = LayoutCost();
    int64_t At = 0;
    std::vector<int64_t> NewStart(S);
    for (size_t I = 0; I < S; ++I) {
      unsigned B = F.Hot[Order[I]];
      int Next = I + 1 < S ? int(F.Hot[Order[I + 1]]) : -1;
      if (I > 0 && F.Aligned[B]) {
        int64_t Pad = (16 - At % 16) % 16;
        if (Pad)
          Cost.Padded += F.edge(F.Hot[Order[I - 1]], int(B));
        At += Pad;
      }
      NewStart[I] = At;
      At += int64_t(F.Body[B]);
      auto branch = [&](int Target, int64_t Near) {
        if (Pos[Target] < 0)
          return Near;
        if (Pass == 0)
          return int64_t(2);
        int64_t Disp = Start[Pos[Target]] - (At + 2);
        return Disp >= -128 && Disp <= 127 ? int64_t(2) : Near;
      };
      bool Inverted =
          Next >= 0 && F.CondTarget[B] == Next && F.Uncond[B] >= 0;
      if (F.CondTarget[B] >= 0)
        At += branch(Inverted ? F.Uncond[B] : F.CondTarget[B], 6);
      if (F.Uncond[B] >= 0 && F.Uncond[B] != Next && !Inverted) {
        At += branch(F.Uncond[B], 5);
        Cost.Jumps += F.edge(B, F.Uncond[B]);
      }
    }
    Start = std::move(NewStart);
  }
  return Cost;
}

/// Order again with its chains (runs of blocks that fall through one to
/// the next) in every other sequence after the entry's (past 6 chains,
/// each chain moved once): the same fall-throughs, other starts, so other
/// padding before aligned blocks. The cheapest (then best scored), or
/// Order itself.
std::vector<uint64_t> leastPaddedChains(const CutBlocks &F,
                                        ArrayRef<uint64_t> Order,
                                        ArrayRef<uint64_t> HSize,
                                        ArrayRef<uint64_t> HCount,
                                        ArrayRef<EdgeCount> HEdges) {
  std::vector<std::vector<uint64_t>> Chains;
  for (size_t I = 0; I < Order.size(); ++I) {
    if (I == 0 || !F.fallsInto(F.Hot[Order[I - 1]], F.Hot[Order[I]]))
      Chains.emplace_back();
    Chains.back().push_back(Order[I]);
  }
  std::vector<uint64_t> Best(Order.begin(), Order.end());
  if (Chains.size() < 3)
    return Best;
  LayoutCost BestCost = predictCost(F, Best);
  double BestScore = codelayout::calcExtTspScore(Best, HSize, HCount, HEdges);
  auto consider = [&](ArrayRef<size_t> Seq) {
    std::vector<uint64_t> O = Chains[0];
    for (size_t K : Seq)
      O.insert(O.end(), Chains[K].begin(), Chains[K].end());
    LayoutCost Cost = predictCost(F, O);
    if (Cost.total() > BestCost.total())
      return;
    double Score = codelayout::calcExtTspScore(O, HSize, HCount, HEdges);
    if (Cost.total() == BestCost.total() && Score <= BestScore)
      return;
    Best = std::move(O);
    BestCost = Cost;
    BestScore = Score;
  };
  std::vector<size_t> Seq(Chains.size() - 1);
  std::iota(Seq.begin(), Seq.end(), 1);
  if (Seq.size() <= 5) {
    while (std::next_permutation(Seq.begin(), Seq.end()))
      consider(Seq);
    return Best;
  }
  for (size_t From = 0; From < Seq.size(); ++From)
    for (size_t To = 0; To < Seq.size(); ++To) {
      if (From == To)
        continue;
      std::vector<size_t> Moved = Seq;
      size_t K = Moved[From];
      Moved.erase(Moved.begin() + From);
      Moved.insert(Moved.begin() + To, K);
      consider(Moved);
    }
  return Best;
}

FunctionOptions layoutFunction(const FunctionCfg &C, const BinaryImage &Image,
                               const MachineFunctionBlocks &M,
                               LayoutStats &St) {
  CutBlocks F = cutBlocks(C, Image.instructions(C.Func), M, St);
  std::vector<uint64_t> HSize, HCount;
  for (unsigned K : F.Hot) {
    HSize.push_back(F.Size[K]);
    HCount.push_back(F.Count[K]);
  }
  std::vector<EdgeCount> HEdges;
  for (auto &[SD, Cnt] : F.Edges)
    if (F.HotIndex[SD.first] >= 0 && F.HotIndex[SD.second] >= 0)
      HEdges.push_back({uint64_t(F.HotIndex[SD.first]),
                        uint64_t(F.HotIndex[SD.second]), Cnt});
  // ext-TSP keeps the entry first; clang requires it to begin a cluster.
  auto extTsp = [&](ArrayRef<EdgeCount> Es) {
    std::vector<uint64_t> O = codelayout::computeExtTspLayout(HSize, HCount, Es);
    auto Entry = std::find(O.begin(), O.end(), 0);
    std::rotate(O.begin(), Entry, Entry + 1);
    return O;
  };
  // The orders: the hot blocks in address order (the compiler's layout,
  // which also holds what ext-TSP does not model), ext-TSP's order of all
  // the edges, ext-TSP's order without the edges into aligned blocks
  // (which then fall through only where that costs no other
  // fall-through), ext-TSP's order with those edges at a tenth of their
  // count (ext-TSP's credit for a short jump), and each ext-TSP order
  // with its chains resequenced to run the least padding.
  std::vector<uint64_t> Identity(F.Hot.size());
  std::iota(Identity.begin(), Identity.end(), 0);
  std::vector<std::vector<uint64_t>> Orders{Identity, extTsp(HEdges)};
  std::vector<EdgeCount> Unaligned, Scaled;
  for (EdgeCount E : HEdges) {
    bool IntoAligned = F.Aligned[F.Hot[E.dst]];
    if (!IntoAligned)
      Unaligned.push_back(E);
    if (IntoAligned)
      E.count = (E.count + 5) / 10;
    Scaled.push_back(E);
  }
  if (Unaligned.size() != HEdges.size()) {
    Orders.push_back(extTsp(Unaligned));
    Orders.push_back(extTsp(Scaled));
  }
  for (size_t G = 1, Given = Orders.size(); G < Given; ++G) {
    std::vector<uint64_t> O =
        leastPaddedChains(F, Orders[G], HSize, HCount, HEdges);
    if (O != Orders[G])
      Orders.push_back(std::move(O));
  }
  FunctionOptions R;
  R.L.Func = C.Func;
  R.L.Blocks = unsigned(F.N);
  R.Binary = binaryCost(F);
  for (unsigned K : F.Hot)
    R.HotIds.push_back(M.Blocks[K].Id);
  R.HotSize = HSize;
  for (std::vector<uint64_t> &O : Orders) {
    LayoutOption Opt;
    Opt.Score = codelayout::calcExtTspScore(O, HSize, HCount, HEdges);
    Opt.Cost = predictCost(F, O);
    Opt.Order = std::move(O);
    R.Options.push_back(std::move(Opt));
  }
  R.L.ScoreBefore = R.Options[0].Score;
  R.L.PaddedBefore = R.Binary.Padded;
  R.L.JumpsBefore = R.Binary.Jumps;
  return R;
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
        if (Gain <= 0 || (Extra > 0 && Extra > Budget))
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
  if (S.AlignedByRule)
    OS << formatv("propeller: {0} blocks aligned with no padding before them "
                  "(alignBlocks' rule, on a 16-byte boundary)\n",
                  S.AlignedByRule);
  if (S.MidBlockCount)
    OS << formatv("propeller: {0} of {1} taken-branch counts land inside a "
                  "block and were left out\n",
                  S.MidBlockCount, S.EdgeCount);
}

} // namespace lbr2prof
