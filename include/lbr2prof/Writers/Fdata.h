//===- Fdata.h - BOLT profile writers ---------------------------*- C++ -*-===//
//
// Writes a BinaryProfile in the forms llvm-bolt reads:
//  - fdata (`llvm-bolt -data=FILE`), one line per edge
//      <kind> <name> <hex offset> <kind> <name> <hex offset> <mispreds> <count>
//    kind 1 = function symbol, 0 = unknown ("[unknown]"). Taken branches
//    (calls included, returns not, as perf2bolt writes them) and inferred
//    fall-throughs as branches from the last instruction of a block to the
//    next block, mispreds 0;
//  - pre-aggregated text (`--pa`, the B/F/f subset of LLVM 19):
//      B <from> <to> <count> <mispreds>   taken branch
//      F <start> <end> <count>            fall-through range
//    with hex link-time addresses;
//  - no_lbr fdata (IP samples only, as perf2bolt -nl):
//      no_lbr <event>
//      1 <name> <hex offset> <count>
// Local function names follow BOLT: "name/N" where N ranks same-named local
// symbols in address order.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_WRITERS_FDATA_H
#define LBR2PROF_WRITERS_FDATA_H

#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "lbr2prof/Binary/BinaryImage.h"
#include "lbr2prof/Profile/BinaryProfile.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>

namespace lbr2prof {

/// The link-time address of L if it is in DSO Dso (Image's file), else
/// nothing (another file, or outside any).
std::optional<uint64_t> addrOf(Loc L, int Dso, const BinaryImage &Image);

/// BOLT's name for function F of Image.
std::string boltName(const BinaryImage &Image, const FunctionSym &F);

/// P's branches and fall-throughs as BOLT's fdata, sorted and summed by
/// (from, to); the edges are gathered and the lines formatted on up to
/// Threads threads (the file is the same for any number).
void writeFdata(const BinaryProfile &P, const BinaryImage &Image,
                llvm::raw_ostream &OS, unsigned Threads = 1);

/// Pre-aggregated form from the raw (validated by BOLT itself) counts of DSO
/// Dso.
void writePreAggregated(const RawProfile &Raw, int Dso,
                        const BinaryImage &Image, llvm::raw_ostream &OS);

/// IP-sample fdata (no_lbr) for DSO Dso; Event names the sampled event.
void writeNoLbrFdata(const RawProfile &Raw, int Dso, const BinaryImage &Image,
                     llvm::StringRef Event, llvm::raw_ostream &OS);

/// Sums fdata files (lbr2prof's or perf2bolt's) into Output, as BOLT's
/// merge-fdata does: equal locations add their counts and mispredictions.
/// The inputs must agree on their header (LBR or no_lbr with the same
/// events; collected on a BOLTed binary or not). The lines are sorted, so
/// the result does not depend on the inputs' order or grouping.
llvm::Error mergeFdataFiles(llvm::ArrayRef<std::string> Inputs,
                            llvm::StringRef Output);

} // namespace lbr2prof

#endif
