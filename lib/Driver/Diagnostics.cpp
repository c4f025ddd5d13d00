//===- Diagnostics.cpp - every warning and note of a run ------------------===//
#include "lbr2prof/Driver/Diagnostics.h"
#include "llvm/Support/Format.h"

using namespace llvm;

namespace lbr2prof {

void Diagnostics::add(Kind K, const Twine &Msg) {
  std::string S = Msg.str();
  std::string Key = (K == Kind::Warning ? "w" : "n") + S;
  if (!Seen.insert(Key).second)
    return;
  if (K == Kind::Warning)
    ++Warnings;
  Lines.emplace_back(K, std::move(S));
}

bool Diagnostics::ratio(uint64_t Part, uint64_t Whole, double Threshold,
                        const Twine &What) {
  if (!Whole || double(Part) <= Threshold * double(Whole))
    return false;
  std::string Pct;
  raw_string_ostream(Pct) << format("%.1f%%", 100.0 * Part / Whole);
  warning(Pct + " (" + Twine(Part) + " of " + Twine(Whole) + ") " + What);
  return true;
}

void Diagnostics::print(raw_ostream &OS) {
  for (const auto &[K, S] : Lines)
    OS << (K == Kind::Warning ? "lbr2prof: warning: " : "lbr2prof: note: ")
       << S << '\n';
  Lines.clear();
  Seen.clear();
  Warnings = 0;
}

} // namespace lbr2prof
