//===- BinaryImage.h - the profiled ELF binary ------------------*- C++ -*-===//
//
// What lbr2prof needs to know about a binary, read with LLVM Object and MC:
// its build-id, its loadable segments (to turn file offsets from MMAP2
// records into link-time addresses), its functions from the ELF symbol
// tables (bounds, aliases, local symbols with their source file, .cold and
// .part fragments linked to their parent, PLT stubs named foo@PLT; from the
// separate debug file's .symtab when the binary is stripped), and, on demand
// per function, its instructions with their sizes and branch kinds. Knows
// nothing of perf.
// All addresses here are binary (link-time) addresses.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_BINARY_BINARYIMAGE_H
#define LBR2PROF_BINARY_BINARYIMAGE_H

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

/// A PT_LOAD program header.
struct Segment {
  uint64_t VAddr = 0, MemSize = 0;
  uint64_t Offset = 0, FileSize = 0;
  bool Exec = false;
};

/// One function: [Start, End) in binary addresses. The fields are ordered
/// to leave no padding: a 300 MB binary has 480k of them (bench/scale).
struct FunctionSym {
  uint64_t Start = 0, End = 0;
  /// Symbol name as in the ELF symbol table (mangled). The names, the
  /// aliases and File point into the binary's (or its debug file's)
  /// string table, or into storage of the BinaryImage: valid as long as it
  /// is. (Strings of their own were half of the table's 128 bytes a
  /// function, and a 300 MB binary has 480k of them: bench/scale.)
  llvm::StringRef Name;
  /// For local symbols: the STT_FILE symbol that precedes it, if any.
  llvm::StringRef File;
  /// Other symbols at the same address and size, in storage of the
  /// BinaryImage (a vector of its own was 24 bytes a function, and most
  /// functions have no alias).
  llvm::ArrayRef<llvm::StringRef> Aliases;
  /// For local symbols: 1-based rank among the binary's local symbols of
  /// the same name in address order (BOLT names them "name/rank").
  unsigned LocalId = 0;
  /// Index of the parent function for a `.cold`/`.part` fragment, or -1.
  int Parent = -1;
  /// For a PLT stub: index of the global function `foo` of this binary,
  /// where the stub jumps unless foo is interposed; -1 if foo is in
  /// another DSO.
  int PltTarget = -1;
  /// STB_LOCAL symbol.
  bool Local = false;
  /// A PLT stub, named `foo@PLT` (BOLT's name) from its GOT slot's dynamic
  /// relocation. It has no source lines: sample profiles leave it out.
  bool Plt = false;
};

/// How an instruction transfers control.
enum class InstKind : uint8_t {
  Other,
  CondBranch,
  UncondBranch,
  IndirectBranch,
  Call,
  IndirectCall,
  Return,
  /// Stops execution (ud2, hlt): no fall-through.
  Trap,
};

/// True for kinds after which execution never falls through to the next
/// instruction.
inline bool endsFallThrough(InstKind K) {
  return K == InstKind::UncondBranch || K == InstKind::IndirectBranch ||
         K == InstKind::Return || K == InstKind::Trap;
}
/// True for kinds that end a basic block.
inline bool isTerminator(InstKind K) {
  return K == InstKind::CondBranch || endsFallThrough(K);
}

/// A decoded instruction, in 16 bytes: a function's instructions are kept
/// decoded while its profile is built, and every function of bench/scale's
/// 100 MB broad row ran (4.8M instructions: 114 MB at the 24 bytes a
/// 64-bit target took; its line profile's peak 850 -> 799 MB).
struct Inst {
  uint64_t Addr = 0;
  uint8_t Size = 0;
  InstKind Kind = InstKind::Other;

  /// Direct branch or call target, or 0.
  uint64_t target() const {
    return HasTarget ? Addr + Size + uint64_t(int64_t(TargetDelta)) : 0;
  }
  /// Sets the target (0: none), Addr and Size first. It is kept as its
  /// distance from the instruction's end, which is x86-64's rel32 itself;
  /// a target further than 2 GiB from there is left out (none), as no
  /// PC-relative branch of the supported architectures reaches that far
  /// (AArch64's reach 128 MiB).
  void setTarget(uint64_t T) {
    int64_t D = int64_t(T - Addr - Size);
    HasTarget = T != 0 && D == int64_t(int32_t(D));
    TargetDelta = HasTarget ? int32_t(D) : 0;
  }

private:
  bool HasTarget = false;
  /// Target - (Addr + Size).
  int32_t TargetDelta = 0;
};
static_assert(sizeof(Inst) == 16, "Inst is kept per decoded instruction");

