//===- BinaryImpl.h - state behind BinaryImage ------------------*- C++ -*-===//
//
// Private to lib/Binary: the opened object, its executable sections, the
// function table, and the per-function instruction cache.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_LIB_BINARY_BINARYIMPL_H
#define LBR2PROF_LIB_BINARY_BINARYIMPL_H

#include "lbr2prof/Binary/BinaryImage.h"
#include "llvm/Object/ELF.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/StringSaver.h"
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

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
  /// Where to look for a debug file (open()'s argument), and what the
  /// lookup found.
  const DebugFileOptions *DebugOpts = nullptr;
  std::optional<DebugFileResult> Debug;
  std::vector<uint8_t> BuildId;
  std::vector<Segment> Segments;
  std::vector<CodeSection> Code;
  std::vector<FunctionSym> Functions;
  /// The functions' Aliases point into this (reserved for every symbol,
  /// never grown after).
  std::vector<llvm::StringRef> AliasPool;
  /// What the functions' names point into besides the binary's own
  /// strings: a separate debug file's symbol table (a stripped binary's
  /// symbols), and the names made here (PLT stubs').
  std::optional<OpenedDebugFile> SymbolFile;
  llvm::BumpPtrAllocator NameStorage;
  llvm::StringSaver Names{NameStorage};
  /// Functions[K].Start, for functionAt(): a search over 8-byte keys
  /// reads a few cache lines where one over the symbols (100+ bytes each)
  /// read one per step (functionAt was 5.8% of the CPU of the 20 MB
  /// binary's broad recording).
  std::vector<uint64_t> Starts;
  /// Functions[K].End, so that the end is checked without reading the
  /// symbol (another cache miss a call: functionAt was 14% of the CFG
  /// profile's CPU of bench/scale's 100 MB broad line profile).
  std::vector<uint64_t> Ends;
  /// PageFirst[P]: the number of functions that start before page P
  /// (4 KiB pages from Starts[0]); functionAt() searches only the starts of
  /// the address's page. Empty when the functions are spread over so many
  /// pages that the index would outweigh the symbols.
  std::vector<uint32_t> PageFirst;
  static constexpr unsigned PageShift = 12;
  /// Fills Starts and PageFirst from Functions (sorted by start).
  void indexFunctions();
  /// Decoded instructions per function; filled once.
  struct Slot {
    std::once_flag Once;
    /// Insts is filled: asked first, as call_once's own check is a
    /// library call each time (the context profile builder asks per
    /// context for every function that ran in it).
    std::atomic<bool> Ready{false};
    llvm::ArrayRef<Inst> Insts;
  };
  /// The slots, made per group of SlotGroup functions when one of them is
  /// first decoded: a slot for every function, made up front, was 11 MB
  /// written before any sample was read on bench/scale's 300 MB binary.
  static constexpr unsigned SlotGroupShift = 8;
  struct SlotGroup {
    Slot Slots[1u << SlotGroupShift];
  };
  mutable std::unique_ptr<std::atomic<SlotGroup *>[]> SlotGroups;
  size_t NumSlotGroups = 0;
  /// Function F's slot (thread-safe).
  Slot &slot(unsigned F) const;
  ~Impl();
  /// The slots' instructions, packed in large blocks: one allocation per
  /// block rather than one per function (and none to free one by one),
  /// each function's exactly its size. Blocks are raw storage, written
  /// only where instructions are copied in.
  struct FreeInsts {
    void operator()(Inst *P) const { ::operator delete(P); }
  };
  mutable std::mutex BlocksLock;
  mutable std::vector<std::unique_ptr<Inst, FreeInsts>> Blocks;
  mutable size_t BlockCap = 0, BlockFree = 0;

  /// Decodes function F's bytes into Out (Disassemble.cpp).
  void decode(const FunctionSym &F, std::vector<Inst> &Out) const;
  /// A lasting copy of Insts, in Blocks (thread-safe).
  llvm::ArrayRef<Inst> keep(llvm::ArrayRef<Inst> Insts) const;
};

/// A FunctionSym for each named PLT stub of the binary, sorted by start
/// (Plt.cpp); the caller merges them into B.Functions.
std::vector<FunctionSym>
pltStubs(const llvm::object::ELFFile<llvm::object::ELF64LE> &E,
         llvm::ArrayRef<llvm::object::ELF64LE::Shdr> Sections,
         BinaryImage::Impl &B);
/// Sets each stub's PltTarget in Functions (sorted by start, stubs merged
/// at the positions Stubs lists).
void linkPltTargets(std::vector<FunctionSym> &Functions,
                    llvm::ArrayRef<uint32_t> Stubs);

} // namespace lbr2prof

#endif
