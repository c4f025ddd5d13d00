//===- Progress.cpp - terminal progress line ------------------------------===//
//
// Draws "label: 1.2 GB / 3.4 GB (35%), 1.1 GB/s" with a carriage return.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Support/Progress.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

using namespace llvm;
namespace lbr2prof {

Progress::Progress(StringRef Label, uint64_t Total)
    : Label(Label.str()), Total(Total) {
  Enabled = sys::Process::StandardErrIsDisplayed() &&
            !std::getenv("LBR2PROF_NO_PROGRESS");
  Start = Last = std::chrono::steady_clock::now();
}

Progress::~Progress() { finish(); }

void Progress::redraw(uint64_t Done) {
  auto Now = std::chrono::steady_clock::now();
  if (Now - Last < std::chrono::milliseconds(200))
    return;
  Last = Now;
  double Secs = std::chrono::duration<double>(Now - Start).count();
  double MB = Done / 1e6;
  errs() << "\r" << Label << ": " << format("%.0f MB", MB);
  if (Total)
    errs() << format(" / %.0f MB (%.0f%%)", Total / 1e6, 100.0 * Done / Total);
  if (Secs > 0)
    errs() << format(", %.0f MB/s", MB / Secs);
  errs() << "   ";
  Drawn = true;
}

void Progress::step(StringRef Step) {
  if (!Enabled)
    return;
  errs() << "\r\033[K" << Label << ": " << Step << "...";
  errs().flush();
  Drawn = true;
}

void Progress::finish() {
  if (Drawn)
    errs() << "\r\033[K";
  Drawn = false;
}

} // namespace lbr2prof
