//===- Fdata.cpp - fdata, pre-aggregated and no_lbr writers ---------------===//
//
// Serialization only: every decision about which edges exist was made in
// lib/Profile. Output is sorted so that equal inputs give equal files.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Writers/Fdata.h"
#include "lbr2prof/Support/Parallel.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"
#include <algorithm>
#include <map>

using namespace llvm;

namespace lbr2prof {

std::string boltName(const BinaryImage &Image, const FunctionSym &F) {
  std::string N;
  for (char C : F.Name) {
    if (C == ' ')
      N += '\\';
    N += C;
  }
  if (F.Local)
    N += "/" + std::to_string(F.LocalId ? F.LocalId : 1);
  return N;
}

namespace {
/// Writes "1 name off" or "0 [unknown] 0" for binary addresses; the name of
/// the last function written is kept (fdata lines come by source address,
/// so most sources are in the function of the line before).
class LocationWriter {
public:
  LocationWriter(const BinaryImage &Image, raw_ostream &OS)
      : Image(Image), OS(OS) {}
  void write(uint64_t A) {
    int F = A == ExternalAddr ? -1 : functionAt(A);
    if (F < 0) {
      OS << "0 [unknown] 0";
      return;
    }
    const FunctionSym &FS = Image.functions()[F];
    if (F != Last) {
      Name = boltName(Image, FS);
      Last = F;
    }
    OS << "1 " << Name << ' ';
    OS.write_hex(A - FS.Start);
  }

private:
  /// Image.functionAt(A), without its search when A is in the last
  /// function and before the next one's start.
  int functionAt(uint64_t A) const {
    ArrayRef<FunctionSym> Fs = Image.functions();
    if (Last >= 0 && A >= Fs[Last].Start && A < Fs[Last].End &&
        (size_t(Last) + 1 == Fs.size() || A < Fs[Last + 1].Start))
      return Last;
    return Image.functionAt(A);
  }
  const BinaryImage &Image;
  raw_ostream &OS;
  int Last = -1;
  std::string Name;
};

/// One fdata line before its duplicates are summed.
struct FdataEdge {
  uint64_t From, To, Mispred, Count;
};
} // namespace

void writeFdata(const BinaryProfile &P, const BinaryImage &Image,
                raw_ostream &OS, unsigned Threads) {
  // (from, to) -> {mispreds, count}; taken branches and fall-throughs share
  // the key space as in BOLT's own aggregation: collected, sorted by
  // (from, to), and summed where equal.
  auto ByFromTo = [](const FdataEdge &A, const FdataEdge &B) {
    return std::tie(A.From, A.To) < std::tie(B.From, B.To);
  };
  std::vector<FdataEdge> Out;
  // Entries from outside the binary into a function (from address 0,
  // ExternalAddr: first), then each function's edges.
  for (const Edge &E : P.Branches) {
    if (E.From != ExternalAddr && Image.functionAt(E.From) >= 0)
      continue;
    if (E.To == ExternalAddr || Image.functionAt(E.To) < 0)
      continue;
    Out.push_back({ExternalAddr, E.To, E.Mispred, E.Count});
  }
  llvm::sort(Out, ByFromTo);
  // Each function's edges, one sorted run per function, gathered on the
  // threads in place: each function writes from the sum of the edges of
  // those before it (an upper bound), and the runs close up after.
  std::vector<std::pair<unsigned, const FunctionCfg *>> Funcs;
  Funcs.reserve(P.Functions.size());
  for (const auto &[F, Cfg] : P.Functions)
    Funcs.push_back({F, &Cfg});
  unsigned T = Funcs.size() >= 256 ? std::max(1u, Threads) : 1;
  std::vector<size_t> At(Funcs.size() + 1), Len(Funcs.size());
  At[0] = Out.size();
  for (size_t I = 0; I < Funcs.size(); ++I)
    At[I + 1] = At[I] + Funcs[I].second->Taken.size() +
                Funcs[I].second->FallThrough.size();
  Out.resize(At.back());
  parallelChunks(Funcs.size(), T, 256, [&](size_t B, size_t E) {
    for (size_t I = B; I < E; ++I) {
      auto [F, Cfg] = Funcs[I];
      ArrayRef<Inst> Insts = Image.instructions(F);
      FdataEdge *Run = Out.data() + At[I], *End = Run;
      for (const Edge &Ed : Cfg->Taken) {
        int Idx = instIndexAt(Insts, Ed.From);
        if (Idx >= 0 && Insts[Idx].Kind == InstKind::Return)
          continue;
        if (Ed.To != ExternalAddr && Image.functionAt(Ed.To) < 0)
          continue;
        *End++ = {Ed.From, Ed.To, Ed.Mispred, Ed.Count};
      }
      FdataEdge *Mid = End;
      for (const Edge &Ed : Cfg->FallThrough)
        *End++ = {Ed.From, Ed.To, 0, Ed.Count};
      // Both are sorted by (from, to).
      std::inplace_merge(Run, Mid, End, ByFromTo);
      Len[I] = size_t(End - Run);
    }
  });
  size_t Filled = At[0];
  for (size_t I = 0; I < Funcs.size(); ++I) {
    if (Filled != At[I])
      std::move(Out.begin() + At[I], Out.begin() + At[I] + Len[I],
                Out.begin() + Filled);
    Filled += Len[I];
  }
  Out.resize(Filled);
  // Functions come by address, so the runs are mostly in order already.
  if (!std::is_sorted(Out.begin(), Out.end(), ByFromTo))
    llvm::sort(Out, ByFromTo);
  // The lines, formatted in parts of at most 16k entries on the threads (a
  // part never splits the entries of one (from, to)), a window of parts at
  // a time written in order: the text is never held whole.
  constexpr size_t PartSize = 16384;
  size_t NumParts = T > 1 ? (Out.size() + PartSize - 1) / PartSize : 1;
  std::vector<size_t> Cuts{0};
  for (size_t K = 1; K < NumParts; ++K) {
    size_t C = std::max(Cuts.back(), std::min(Out.size(), K * PartSize));
    while (C > 0 && C < Out.size() && Out[C].From == Out[C - 1].From &&
           Out[C].To == Out[C - 1].To)
      ++C;
    Cuts.push_back(C);
  }
  Cuts.push_back(Out.size());
  size_t Window = 4 * size_t(T);
  std::vector<std::string> Text(Window);
  for (size_t First = 0; First < NumParts; First += Window) {
    size_t N = std::min(Window, NumParts - First);
    parallelChunks(N, T, 1, [&](size_t B, size_t E) {
      for (size_t W = B; W < E; ++W) {
        size_t Part = First + W;
        Text[W].clear();
        // Buffered: a raw_string_ostream appends each small write to the
        // string on its own.
        raw_string_ostream S(Text[W]);
        S.SetBuffered();
        LocationWriter L(Image, S);
        for (size_t K = Cuts[Part]; K < Cuts[Part + 1];) {
          FdataEdge Ed = Out[K];
          for (++K; K < Cuts[Part + 1] && Out[K].From == Ed.From &&
                    Out[K].To == Ed.To;
               ++K) {
            Ed.Mispred += Out[K].Mispred;
            Ed.Count += Out[K].Count;
          }
          if (Ed.To == ExternalAddr && Ed.From == ExternalAddr)
            continue;
          L.write(Ed.From);
          S << ' ';
          L.write(Ed.To);
          S << ' ' << Ed.Mispred << ' ' << Ed.Count << '\n';
        }
        S.flush();
      }
    });
    for (size_t W = 0; W < N; ++W)
      OS << Text[W];
  }
}

std::optional<uint64_t> addrOf(Loc L, int Dso, const BinaryImage &Image) {
  if (L == ExternalLoc || locDso(L) != Dso)
    return std::nullopt;
  return Image.fileOffsetToAddr(locOffset(L));
}

void writePreAggregated(const RawProfile &Raw, int Dso,
                        const BinaryImage &Image, raw_ostream &OS) {
  std::map<std::pair<uint64_t, uint64_t>, std::pair<uint64_t, uint64_t>> B;
  for (const auto &[K, C] : Raw.Branches) {
    auto F = addrOf(K.first, Dso, Image), T = addrOf(K.second, Dso, Image);
    if (!F || !T)
      continue;
    auto &V = B[{*F, *T}];
    uint64_t Est = Raw.estimate(C.Weight, C.Count);
    V.first += Est;
    V.second += C.Count ? uint64_t(double(C.Mispred) * Est / C.Count + 0.5) : 0;
  }
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> R;
  for (const auto &[K, C] : Raw.Ranges) {
    auto F = addrOf(K.first, Dso, Image), T = addrOf(K.second, Dso, Image);
    if (F && T)
      R[{*F, *T}] += Raw.estimate(C.Weight, C.Count);
  }
  // For a PIE, BOLT expects offsets from the first PT_LOAD's address.
  uint64_t Base = 0;
  if (Image.isPositionIndependent() && !Image.segments().empty())
    Base = Image.segments().front().VAddr & ~0xfffULL;
  for (const auto &[K, V] : B)
    OS << "B " << format_hex_no_prefix(K.first - Base, 0) << ' '
       << format_hex_no_prefix(K.second - Base, 0) << ' ' << V.first << ' '
       << V.second << '\n';
  for (const auto &[K, V] : R)
    OS << "F " << format_hex_no_prefix(K.first - Base, 0) << ' '
       << format_hex_no_prefix(K.second - Base, 0) << ' ' << V << '\n';
}

void writeNoLbrFdata(const RawProfile &Raw, int Dso, const BinaryImage &Image,
                     StringRef Event, raw_ostream &OS) {
  std::map<uint64_t, uint64_t> Ips;
  for (const auto &[L, C] : Raw.Ips)
    if (auto A = addrOf(L, Dso, Image))
      if (Image.functionAt(*A) >= 0)
        Ips[*A] += C;
  OS << "no_lbr " << Event << '\n';
  LocationWriter L(Image, OS);
  for (const auto &[A, C] : Ips) {
    L.write(A);
    OS << ' ' << C << '\n';
  }
}

} // namespace lbr2prof
