//===- BinaryImpl.h - state behind BinaryImage ------------------*- C++ -*-===//
//
// Private to lib/Binary: the opened object, its executable sections, the
// function table, and the per-function instruction cache.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_LIB_BINARY_BINARYIMPL_H
#define LBR2PROF_LIB_BINARY_BINARYIMPL_H

#include "lbr2prof/Binary/BinaryImage.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include <atomic>
#include <memory>
#include <mutex>

namespace lbr2prof {

/// An executable section's bytes.
struct CodeSection {
  uint64_t Addr;
  llvm::ArrayRef<uint8_t> Bytes;
  std::string Name;
};

class BinaryImage::Impl {
public:
  std::string Path;
  std::unique_ptr<llvm::MemoryBuffer> Buffer;
  std::unique_ptr<llvm::object::ObjectFile> Obj;
  std::string Arch;
  bool IsDyn = false;
  bool HasSymtab = false;
  std::vector<uint8_t> BuildId;
  std::vector<Segment> Segments;
  std::vector<CodeSection> Code;
  std::vector<FunctionSym> Functions;
  /// Decoded instructions per function; filled once.
  struct Slot {
    std::once_flag Once;
    std::vector<Inst> Insts;
  };
  mutable std::unique_ptr<Slot[]> Decoded;

  /// Decodes function F's bytes (Disassemble.cpp).
  std::vector<Inst> decode(const FunctionSym &F) const;
};

} // namespace lbr2prof

#endif
