//===- Unsymbolized.h - llvm-profgen's unsymbolized profile ----*- C++ -*-===//
//
// The text llvm-profgen writes with --skip-symbolization and reads with
// --unsymbolized-profile (docs/formats.md): the range count, then
// "begin-end:count" lines; the branch count, then "from->to:count" lines;
// addresses as offsets from the binary's first executable segment, a source
// outside the binary as llvm-profgen's sentinel address 1 minus that base.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_WRITERS_UNSYMBOLIZED_H
#define LBR2PROF_WRITERS_UNSYMBOLIZED_H

#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "lbr2prof/Binary/BinaryImage.h"
#include "llvm/Support/raw_ostream.h"

namespace lbr2prof {

/// The range and branch counts of DSO Dso (Image's file), as the estimates
/// every other output uses (entry counts with --no-window-weighting, which
/// are llvm-profgen's). What llvm-profgen would drop while reading is left
/// out: ranges that end before they begin, branches whose target is
/// outside the binary.
void writeUnsymbolized(const RawProfile &Raw, int Dso,
                       const BinaryImage &Image, llvm::raw_ostream &OS);

/// llvm-profgen's base: the first executable segment's address.
uint64_t unsymbolizedBase(const BinaryImage &Image);

} // namespace lbr2prof

#endif
