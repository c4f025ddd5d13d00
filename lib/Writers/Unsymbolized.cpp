//===- Unsymbolized.cpp - llvm-profgen's unsymbolized profile -------------===//
#include "lbr2prof/Writers/Unsymbolized.h"
#include "lbr2prof/Writers/Fdata.h"
#include "llvm/Support/Format.h"
#include <map>

using namespace llvm;

namespace lbr2prof {

uint64_t unsymbolizedBase(const BinaryImage &Image) {
  for (const Segment &S : Image.segments())
    if (S.Exec)
      return S.VAddr;
  return 0;
}

void writeUnsymbolized(const RawProfile &Raw, int Dso,
                       const BinaryImage &Image, raw_ostream &OS) {
  // llvm-profgen's sentinel for "outside the binary" is address 1; offsets
  // wrap below the base, as its own output does (1 - 0x1000 is
  // fffffffffffff001).
  const uint64_t External = 1;
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> Ranges, Branches;
  for (const auto &[K, C] : Raw.Ranges) {
    auto B = addrOf(K.first, Dso, Image), E = addrOf(K.second, Dso, Image);
    if (B && E && *B <= *E)
      Ranges[{*B, *E}] += Raw.estimate(C.Weight, C.Count);
  }
  for (const auto &[K, C] : Raw.Branches) {
    auto T = addrOf(K.second, Dso, Image);
    if (!T)
      continue;
    auto F = addrOf(K.first, Dso, Image);
    Branches[{F ? *F : External, *T}] += Raw.estimate(C.Weight, C.Count);
  }
  uint64_t Base = unsymbolizedBase(Image);
  auto hex = [&](uint64_t A) { return format_hex_no_prefix(A - Base, 0); };
  OS << Ranges.size() << '\n';
  for (const auto &[K, N] : Ranges)
    OS << hex(K.first) << '-' << hex(K.second) << ':' << N << '\n';
  OS << Branches.size() << '\n';
  for (const auto &[K, N] : Branches)
    OS << hex(K.first) << "->" << hex(K.second) << ':' << N << '\n';
}

} // namespace lbr2prof
