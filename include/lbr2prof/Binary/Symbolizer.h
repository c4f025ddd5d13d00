//===- Symbolizer.h - addresses to inline stacks of source locations -*- C++ -*-===//
//
// Reads DWARF (4 and 5; split .dwo/.dwp; zlib/zstd-compressed sections;
// debug info in a separate file) through LLVM DebugInfo and turns a binary
// address into its inline stack: innermost frame first, each frame with its
// function's linkage name and its location as clang's sample loader keys it:
// (line - the function's DW_AT_decl_line) & 0xffff, and the base
// discriminator, with the duplication factor decoded apart. Each distinct
// address is symbolized once and cached.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_BINARY_SYMBOLIZER_H
#define LBR2PROF_BINARY_SYMBOLIZER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <memory>
#include <vector>

namespace lbr2prof {

/// One frame of an inline stack.
struct SourceFrame {
  /// Linkage name of the frame's function (the short name if none).
  llvm::StringRef Function;
  /// Line relative to the function's first line, as clang computes it.
  uint32_t LineOffset = 0;
  /// Base discriminator (duplication factor and copy id removed).
  uint32_t Discriminator = 0;
  /// How many copies of this code the compiler made (unrolling,
  /// vectorization); counts are multiplied by it.
  uint32_t DupFactor = 1;
};

struct SymbolizerOptions {
  /// DWARF from this file instead of the binary (e.g. a .debug file).
  std::string DebugFile;
  /// A .dwp package for split DWARF.
  std::string DwpFile;
};

class Symbolizer {
public:
  /// Opens the binary's debug info: DebugFile if given, else the binary, or
  /// the file /usr/lib/debug/.build-id/xx/yyyy.debug of its build-id when the
  /// binary itself has none.
  static llvm::Expected<std::unique_ptr<Symbolizer>>
  create(llvm::StringRef BinaryPath, llvm::ArrayRef<uint8_t> BuildId,
         const SymbolizerOptions &Opts);
  ~Symbolizer();

  /// True if any compile unit was found.
  bool hasDebugInfo() const;
  /// The file the DWARF came from.
  llvm::StringRef debugPath() const;
  /// The inline stack at binary address Addr, innermost first; empty if the
  /// address has no line information. Valid until the Symbolizer dies.
  llvm::ArrayRef<SourceFrame> frames(uint64_t Addr);

  class Impl;

private:
  explicit Symbolizer(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> I;
};

} // namespace lbr2prof

#endif
