//===- Contexts.cpp - the context trie and context-keyed counts -----------===//
//
// Ids are handed out in creation order, so a parent's id is always smaller
// than its children's: merging and renaming walk ids in order and re-intern
// each context under its already re-interned parent.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Aggregate/Contexts.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <map>

using namespace llvm;

namespace lbr2prof {

TransferOracle::~TransferOracle() = default;

ContextTrie::ContextTrie() {
  Parent.push_back(Root);
  Ret.push_back(0);
  Depth.push_back(0);
}

uint32_t ContextTrie::child(uint32_t P, Loc R) {
  auto [It, New] = Children.try_emplace({P, R}, uint32_t(Parent.size()));
  if (New) {
    Parent.push_back(P);
    Ret.push_back(R);
    Depth.push_back(uint16_t(std::min<unsigned>(Depth[P] + 1, 0xffff)));
  }
  return It->second;
}

void ContextTrie::path(uint32_t Id, std::vector<Loc> &Out) const {
  Out.clear();
  for (; Id != Root; Id = Parent[Id])
    Out.push_back(Ret[Id]);
  std::reverse(Out.begin(), Out.end());
}

uint32_t ContextTrie::dropOutermost(uint32_t Id) {
  path(Id, Scratch);
  uint32_t N = Root;
  for (size_t K = 1; K < Scratch.size(); ++K)
    N = child(N, Scratch[K]);
  return N;
}

static void add(ContextCount &C, const ContextCount &V) {
  C.Count = SaturatingAdd(C.Count, V.Count);
  C.Weight += V.Weight;
}

/// Re-interns every context of From into To, with Re applied to each
/// return address; Map[id in From] = id in To.
static std::vector<uint32_t> reintern(const ContextTrie &From, ContextTrie &To,
                                      function_ref<Loc(Loc)> Re) {
  std::vector<uint32_t> Map(From.size(), ContextTrie::Root);
  for (uint32_t Id = 1; Id < From.size(); ++Id)
    Map[Id] = To.child(Map[From.parent(Id)], Re(From.ret(Id)));
  return Map;
}

void ContextCounts::addFrom(const ContextCounts &O, function_ref<Loc(Loc)> Re) {
  std::vector<uint32_t> Map = reintern(O.Trie, Trie, Re);
  for (const auto &[K, V] : O.Branches)
    add(Branches[{Map[K.Ctx], Re(K.A), Re(K.B)}], V);
  for (const auto &[K, V] : O.Ranges)
    add(Ranges[{Map[K.Ctx], Re(K.A), Re(K.B)}], V);
}

void ContextCounts::merge(const ContextCounts &O) {
  addFrom(O, [](Loc L) { return L; });
  ContextStats &S = Stats;
  const ContextStats &T = O.Stats;
  S.Samples += T.Samples;
  S.SamplesWhole += T.SamplesWhole;
  S.SamplesMismatch += T.SamplesMismatch;
  S.SamplesUnusable += T.SamplesUnusable;
  S.Entries += T.Entries;
  S.EntriesLeft += T.EntriesLeft;
  S.DepthCut += T.DepthCut;
}

void ContextCounts::rename(function_ref<Loc(Loc)> Re) {
  ContextCounts R;
  R.addFrom(*this, Re);
  R.Stats = Stats;
  *this = std::move(R);
}

void ContextCounts::print(
    raw_ostream &OS, function_ref<void(raw_ostream &, Loc)> PrintLoc) const {
  // Rows by context; contexts in the order of their paths, so ids (which
  // depend on the order samples were counted in) never show.
  using Row = std::pair<std::pair<Loc, Loc>, uint64_t>;
  DenseMap<uint32_t, std::pair<std::vector<Row>, std::vector<Row>>> ByCtx;
  for (const auto &[K, V] : Branches)
    ByCtx[K.Ctx].first.push_back({{K.A, K.B}, V.Count});
  for (const auto &[K, V] : Ranges)
    ByCtx[K.Ctx].second.push_back({{K.A, K.B}, V.Count});
  std::map<std::vector<Loc>, uint32_t> Order;
  std::vector<Loc> P;
  for (const auto &KV : ByCtx) {
    Trie.path(KV.first, P);
    Order.emplace(P, KV.first);
  }
  for (const auto &[Path, Ctx] : Order) {
    OS << "C";
    for (Loc L : Path) {
      OS << ' ';
      PrintLoc(OS, L);
    }
    OS << '\n';
    auto &Rows = ByCtx[Ctx];
    for (auto [Tag, V] : {std::make_pair('B', &Rows.first),
                          std::make_pair('R', &Rows.second)}) {
      llvm::sort(*V);
      for (const auto &[AB, N] : *V) {
        OS << "  " << Tag << ' ';
        PrintLoc(OS, AB.first);
        OS << ' ';
        PrintLoc(OS, AB.second);
        OS << ' ' << N << '\n';
      }
    }
  }
}

} // namespace lbr2prof
