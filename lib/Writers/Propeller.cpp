//===- Propeller.cpp - Propeller's cluster list and symbol order ----------===//
//
// Propeller.h shows both formats. Serialization only: the layout is
// BlockLayout's.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Writers/Propeller.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include <set>

using namespace llvm;

namespace lbr2prof {

size_t writePropellerClusters(const PropellerLayout &L,
                              const BinaryImage &Image, raw_ostream &OS,
                              size_t &Skipped) {
  StringMap<unsigned> Uses;
  for (const FunctionSym &F : Image.functions())
    if (!F.Plt)
      ++Uses[F.Name];
  std::set<std::pair<StringRef, StringRef>> Written;
  size_t N = 0;
  Skipped = 0;
  OS << "v1\n";
  for (const FunctionLayout &FL : L.Functions) {
    const FunctionSym &F = Image.functions()[FL.Func];
    bool Shared = Uses.lookup(F.Name) > 1;
    if (Shared && (!F.Local || F.File.empty())) {
      ++Skipped;
      continue;
    }
    if (!Written.insert({Shared ? F.File : StringRef(), F.Name}).second) {
      ++Skipped;
      continue;
    }
    if (Shared)
      OS << "m " << F.File << "\n";
    OS << "f " << F.Name;
    for (StringRef A : F.Aliases)
      OS << " " << A;
    OS << "\nc";
    for (uint32_t Id : FL.Cluster)
      OS << " " << Id;
    OS << "\n";
    ++N;
  }
  return N;
}

void writeSymbolOrder(const PropellerLayout &L, const BinaryImage &Image,
                      raw_ostream &OS) {
  StringSet<> Seen;
  for (const FunctionLayout &FL : L.Functions) {
    StringRef Name = Image.functions()[FL.Func].Name;
    if (Seen.insert(Name).second)
      OS << Name << "\n";
  }
}

} // namespace lbr2prof
