//===- OutputFile.h - every output, written by one rule ---------*- C++ -*-===//
//
// Every file lbr2prof writes (sample profiles, fdata, pre-aggregated data,
// the HTML report) goes through an AtomicOutputFile, which picks how to
// write it from what the name is when the output is opened:
//  - a regular file, or a name that does not exist yet: a temporary file
//    beside it, renamed over it on commit(). A failed or killed run leaves
//    the old file as it was and no temporary behind; the new file keeps the
//    old one's permission bits (and owner, where the system allows it).
//  - a symbolic link: followed to its target (even a missing one), which is
//    then written as above; the link itself stays.
//  - "-" (standard output), a character or block device, a FIFO, a socket:
//    written straight through, never replaced. These are opened at once and
//    get the whole output on commit() (held in memory until then, so that
//    formats that seek back, as extbinary does, work on a pipe too).
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_SUPPORT_OUTPUTFILE_H
#define LBR2PROF_SUPPORT_OUTPUTFILE_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>
#include <string>

namespace lbr2prof {

class AtomicOutputFile {
public:
  /// Opens the output named Path ("-" for standard output) by the rule
  /// above: creates the temporary, or opens the special file.
  static llvm::Expected<std::unique_ptr<AtomicOutputFile>>
  create(llvm::StringRef Path);
  ~AtomicOutputFile();

  /// The stream to write to; it can seek back (pwrite), whatever the
  /// output is.
  llvm::raw_pwrite_stream &os() { return *OS; }
  /// Flushes and checks for write errors, then renames the temporary into
  /// place or hands the buffered output to the special file. Without it the
  /// output is discarded.
  llvm::Error commit();

private:
  AtomicOutputFile() = default;
  /// Writes Buffer to DirectFD.
  llvm::Error writeDirect();

  /// The name as given, for messages.
  std::string Path;
  /// What the temporary replaces: Path with its symbolic links followed.
  std::string Target;
  /// The temporary file; empty when written straight through.
  std::string TempPath;
  /// The special file (or standard output) written straight through, or -1.
  int DirectFD = -1;
  bool CloseDirectFD = false;
  /// The output of a straight-through write until commit().
  llvm::SmallVector<char, 0> Buffer;
  /// The temporary's stream (also OS), whose errors we must clear.
  llvm::raw_fd_ostream *FileOS = nullptr;
  std::unique_ptr<llvm::raw_pwrite_stream> OS;
  bool Committed = false;
};

/// True when writing Path would write to standard output: "-", or the file
/// standard output already is (through /dev/stdout, or by the same name),
/// unless that is a character device such as a terminal or /dev/null, where
/// nothing reads the two outputs apart. A tool that prints to standard
/// output as well uses it to refuse mixing the two.
bool isStandardOutput(llvm::StringRef Path);

} // namespace lbr2prof

#endif
