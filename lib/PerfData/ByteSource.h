//===- ByteSource.h - where perf.data bytes come from -----------*- C++ -*-===//
//
// A ByteSource hands out bytes sequentially and, for files and buffers, at
// random offsets. The reader sits on it so the same code handles a regular
// file, a pipe (no seeking, no size) and an in-memory buffer (tests,
// fuzzing). Private to lib/PerfData.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_LIB_PERFDATA_BYTESOURCE_H
#define LBR2PROF_LIB_PERFDATA_BYTESOURCE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <memory>
#include <string>

namespace lbr2prof {

class ByteSource {
public:
  virtual ~ByteSource();
  /// Name for error messages.
  const std::string &name() const { return Name; }
  /// Reads up to N bytes at the current position; returns 0 at end of input.
  virtual llvm::Expected<size_t> read(uint8_t *Dst, size_t N) = 0;
  /// True if readAt/seek work and size() is known.
  virtual bool seekable() const = 0;
  /// Reads exactly N bytes at offset Off (seekable sources only); returns
  /// the number actually read, short at end of input.
  virtual llvm::Expected<size_t> readAt(uint8_t *Dst, size_t N,
                                        uint64_t Off) = 0;
  /// Moves the sequential position (seekable sources only).
  virtual llvm::Error seek(uint64_t Off) = 0;
  /// Total size in bytes (seekable sources only).
  virtual uint64_t size() const = 0;

  /// Opens a file, or standard input for "-".
  static llvm::Expected<std::unique_ptr<ByteSource>>
  openFile(llvm::StringRef Path);
  /// Wraps a buffer that must outlive the source.
  static std::unique_ptr<ByteSource> fromBuffer(llvm::ArrayRef<uint8_t> Bytes,
                                                llvm::StringRef Name);

  /// Replays Prefix, then continues with Inner (a non-seekable source whose
  /// first bytes were already read to sniff its format).
  static std::unique_ptr<ByteSource>
  withPrefix(std::unique_ptr<ByteSource> Inner, llvm::ArrayRef<uint8_t> Prefix);

protected:
  std::string Name;
};

class EventSource;
/// Makes the perf script text reader over Src (ScriptReader.cpp).
llvm::Expected<std::unique_ptr<EventSource>>
openScriptSource(std::unique_ptr<ByteSource> Src);

} // namespace lbr2prof

#endif
