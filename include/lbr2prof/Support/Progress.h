//===- Progress.h - progress on a terminal, silence elsewhere -*- C++ -*-===//
//
// A Progress meter redraws one line on stderr at most a few times a second,
// and only when stderr is a terminal and LBR2PROF_NO_PROGRESS is unset.
// update() is cheap enough to call per record: it checks the clock only
// every few thousand calls. step() names a stage instead ("label:
// writing..."), for work whose amount is not known.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_SUPPORT_PROGRESS_H
#define LBR2PROF_SUPPORT_PROGRESS_H

#include "llvm/ADT/StringRef.h"
#include <chrono>
#include <cstdint>
#include <string>

namespace lbr2prof {

class Progress {
public:
  /// Label is shown before the figures; Total is in bytes (0 if unknown).
  Progress(llvm::StringRef Label, uint64_t Total);
  ~Progress();
  /// Reports that Done bytes of Total have been processed.
  void update(uint64_t Done) {
    if (!Enabled || ++Calls % 4096 != 0)
      return;
    redraw(Done);
  }
  /// Shows "Label: Step..." at once, in place of what was drawn.
  void step(llvm::StringRef Step);
  /// Erases the line.
  void finish();

private:
  void redraw(uint64_t Done);
  std::string Label;
  uint64_t Total;
  uint64_t Calls = 0;
  bool Enabled;
  bool Drawn = false;
  std::chrono::steady_clock::time_point Start, Last;
};

} // namespace lbr2prof

#endif