/// True if execution can run straight from Insts[From] to Insts[To]
/// (From <= To): no instruction before To ends its fall-through. A range
/// of an LBR (from one branch's target to the next branch) that fails
/// this cannot have executed.
inline bool runsThrough(llvm::ArrayRef<Inst> Insts, int From, int To) {
  for (int K = From; K < To; ++K)
    if (endsFallThrough(Insts[K].Kind))
      return false;
  return true;
}

/// What BOLT's profile hashes read of one instruction (BoltYaml.h), as
/// LLVM's MC decodes it. x86-64 only; the strings are byte strings.
struct HashedInst {
  uint64_t Addr = 0;
  /// Direct branch or call target (binary address), or 0.
  uint64_t Target = 0;
  uint8_t Size = 0;
  InstKind Kind = InstKind::Other;
  /// A no-op (BOLT's isNoop: the NOOP* opcodes).
  bool Nop = false;
  /// MC opcode name ("MOV32rr"); a conditional branch's short form
  /// ("JCC_1"), as BOLT hashes it.
  std::string Opcode;
  /// AT&T mnemonic without blanks ("movl").
  std::string Mnemonic;
  /// Opcode name and mnemonic of a jump BOLT turns into a tail call
  /// (JMP_4, JMP32m, JMP32r), for a jump out of the function.
  std::string TailOpcode, TailMnemonic;
  /// BOLT's operand hash (hashInstOperand) of each operand, concatenated:
  /// registers and immediates as little-endian bytes, a direct target
  /// empty, a RIP-relative displacement as the address it reaches (empty
  /// for a function start).
  std::string Operands;
};

class BinaryImage {
public:
  /// Opens an ELF file (x86-64 or AArch64). With Debug, an ELF binary
  /// without a .symtab (stripped), or one given a --debug-file, has its
  /// debug file looked up (findDebugFile), and the functions come from that
  /// file's .symtab: the same symbols at the same addresses (only symbols,
  /// never code, come from it). A --debug-file of another build is an
  /// error.
  static llvm::Expected<std::unique_ptr<BinaryImage>>
  open(llvm::StringRef Path, const DebugFileOptions *Debug = nullptr);
  /// What open() checks first, in a few milliseconds: the file can be
  /// read and its header is one open() reads; the same errors.
  static llvm::Error check(llvm::StringRef Path);
  ~BinaryImage();

  const std::string &path() const;
  /// GNU build-id bytes, empty if the binary has none.
  llvm::ArrayRef<uint8_t> buildId() const;
  /// ET_DYN (PIE or shared library): loaded at a bias chosen at run time.
  bool isPositionIndependent() const;
  /// "x86_64" or "aarch64".
  llvm::StringRef arch() const;
  llvm::ArrayRef<Segment> segments() const;
  /// Link-time address of file offset Off inside an executable segment.
  std::optional<uint64_t> fileOffsetToAddr(uint64_t Off) const;
  /// Functions sorted by start address (aliases folded).
  llvm::ArrayRef<FunctionSym> functions() const;
  /// Index of the function containing Addr, or -1.
  int functionAt(uint64_t Addr) const;
  /// Instructions of function FuncIndex, decoded on first use. Safe to call
  /// from several threads for different functions only after
  /// decodeFunctions() prepared them; otherwise single-threaded.
  llvm::ArrayRef<Inst> instructions(unsigned FuncIndex) const;
  /// Decodes the given functions on Threads threads.
  void decodeFunctions(llvm::ArrayRef<unsigned> FuncIndices,
                       unsigned Threads) const;
  /// The instructions of function FuncIndex with what BOLT's profile
  /// hashes read of them; decoded anew on each call (only profiled
  /// functions of a BOLT YAML output need them). Empty if the image is
  /// not x86-64 or the function has no bytes.
  std::vector<HashedInst> hashedInstructions(unsigned FuncIndex) const;
  /// True if the binary has a .symtab (not stripped), or its debug file
  /// gave one.
  bool hasSymtab() const;
  /// The debug file lookup open() made, or null if it made none.
  const DebugFileResult *debugFile() const;

  class Impl;

private:
  explicit BinaryImage(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> I;
};

/// The first function of F's .cold/.part family (its parent), or F.
inline unsigned functionFamily(const BinaryImage &Image, unsigned F) {
  int P = Image.functions()[F].Parent;
  return P >= 0 ? unsigned(P) : F;
}

/// Index in Insts of the instruction starting at Addr, or -1.
int instIndexAt(llvm::ArrayRef<Inst> Insts, uint64_t Addr);

/// True if the image has function symbols of its own: PLT stubs, named
/// from .rela.plt even in a stripped binary, do not count.
inline bool hasFunctionSymbols(const BinaryImage &Image) {
  for (const FunctionSym &F : Image.functions())
    if (!F.Plt)
      return true;
  return false;
}

} // namespace lbr2prof

#endif
