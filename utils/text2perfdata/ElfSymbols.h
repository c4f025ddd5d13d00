//===- ElfSymbols.h - symbol values of an ELF64 file for @labels@ ---------===//
//
// Reads the defined symbols of a little-endian ELF64 file (.symtab, then
// .dynsym) by walking the section headers by hand, so tests can write
// `@main@` instead of an address. Every length and offset is checked
// against the file size before use.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_UTILS_TEXT2PERFDATA_ELFSYMBOLS_H
#define LBR2PROF_UTILS_TEXT2PERFDATA_ELFSYMBOLS_H

#include "Text.h"

#include <string>

namespace lbr2prof {
namespace t2p {

/// Adds `name -> st_value + Bias` for every defined symbol of \p Path to
/// \p Labels (a global definition wins over a local one of the same name;
/// labels already present from an earlier file are kept). Returns false
/// with a message in \p Err.
bool readElfSymbols(const std::string &Path, uint64_t Bias, LabelMap &Labels,
                    std::string &Err);

} // namespace t2p
} // namespace lbr2prof

#endif
