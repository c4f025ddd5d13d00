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
// LLVM's DWARF parser can crash on corrupt debug info (out-of-bounds reads
// in the unit and line-table parsers). So by default no DWARF is parsed in
// the process itself: prefetch() forks child processes that symbolize the
// addresses and send the inline stacks back through pipes; a child that
// dies becomes an error naming the file, and the tool exits cleanly.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_BINARY_SYMBOLIZER_H
#define LBR2PROF_BINARY_SYMBOLIZER_H

#include "lbr2prof/Binary/DebugFile.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lbr2prof {

/// One frame of an inline stack.
/// 48 bytes, the two names first (56 with File after the three numbers:
/// the inline stacks of bench/scale's 20 MB broad line profile were 20 MB).
struct SourceFrame {
  /// Linkage name of the frame's function (the short name if none).
  llvm::StringRef Function;
  /// The source file (as the line table names it, relative to the
  /// compilation directory when it is), with Line, for reports.
  llvm::StringRef File;
  /// Line relative to the function's first line, as clang computes it.
  uint32_t LineOffset = 0;
  /// Base discriminator (duplication factor and copy id removed), or
  /// with SymbolizerOptions::GccDiscriminators the whole one.
  uint32_t Discriminator = 0;
  /// How many copies of this code the compiler made (unrolling,
  /// vectorization); counts are multiplied by it.
  uint32_t DupFactor = 1;
  uint32_t Line = 0;
};
static_assert(sizeof(SourceFrame) == 48 || sizeof(void *) != 8,
              "SourceFrame: two names and four numbers");

/// The innermost source position of an address (for reports).
struct SourceLine {
  /// Empty, and Line 0, when the address has no line information.
  llvm::StringRef File;
  uint32_t Line = 0;
};

struct SymbolizerOptions {
  /// Where the DWARF is looked for (findDebugFile): --debug-file, the
  /// binary, the build-id directories, .gnu_debuglink, debuginfod.
  DebugFileOptions Lookup;
  /// A lookup already made for this binary (BinaryImage::debugFile()):
  /// used as it is when it found a file, instead of searching again.
  std::optional<DebugFileResult> Found;
  /// A .dwp package for split DWARF.
  std::string DwpFile;
  /// Parse DWARF only in child processes (prefetch()); false parses it in
  /// this process, on demand in frames().
  bool Isolate = true;
  /// Discriminators as GCC writes them, whole (for GCC's AutoFDO
  /// profiles), instead of decoded as LLVM's (base discriminator and
  /// duplication factor).
  bool GccDiscriminators = false;
  /// Keep the frames on line 0 (code the compiler made or merged), at
  /// line offset (0 - the function's line) & 0xffff as clang's sample
  /// loader computes it (llvm-profgen's convention); by default a stack
  /// with such a frame is dropped.
  bool KeepLineZero = false;
  /// The most bytes read from a child's pipe at a time (isolated): a
  /// message the read cuts is completed by the next. Tests read a few bytes
  /// at a time, so that every message is cut.
  size_t PipeReadBytes = size_t(256) << 10;
};

class Symbolizer {
public:
  /// Opens the binary's debug info: Opts.Found if it names a file, else the
  /// file findDebugFile finds with Opts.Lookup, else the binary (which then
  /// has no DWARF). BuildId is unused: the lookup reads the binary's own.
  static llvm::Expected<std::unique_ptr<Symbolizer>>
  create(llvm::StringRef BinaryPath, llvm::ArrayRef<uint8_t> BuildId,
         const SymbolizerOptions &Opts);
  ~Symbolizer();

  /// True if the file has debug info: a compile unit was found (or, when
  /// isolated and before prefetch(), a .debug_info section exists).
  bool hasDebugInfo() const;
  /// The file the DWARF came from.
  llvm::StringRef debugPath() const;
  /// How that file was found, and where else was looked.
  const DebugFileResult &debugFile() const;
  /// Symbolizes Addrs (in any order, repeats allowed) ahead of frames(),
  /// in up to Jobs child processes when isolated. Fails if a child crashed
  /// or its answer was cut short.
  llvm::Error prefetch(llvm::ArrayRef<uint64_t> Addrs, unsigned Jobs = 1);
  /// The inline stack at binary address Addr, innermost first; empty if the
  /// address has no line information (or, when isolated, was not
  /// prefetched). Valid until the Symbolizer dies. When isolated, threads
  /// may ask at once (not while a prefetch() runs).
  llvm::ArrayRef<SourceFrame> frames(uint64_t Addr);
  /// Frees every answer kept (prefetched or looked up on demand): frames()
  /// and lineAt() then answer as before any prefetch(), and what they
  /// returned earlier is invalid. The names stay valid (a profile built
  /// from the frames holds them), and so does the debug info. For a
  /// profile written after its frames were read: bench/scale's 100 MB broad
  /// line profile held 80 MB of answers while it was written.
  void forgetAnswers();
  /// Whether lookups are answered by child processes (prefetch()) only.
  bool isolated() const;
  /// The file and line of the innermost frame at Addr. Unlike frames(), also
  /// known where no subprogram encloses the address (assembler output has
  /// only a line table) or the inline stack is incomplete.
  SourceLine lineAt(uint64_t Addr);
  /// Distinct warnings the DWARF parser reported (first line of each).
  llvm::ArrayRef<std::string> warnings() const;
  /// How many warnings there were in all (repeats included).
  uint64_t warningCount() const;

  class Impl;

private:
  explicit Symbolizer(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> I;
};

} // namespace lbr2prof

#endif
