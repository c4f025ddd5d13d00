//===- FlowInference.cpp - consistent block and edge counts ---------------===//
//
// Sampled counts are estimates: a block's count (from the fall-through
// ranges over it) need not equal the sum of its incoming or outgoing edge
// counts (from taken branches and inferred fall-throughs). This pass finds
// the consistent counts (flow conservation at every block) that deviate
// least from the observed ones, as a minimum-cost flow problem, the approach
// of "Profile Inference Revisited" (He et al., CGO 2022).
//
// Each observed quantity q with value o (a block's count, an edge's count,
// the function's entry count, its exits) becomes an arc of the flow network
// that is assumed to carry o: o is added as excess at the arc's head and
// as deficit at its tail, and two correction arcs let the solver change it:
//   tail -> head, unbounded, cost Inc per unit    (the value grows)
//   head -> tail, capacity o, cost Dec per unit  (the value shrinks)
// A block v is split into v.in -> v.out so that its count is an arc too.
// S feeds the entry and T collects the exits, T -> S closes the circuit,
// and every block can also be entered from S and left to T at a high cost
// (indirect jumps, calls that do not return, code reached from elsewhere),
// which keeps the problem feasible. Routing all excess to the deficits at
// minimum cost (successive shortest paths, Dijkstra with potentials; all
// costs start non-negative) gives the final value of each quantity as
//   o + flow(Inc arc) - flow(Dec arc).
//
// inferConsistentCountsProfi solves the same problem, on the same CFG, with
// LLVM's profi (llvm/Transforms/Utils/SampleProfileInference.h), the solver
// clang uses for -fsample-profile-use-profi and BOLT for stale profiles.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Profile/FlowInference.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Transforms/Utils/SampleProfileInference.h"
#include <algorithm>
#include <limits>
#include <map>
#include <queue>

using namespace llvm;

namespace lbr2prof {

namespace {

constexpr int64_t Unbounded = std::numeric_limits<int64_t>::max() / 4;

/// Minimum-cost flow on a small graph: arcs are stored in pairs (arc, its
/// residual reverse), excess is routed to deficits along shortest paths.
class MinCostFlow {
public:
  explicit MinCostFlow(unsigned N) : Out(N), Excess(N, 0), Pot(N, 0) {}

  /// Adds arc U -> V (capacity Cap, cost per unit Cost >= 0).
  unsigned addArc(unsigned U, unsigned V, int64_t Cap, int64_t Cost) {
    unsigned A = Arcs.size();
    Arcs.push_back({V, Cap, Cost});
    Arcs.push_back({U, 0, -Cost});
    Out[U].push_back(A);
    Out[V].push_back(A + 1);
    Flow0.push_back(Cap);
    return A;
  }
  void addExcess(unsigned V, int64_t X) { Excess[V] += X; }
  /// Flow on arc A (as returned by addArc).
  int64_t flow(unsigned A) const { return Flow0[A / 2] - Arcs[A].Cap; }

