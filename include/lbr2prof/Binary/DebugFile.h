//===- DebugFile.h - where a binary's debug info and symbols are -*- C++ -*-===//
//
// A stripped binary keeps its code; its DWARF and its .symtab live in a
// separate debug file (objcopy --only-keep-debug). findDebugFile() finds
// that file the way gdb and LLVM's symbolizer do, in this order:
//   1. the file the user named (--debug-file);
//   2. the binary itself, when it has DWARF;
//   3. DIR/.build-id/xx/yyyy.debug for each debug directory DIR (gdb's
//      debug-file-directory, default /usr/lib/debug), xx and yyyy the
//      hex build-id's first byte and the rest;
//   4. the name in the binary's .gnu_debuglink section, beside the binary,
//      in .debug/ beside it, and in DIR/<the binary's directory>/, each
//      checked against the section's CRC32 of the whole file, as gdb does;
//   5. debuginfod (LLVM's client: DEBUGINFOD_URLS, DEBUGINFOD_CACHE_PATH,
//      DEBUGINFOD_TIMEOUT) when DEBUGINFOD_URLS is set.
// A named file whose build-id differs from the binary's is an error; a
// searched one is skipped, and the result says which were skipped and why.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_BINARY_DEBUGFILE_H
#define LBR2PROF_BINARY_DEBUGFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>
#include <vector>

namespace llvm::object {
class ObjectFile;
}

namespace lbr2prof {

struct DebugFileOptions {
  /// Use this file (--debug-file); no search.
  std::string DebugFile;
  /// The global debug directories (gdb's debug-file-directory); empty means
  /// /usr/lib/debug.
  std::vector<std::string> Directories;
  /// Accept a DebugFile whose build-id differs from the binary's.
  bool IgnoreBuildId = false;
  /// Ask the debuginfod servers of DEBUGINFOD_URLS when nothing local is
  /// found.
  bool Debuginfod = true;
};

/// Where a debug file came from.
enum class DebugFileSource {
  None,             ///< nothing found: the binary is all there is
  Given,            ///< --debug-file
  Binary,           ///< the binary has DWARF itself
  BuildIdDirectory, ///< DIR/.build-id/xx/yyyy.debug
  DebugLink,        ///< .gnu_debuglink
  Debuginfod,       ///< downloaded (or cached) from a debuginfod server
};

struct DebugFileResult {
  /// The debug file; empty when Source is None.
  std::string Path;
  DebugFileSource Source = DebugFileSource::None;
  /// Every place searched, in order, as "PATH" or "debuginfod (...)", for
  /// messages that say where debug info was looked for.
  std::vector<std::string> Searched;
  /// Candidates that exist but belong to another build: "PATH (build-id
  /// X, not Y)" or "PATH (CRC32 X, .gnu_debuglink says Y)".
  std::vector<std::string> Skipped;

  /// True if the debug file is a file other than the binary.
  bool separate() const {
    return Source != DebugFileSource::None && Source != DebugFileSource::Binary;
  }
  /// How it was found, for notes: "--debug-file", "build-id directory",
  /// ".gnu_debuglink", "debuginfod"; empty for None and Binary.
  llvm::StringRef how() const;
  /// One clause for errors: where was searched and what was skipped.
  std::string searchSummary() const;
};

/// The debug file of Binary (opened from BinaryPath), in the order above.
/// Fails only for a --debug-file that cannot be opened, is not an object
/// file, or has another build-id (unless IgnoreBuildId). Finding nothing is
/// not an error: Source is None.
llvm::Expected<DebugFileResult>
findDebugFile(const llvm::object::ObjectFile &Binary,
              llvm::StringRef BinaryPath, const DebugFileOptions &Opts);

/// True if Obj has a DWARF .debug_info section (plain or .zdebug_info).
bool hasDwarf(const llvm::object::ObjectFile &Obj);

/// A debug file opened as an object file, with the buffer it reads.
struct OpenedDebugFile {
  std::unique_ptr<llvm::MemoryBuffer> Buffer;
  std::unique_ptr<llvm::object::ObjectFile> Obj;
};
/// Opens Path as an object file ("PATH: cannot open debug file: ..." or
/// "PATH: not an object file: ..." otherwise).
llvm::Expected<OpenedDebugFile> openDebugFile(llvm::StringRef Path);

} // namespace lbr2prof

#endif
