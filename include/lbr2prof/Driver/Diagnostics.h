//===- Diagnostics.h - every warning and note of a run ----------*- C++ -*-===//
//
// One collector for what a run has to tell besides its result: the reader's
// survived faults, the assumed load address, debug-info complaints, counts
// that look wrong. Everything is kept until the run ends and printed with
// one prefix ("lbr2prof: warning: " or "lbr2prof: note: "), repeats once,
// in the order first seen; a run that fails prints only its error, one line.
//
// Checks on a run's counts (`ratio`) are made whether or not --stats is
// given, and say the share and both counts ("12.5% (3 of 24) ...").
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_DRIVER_DIAGNOSTICS_H
#define LBR2PROF_DRIVER_DIAGNOSTICS_H

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <string>
#include <vector>

namespace lbr2prof {

class Diagnostics {
public:
  enum class Kind { Warning, Note };

  void warning(const llvm::Twine &Msg) { add(Kind::Warning, Msg); }
  void note(const llvm::Twine &Msg) { add(Kind::Note, Msg); }
  /// A warning about Part of Whole, given only when Part / Whole exceeds
  /// Threshold: "<pct>% (<Part> of <Whole>) <What>". Returns whether it
  /// was given.
  bool ratio(uint64_t Part, uint64_t Whole, double Threshold,
             const llvm::Twine &What);

  /// Prints everything collected (warnings and notes in the order first
  /// seen) and forgets it.
  void print(llvm::raw_ostream &OS);

  size_t warnings() const { return Warnings; }
  size_t size() const { return Lines.size(); }

private:
  void add(Kind K, const llvm::Twine &Msg);
  std::vector<std::pair<Kind, std::string>> Lines;
  llvm::StringSet<> Seen;
  size_t Warnings = 0;
};

} // namespace lbr2prof

#endif