  /// Routes every unit of excess to a deficit. False if some excess cannot
  /// reach any deficit (cannot happen with the S/T arcs built below).
  bool solve() {
    const unsigned N = Out.size();
    std::vector<int64_t> Dist(N);
    std::vector<int> Parent(N); // arc into the node on the shortest path
    using QE = std::pair<int64_t, unsigned>;
    for (;;) {
      bool Any = false;
      std::priority_queue<QE, std::vector<QE>, std::greater<QE>> Q;
      std::fill(Dist.begin(), Dist.end(), Unbounded);
      std::fill(Parent.begin(), Parent.end(), -1);
      for (unsigned V = 0; V < N; ++V)
        if (Excess[V] > 0) {
          Dist[V] = 0;
          Q.push({0, V});
          Any = true;
        }
      if (!Any)
        return true;
      int Sink = -1;
      while (!Q.empty()) {
        auto [D, U] = Q.top();
        Q.pop();
        if (D != Dist[U])
          continue;
        if (Excess[U] < 0) {
          Sink = int(U);
          break;
        }
        for (unsigned A : Out[U]) {
          const Arc &R = Arcs[A];
          if (R.Cap <= 0)
            continue;
          int64_t ND = D + R.Cost + Pot[U] - Pot[R.To];
          if (ND < Dist[R.To]) {
            Dist[R.To] = ND;
            Parent[R.To] = int(A);
            Q.push({ND, R.To});
          }
        }
      }
      if (Sink < 0)
        return false;
      // Potentials keep reduced costs non-negative; nodes not settled get
      // the sink's distance (a valid bound).
      int64_t DS = Dist[Sink];
      for (unsigned V = 0; V < N; ++V)
        Pot[V] += std::min(Dist[V], DS);
      // The path back to its source; push what the path and both ends allow.
      int64_t Amount = -Excess[Sink];
      unsigned V = unsigned(Sink);
      while (Parent[V] >= 0) {
        Amount = std::min(Amount, Arcs[Parent[V]].Cap);
        V = Arcs[Parent[V] ^ 1].To;
      }
      unsigned Source = V;
      Amount = std::min(Amount, Excess[Source]);
      for (V = unsigned(Sink); Parent[V] >= 0; V = Arcs[Parent[V] ^ 1].To) {
        Arcs[Parent[V]].Cap -= Amount;
        Arcs[Parent[V] ^ 1].Cap += Amount;
      }
      Excess[Source] -= Amount;
      Excess[Sink] += Amount;
    }
  }

private:
  struct Arc {
    unsigned To;
    int64_t Cap;
    int64_t Cost;
  };
  std::vector<Arc> Arcs;
  std::vector<int64_t> Flow0; // initial capacity of each forward arc
  std::vector<std::vector<unsigned>> Out;
  std::vector<int64_t> Excess;
  std::vector<int64_t> Pot;
};

/// One observed quantity and its two correction arcs.
struct Quantity {
  unsigned Inc = 0, Dec = 0;
  int64_t Observed = 0;
};

Quantity addQuantity(MinCostFlow &G, unsigned Tail, unsigned Head,
                     uint64_t Observed, int64_t IncCost, int64_t DecCost) {
  int64_t O = int64_t(std::min<uint64_t>(Observed, Unbounded / 1024));
  Quantity Q;
  Q.Observed = O;
  Q.Inc = G.addArc(Tail, Head, Unbounded, IncCost);
  Q.Dec = G.addArc(Head, Tail, O, DecCost);
  G.addExcess(Head, O);
  G.addExcess(Tail, -O);
  return Q;
}

int64_t valueOf(const MinCostFlow &G, const Quantity &Q) {
  return Q.Observed + G.flow(Q.Inc) - G.flow(Q.Dec);
}

/// Nodes of block B in the flow network: v.in (entry) and v.out (exit).
unsigned inNode(unsigned B) { return 2 * B; }
unsigned outNode(unsigned B) { return 2 * B + 1; }

/// Index of the block of Cfg that holds Addr, or -1.
int blockOf(const FunctionCfg &Cfg, uint64_t Addr) {
  auto It =
      std::upper_bound(Cfg.Blocks.begin(), Cfg.Blocks.end(), Addr,
                       [](uint64_t A, const Block &B) { return A < B.Start; });
  if (It == Cfg.Blocks.begin())
    return -1;
  --It;
  return Addr < It->End ? int(It - Cfg.Blocks.begin()) : -1;
}

/// Index in Insts of the last instruction of block B, or -1 if none starts
/// in it.
int lastInst(const FunctionCfg &Cfg, ArrayRef<Inst> Insts, unsigned B) {
  int Idx = instIndexAt(Insts, Cfg.Blocks[B].End - 1);
  // End - 1 is inside the last instruction, not its start.
  if (Idx < 0) {
    auto It =
        std::upper_bound(Insts.begin(), Insts.end(), Cfg.Blocks[B].End - 1,
                         [](uint64_t A, const Inst &I) { return A < I.Addr; });
    if (It == Insts.begin())
      return -1;
    Idx = int(It - Insts.begin()) - 1;
  }
  return Insts[Idx].Addr >= Cfg.Blocks[B].Start ? Idx : -1;
}

/// True if an instruction starts at Addr and is a (direct or indirect)
/// call.
bool isCall(ArrayRef<Inst> Insts, uint64_t Addr) {
  int Idx = instIndexAt(Insts, Addr);
  return Idx >= 0 && (Insts[Idx].Kind == InstKind::Call ||
                      Insts[Idx].Kind == InstKind::IndirectCall);
}

/// An edge of the CFG between two blocks (binary addresses of the branch
/// or last instruction and of the target), and its quantity in the network.
struct CfgEdge {
  uint64_t FromAddr = 0, ToAddr = 0;
  uint64_t Count = 0;
  bool Taken = false, Observed = false;
  Quantity Q;
  /// The solved count.
  uint64_t Final = 0;
};
/// The CFG's edges by (source block, target block): a conditional branch
/// to the next block is one edge, whichever way it went.
using CfgEdges = std::map<std::pair<unsigned, unsigned>, CfgEdge>;

/// Adds Count to edge U -> V. A taken branch names the edge's addresses
/// over a fall-through.
void addEdge(CfgEdges &Edges, unsigned U, unsigned V, uint64_t FromAddr,
             uint64_t ToAddr, bool Taken, uint64_t Count, bool Observed) {
  auto [It, New] = Edges.try_emplace({U, V});
  CfgEdge &E = It->second;
  if (New || (Taken && !E.Taken)) {
    E.FromAddr = FromAddr;
    E.ToAddr = ToAddr;
    E.Taken = Taken;
  }
  E.Count += Count;
  E.Observed |= Observed;
}

/// The edges samples saw: taken branches to a block start and
/// fall-throughs. Taken branches that leave the function (returns, tail
/// calls, jumps out) add to ExitCount of their block; calls are skipped.
void addObservedEdges(const FunctionCfg &Cfg, ArrayRef<Inst> Insts,
                      CfgEdges &Edges, std::vector<uint64_t> &ExitCount) {
  for (const Edge &E : Cfg.Taken) {
    int U = blockOf(Cfg, E.From);
    if (U < 0 || isCall(Insts, E.From)) // calls return: not edges of this CFG
      continue;
    int V = E.To == ExternalAddr ? -1 : blockOf(Cfg, E.To);
    if (V >= 0 && Cfg.Blocks[V].Start == E.To)
      addEdge(Edges, unsigned(U), unsigned(V), E.From, E.To, true, E.Count,
              true);
    else
      ExitCount[U] += E.Count; // returns, tail calls, jumps out
  }
  for (const Edge &E : Cfg.FallThrough) {
    int U = blockOf(Cfg, E.From), V = blockOf(Cfg, E.To);
    if (U >= 0 && V >= 0)
      addEdge(Edges, unsigned(U), unsigned(V), E.From, E.To, false, E.Count,
              true);
  }
}

/// The edges the code allows but no sample saw (count 0): into the next
/// block when the last instruction can fall through, and direct branches
/// to a block start inside FS.
void addStaticEdges(const FunctionCfg &Cfg, const FunctionSym &FS,
                    ArrayRef<Inst> Insts, CfgEdges &Edges) {
  const unsigned NB = Cfg.Blocks.size();
  for (unsigned U = 0; U < NB; ++U) {
    int L = lastInst(Cfg, Insts, U);
    if (L < 0)
      continue;
    const Inst &I = Insts[L];
    if (!endsFallThrough(I.Kind) && U + 1 < NB &&
        Cfg.Blocks[U + 1].Start == Cfg.Blocks[U].End)
      addEdge(Edges, U, U + 1, I.Addr, Cfg.Blocks[U + 1].Start, false, 0,
              false);
    uint64_t T = I.target();
    if ((I.Kind == InstKind::CondBranch || I.Kind == InstKind::UncondBranch) &&
        T >= FS.Start && T < FS.End) {
      int V = blockOf(Cfg, T);
      if (V >= 0 && Cfg.Blocks[V].Start == T)
        addEdge(Edges, U, unsigned(V), I.Addr, T, true, 0, false);
    }
  }
}

/// Writes the solved edge counts back: taken edges update Cfg.Taken (new
/// ones with a count are appended; the list ends sorted by address), and
/// fall-throughs with a count replace Cfg.FallThrough.
void writeEdgeCounts(const CfgEdges &Edges, FunctionCfg &Cfg) {
  DenseMap<std::pair<uint64_t, uint64_t>, uint64_t> NewTaken;
  Cfg.FallThrough.clear();
  for (const auto &[UV, E] : Edges) {
    if (E.Taken)
      NewTaken[{E.FromAddr, E.ToAddr}] = E.Final;
    else if (E.Final > 0)
      Cfg.FallThrough.push_back({E.FromAddr, E.ToAddr, E.Final, 0, 0});
  }
  for (Edge &E : Cfg.Taken) {
    auto It = NewTaken.find({E.From, E.To});
    if (It == NewTaken.end())
      continue;
    E.Count = It->second;
    NewTaken.erase(It);
  }
  for (const auto &[K, V] : NewTaken)
    if (V > 0)
      Cfg.Taken.push_back({K.first, K.second, V, 0, 0});
  auto ByAddr = [](const Edge &A, const Edge &B) {
    return std::tie(A.From, A.To) < std::tie(B.From, B.To);
  };
  std::sort(Cfg.Taken.begin(), Cfg.Taken.end(), ByAddr);
}

/// Recomputes Cfg.InstCounts: every instruction of a block with a count
/// gets the block's count.
void writeInstCounts(ArrayRef<Inst> Insts, FunctionCfg &Cfg) {
  Cfg.InstCounts.clear();
  for (const Block &B : Cfg.Blocks) {
    if (!B.Count)
      continue;
    auto It =
        std::lower_bound(Insts.begin(), Insts.end(), B.Start,
                         [](const Inst &I, uint64_t A) { return I.Addr < A; });
    for (; It != Insts.end() && It->Addr < B.End; ++It)
      Cfg.InstCounts.push_back({It->Addr, B.Count});
  }
}

} // namespace

/// What both solvers start from: the function's instructions, its CFG
/// edges (observed taken branches and fall-throughs, then the ones the code
/// allows but no sample saw) and each block's observed exits. False if the
/// function has nothing to infer.
static bool collectFlowInput(const FunctionCfg &Cfg, const BinaryImage &Image,
                             ArrayRef<Inst> &Insts, CfgEdges &Edges,
                             std::vector<uint64_t> &ExitCount) {
  Insts = Image.instructions(Cfg.Func);
  if (Cfg.Blocks.empty() || Insts.empty())
    return false;
  ExitCount.assign(Cfg.Blocks.size(), 0);
  addObservedEdges(Cfg, Insts, Edges, ExitCount);
  addStaticEdges(Cfg, Image.functions()[Cfg.Func], Insts, Edges);
  return true;
}

bool inferConsistentCounts(FunctionCfg &Cfg, const BinaryImage &Image,
                           const FlowInferenceCosts &C) {
  ArrayRef<Inst> Insts;
  CfgEdges Edges;
  std::vector<uint64_t> ExitCount;
  if (!collectFlowInput(Cfg, Image, Insts, Edges, ExitCount))
    return false;
  const unsigned NB = Cfg.Blocks.size();
  const unsigned S = 2 * NB, T = 2 * NB + 1;
  MinCostFlow G(2 * NB + 2);
  std::vector<Quantity> BlockQ(NB);
  for (unsigned B = 0; B < NB; ++B)
    BlockQ[B] = addQuantity(G, inNode(B), outNode(B), Cfg.Blocks[B].Count,
                            Cfg.Blocks[B].Count ? C.IncBlock : C.IncColdBlock,
                            C.DecBlock);

  for (auto &[UV, E] : Edges)
    E.Q = addQuantity(G, outNode(UV.first), inNode(UV.second), E.Count,
                      E.Observed ? C.IncEdge : C.IncUnseenEdge, C.DecEdge);

  Quantity Entry =
      addQuantity(G, S, inNode(0), Cfg.EntryCount, C.IncEntry, C.DecEntry);
  for (unsigned B = 0; B < NB; ++B) {
    if (B > 0)
      G.addArc(S, inNode(B), Unbounded, C.Elsewhere);
    if (ExitCount[B])
      addQuantity(G, outNode(B), T, ExitCount[B], C.IncExit, C.DecExit);
    G.addArc(outNode(B), T, Unbounded, C.Elsewhere);
  }
  G.addArc(T, S, Unbounded, 0);
  if (!G.solve())
    return false;

  // Write the consistent counts back.
  for (unsigned B = 0; B < NB; ++B)
    Cfg.Blocks[B].Count = uint64_t(std::max<int64_t>(0, valueOf(G, BlockQ[B])));
  Cfg.EntryCount = uint64_t(std::max<int64_t>(0, valueOf(G, Entry)));
  for (auto &[UV, E] : Edges)
    E.Final = uint64_t(std::max<int64_t>(0, valueOf(G, E.Q)));
  writeEdgeCounts(Edges, Cfg);
  writeInstCounts(Insts, Cfg);
  return true;
}

/// Adds a jump to profi's graph. A jump's weight is known if samples saw
/// it (an observed count, or the entry and exit counts); an edge only the
/// code allows is unknown, which is what makes raising it cost more
/// (CostJumpUnknownInc). Profi wants a known jump weight to be positive.
static void addJump(FlowFunction &F, uint64_t From, uint64_t To, uint64_t W,
                    bool Known, bool Unlikely) {
  FlowJump J;
  J.Source = From;
  J.Target = To;
  J.Weight = W;
  J.HasUnknownWeight = !Known;
  J.IsUnlikely = Unlikely;
  F.Jumps.push_back(J);
}

/// Blocks with no path to Sink (a loop left by a call that does not
/// return) would hold flow profi cannot route: each gets an unlikely exit.
static void addExitsToUnreachedBlocks(FlowFunction &F, uint64_t Sink) {
  std::vector<std::vector<uint64_t>> Preds(F.Blocks.size());
  for (const FlowJump &J : F.Jumps)
    Preds[J.Target].push_back(J.Source);
  std::vector<bool> Reaches(F.Blocks.size(), false);
  std::vector<uint64_t> Work{Sink};
  Reaches[Sink] = true;
  while (!Work.empty()) {
    uint64_t V = Work.back();
    Work.pop_back();
    for (uint64_t U : Preds[V])
      if (!Reaches[U]) {
        Reaches[U] = true;
        Work.push_back(U);
      }
  }
  for (uint64_t B = 1; B < Sink; ++B)
    if (!Reaches[B])
      addJump(F, B, Sink, 0, false, true);
}

/// Profi's graph of Cfg: block B of the CFG is B + 1; 0 is a dummy entry
/// (profi wants one block without predecessors, at index 0) and NB + 1 a
/// dummy sink (a block without successors is an exit). The CFG edges are
/// the first jumps, in Edges' order; the entry's jump is at EntryJump.
static void buildProfiGraph(const FunctionCfg &Cfg, const CfgEdges &Edges,
                            ArrayRef<uint64_t> ExitCount, FlowFunction &F,
                            size_t &EntryJump) {
  const unsigned NB = Cfg.Blocks.size();
  const uint64_t Entry = 0, Sink = NB + 1;
  F.Entry = Entry;
  F.Blocks.resize(NB + 2);
  for (uint64_t I = 0; I < NB + 2; ++I)
    F.Blocks[I].Index = I;
  for (unsigned B = 0; B < NB; ++B) {
    F.Blocks[B + 1].Weight = Cfg.Blocks[B].Count;
    F.Blocks[B + 1].HasUnknownWeight = false;
  }
  for (const auto &[UV, E] : Edges)
    addJump(F, UV.first + 1, UV.second + 1, E.Count,
            E.Observed && E.Count > 0, false);
  addJump(F, Entry, 1, Cfg.EntryCount, Cfg.EntryCount > 0, false);
  EntryJump = F.Jumps.size() - 1;
  std::vector<bool> HasSucc(NB + 2, false), HasPred(NB + 2, false);
  for (const FlowJump &J : F.Jumps) {
    HasSucc[J.Source] = true;
    HasPred[J.Target] = true;
  }
  // Returns, tail calls and jumps out, and blocks the code leaves by an
  // indirect jump no sample followed: into the sink.
  for (unsigned B = 0; B < NB; ++B)
    if (ExitCount[B] || !HasSucc[B + 1])
      addJump(F, B + 1, Sink, ExitCount[B], ExitCount[B] > 0, false);
  // Code entered only from elsewhere (a jump table, a landing pad): from
  // the entry, but unlikely, as our solver's Elsewhere arcs.
  for (unsigned B = 1; B < NB; ++B)
    if (!HasPred[B + 1])
      addJump(F, Entry, B + 1, 0, false, true);
  addExitsToUnreachedBlocks(F, Sink);
  // Every jump is in place: the blocks can point at them.
  for (FlowJump &J : F.Jumps) {
    F.Blocks[J.Source].SuccJumps.push_back(&J);
    F.Blocks[J.Target].PredJumps.push_back(&J);
  }
}

/// Our costs, in profi's terms. A fall-through (target = source + 1) has
/// costs of its own in profi; ours are the same for both kinds of edge.
static ProfiParams profiParams(const FlowInferenceCosts &C) {
  ProfiParams P;
  P.EvenFlowDistribution = true;
  P.RebalanceUnknown = true;
  P.JoinIslands = true;
  P.CostBlockInc = unsigned(C.IncBlock);
  P.CostBlockDec = unsigned(C.DecBlock);
  P.CostBlockZeroInc = unsigned(C.IncColdBlock);
  P.CostBlockEntryInc = unsigned(C.IncEntry);
  P.CostBlockEntryDec = unsigned(C.DecEntry);
  P.CostBlockUnknownInc = 0; // the dummies
  P.CostJumpInc = P.CostJumpFTInc = unsigned(C.IncEdge);
  P.CostJumpDec = P.CostJumpFTDec = unsigned(C.DecEdge);
  P.CostJumpUnknownInc = P.CostJumpUnknownFTInc = unsigned(C.IncUnseenEdge);
  return P;
}

bool inferConsistentCountsProfi(FunctionCfg &Cfg, const BinaryImage &Image,
                                const FlowInferenceCosts &C) {
  ArrayRef<Inst> Insts;
  CfgEdges Edges;
  std::vector<uint64_t> ExitCount;
  if (!collectFlowInput(Cfg, Image, Insts, Edges, ExitCount))
    return false;
  FlowFunction F;
  size_t EntryJump = 0;
  buildProfiGraph(Cfg, Edges, ExitCount, F, EntryJump);
  applyFlowInference(profiParams(C), F);

  for (unsigned B = 0; B < Cfg.Blocks.size(); ++B)
    Cfg.Blocks[B].Count = F.Blocks[B + 1].Flow;
  Cfg.EntryCount = F.Jumps[EntryJump].Flow;
  size_t J = 0;
  for (auto &[UV, E] : Edges)
    E.Final = F.Jumps[J++].Flow;
  writeEdgeCounts(Edges, Cfg);
  writeInstCounts(Insts, Cfg);
  return true;
}

bool inferConsistentCounts(FunctionCfg &Cfg, const BinaryImage &Image,
                           FlowInferenceMethod Method) {
  switch (Method) {
  case FlowInferenceMethod::None:
    return false;
  case FlowInferenceMethod::MinCostFlow:
    return inferConsistentCounts(Cfg, Image);
  case FlowInferenceMethod::Profi:
    return inferConsistentCountsProfi(Cfg, Image);
  }
  return false;
}

} // namespace lbr2prof
