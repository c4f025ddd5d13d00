//===- Fdata.cpp - fdata, pre-aggregated and no_lbr writers ---------------===//
//
// Serialization only: every decision about which edges exist was made in
// lib/Profile. Output is sorted so that equal inputs give equal files.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Writers/Fdata.h"
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
/// "1 name off" or "0 [unknown] 0" for a binary address.
std::string location(const BinaryImage &Image, uint64_t A) {
  int F = A == ExternalAddr ? -1 : Image.functionAt(A);
  if (F < 0)
    return "0 [unknown] 0";
  const FunctionSym &FS = Image.functions()[F];
  std::string S;
  raw_string_ostream OS(S);
  OS << "1 " << boltName(Image, FS) << ' ';
  OS.write_hex(A - FS.Start);
  return OS.str();
}
} // namespace

void writeFdata(const BinaryProfile &P, const BinaryImage &Image,
                raw_ostream &OS) {
  // (from, to) -> {mispreds, count}; taken branches and fall-throughs share
  // the key space as in BOLT's own aggregation.
  std::map<std::pair<uint64_t, uint64_t>, std::pair<uint64_t, uint64_t>> Out;
  for (const auto &[F, Cfg] : P.Functions) {
    ArrayRef<Inst> I = Image.instructions(F);
    for (const Edge &E : Cfg.Taken) {
      int Idx = instIndexAt(I, E.From);
      if (Idx >= 0 && I[Idx].Kind == InstKind::Return)
        continue;
      if (E.To != ExternalAddr && Image.functionAt(E.To) < 0)
        continue;
      auto &V = Out[{E.From, E.To}];
      V.first += E.Mispred;
      V.second += E.Count;
    }
    for (const Edge &E : Cfg.FallThrough)
      Out[{E.From, E.To}].second += E.Count;
  }
  // Entries from outside the binary into a function.
  for (const Edge &E : P.Branches) {
    if (E.From != ExternalAddr && Image.functionAt(E.From) >= 0)
      continue;
    if (E.To == ExternalAddr || Image.functionAt(E.To) < 0)
      continue;
    auto &V = Out[{ExternalAddr, E.To}];
    V.first += E.Mispred;
    V.second += E.Count;
  }
  for (const auto &[K, V] : Out) {
    if (K.second == ExternalAddr && K.first == ExternalAddr)
      continue;
    OS << location(Image, K.first) << ' ' << location(Image, K.second) << ' '
       << V.first << ' ' << V.second << '\n';
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
  for (const auto &[A, C] : Ips)
    OS << location(Image, A) << ' ' << C << '\n';
}

} // namespace lbr2prof
