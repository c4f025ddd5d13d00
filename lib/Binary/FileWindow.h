//===- FileWindow.h - reads of a file through a window ----------*- C++ -*-===//
//
// Private to lib/Binary. Readers that take a few bytes here and there of
// sections far larger than what they use (UnitIndex: a header and a DIE
// of each of thousands of units; the relocation check: every entry, once)
// read them with pread into a buffer rather than through the mapping,
// where each touch faults in, and keeps resident, the 64 KiB around it.
// Reads that come in file order are served from the last window.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_LIB_BINARY_FILEWINDOW_H
#define LBR2PROF_LIB_BINARY_FILEWINDOW_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>

namespace lbr2prof {

class FileWindow {
public:
  /// Opens Path for reading (if it cannot be, every read is empty);
  /// MinRead: the bytes read at least each time.
  FileWindow(llvm::StringRef Path, size_t MinRead);
  ~FileWindow();
  FileWindow(const FileWindow &) = delete;
  FileWindow &operator=(const FileWindow &) = delete;

  /// Bytes [At, At + Len) of the file, valid until the next read; empty
  /// if the file could not be opened or read, or ends before them.
  llvm::StringRef read(uint64_t At, size_t Len);

private:
  int Fd;
  size_t MinRead;
  uint64_t Begin = 0; ///< file offset of Buf's first byte
  std::string Buf;    ///< the bytes read last
};

} // namespace lbr2prof

#endif
