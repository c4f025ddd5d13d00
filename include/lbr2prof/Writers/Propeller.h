//===- Propeller.h - Propeller's cluster list and symbol order --*- C++ -*-===//
//
// Writes a PropellerLayout (BlockLayout.h) as the two files a Propeller
// rebuild reads (docs/formats.md):
//   - the basic block cluster list of clang 19's
//     -fbasic-block-sections=list=FILE (version 1, LLVM's
//     BasicBlockSectionsProfileReader):
//       v1
//       m FILE                the next function's source file, given
//                             only for a local name two functions share
//       f NAME [ALIAS...]     a hot function
//       c ID ID ...           its hot blocks in order, the entry first
//     blocks not listed go to the function's cold section (.text.split.);
//   - the symbol order of ld.lld's --symbol-ordering-file: one hot function
//     name a line, in the function order.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_WRITERS_PROPELLER_H
#define LBR2PROF_WRITERS_PROPELLER_H

#include "lbr2prof/Binary/BinaryImage.h"
#include "lbr2prof/Profile/BlockLayout.h"
#include "llvm/Support/raw_ostream.h"

namespace lbr2prof {

/// Writes the cluster list; returns how many functions it names. A local
/// function whose name another function of the binary shares is named with
/// its source file (`m`, from the STT_FILE symbol before it, which clang
/// compares with the compile unit's DWARF name); one with no file, or the
/// same file and name as one already written, is left out (clang takes
/// one profile per name and file): Skipped gets how many.
size_t writePropellerClusters(const PropellerLayout &L,
                              const BinaryImage &Image, llvm::raw_ostream &OS,
                              size_t &Skipped);

/// Writes the symbol order: every hot function, in the function order.
void writeSymbolOrder(const PropellerLayout &L, const BinaryImage &Image,
                      llvm::raw_ostream &OS);

} // namespace lbr2prof

#endif
