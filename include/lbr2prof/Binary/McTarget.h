//===- McTarget.h - LLVM MC objects for one target --------------*- C++ -*-===//
//
// The register, assembler, subtarget and instruction tables, context and
// disassembler that decoding one target's machine code needs, made in one
// place: the disassembly of the binary (Disassemble.cpp, one per thread) and
// the report's annotated view (Report/Annotate.cpp) both start from it.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_BINARY_MCTARGET_H
#define LBR2PROF_BINARY_MCTARGET_H

#include "llvm/Support/Error.h"
#include "llvm/TargetParser/Triple.h"
#include <memory>

namespace llvm {
class MCAsmInfo;
class MCContext;
class MCDisassembler;
class MCInstPrinter;
class MCInstrAnalysis;
class MCInstrInfo;
class MCRegisterInfo;
class MCSubtargetInfo;
class Target;
} // namespace llvm

namespace lbr2prof {

/// Registers LLVM's X86 and AArch64 MC targets and disassemblers, once
/// (thread-safe).
void initTargets();

struct McTarget {
  llvm::Triple TT;
  const llvm::Target *T = nullptr;
  std::unique_ptr<llvm::MCRegisterInfo> MRI;
  std::unique_ptr<llvm::MCAsmInfo> MAI;
  std::unique_ptr<llvm::MCSubtargetInfo> STI;
  std::unique_ptr<llvm::MCInstrInfo> MII;
  std::unique_ptr<llvm::MCContext> Ctx;
  std::unique_ptr<llvm::MCDisassembler> Dis;

  /// Everything above for TT (targets registered first); the error names
  /// the triple and what LLVM could not make for it.
  static llvm::Expected<std::unique_ptr<McTarget>>
  create(const llvm::Triple &TT);
  /// The target's instruction analysis (branch kinds and targets).
  std::unique_ptr<llvm::MCInstrAnalysis> makeAnalysis() const;
  /// The target's default-variant printer (AT&T on x86), or null.
  std::unique_ptr<llvm::MCInstPrinter> makePrinter() const;

  McTarget();
  ~McTarget();
};

} // namespace lbr2prof

#endif
