//===- Path.h - file names of paths a recording names -----------*- C++ -*-===//
//
// A recording names its mapped files with the recording machine's paths.
// perf on Linux writes POSIX paths; traces from Windows (llvm-profgen's
// coff-profile input: `c:\Users\...\coff-profile.exe`) write drive-letter
// paths with backslashes. Matching a mapped file with --binary compares
// file names, so such a path is split at backslashes too.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_SUPPORT_PATH_H
#define LBR2PROF_SUPPORT_PATH_H

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

namespace lbr2prof {

/// The last component of Path: after the last '/', and, for a Windows path
/// (a drive letter and colon first, or no '/' but a '\'), after the last
/// '\' as well.
inline llvm::StringRef recordedFileName(llvm::StringRef Path) {
  bool Windows = (Path.size() >= 3 && llvm::isAlpha(Path[0]) &&
                  Path[1] == ':' && (Path[2] == '\\' || Path[2] == '/')) ||
                 (!Path.contains('/') && Path.contains('\\'));
  size_t At = Windows ? Path.find_last_of("/\\") : Path.rfind('/');
  return At == llvm::StringRef::npos ? Path : Path.substr(At + 1);
}

} // namespace lbr2prof

#endif
