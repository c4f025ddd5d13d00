//===- X86Common.h - x86-64's common encodings without MC -------*- C++ -*-===//
//
// LLVM's MC disassembler builds a whole MCInst (opcode, operands) for each
// instruction, and the analysis classifies it through a chain of virtual
// calls: about 170 ns an instruction, 0.2 s of CPU for the 1.2M
// instructions of bench/scale's 20 MB broad fdata, the largest part of its
// CFG building. What a profile needs of an instruction is less: its length,
// its kind (InstKind) and a direct branch's target. Most of the code
// compilers emit is a small set of encodings whose length follows from
// the opcode, the ModRM and SIB bytes and the prefixes (Intel SDM vol. 2,
// chapter 2 and appendix A); this decodes those, and answers "not one of
// them" for anything else (VEX and EVEX, x87, three-byte opcodes, far and
// prefixed branches, system instructions, encodings invalid in 64-bit
// mode), which MC then decodes as before. Where it answers, the answer is
// MC's (unittests/Binary/X86CommonTest.cpp holds it to that on random bytes
// and on real code).
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_LIB_BINARY_X86COMMON_H
#define LBR2PROF_LIB_BINARY_X86COMMON_H

#include "lbr2prof/Binary/BinaryImage.h"
#include "llvm/ADT/ArrayRef.h"

namespace lbr2prof {

/// Decodes the instruction at the start of Bytes (at address Addr) into I
/// (address, size, kind, direct target) if it is one of the common
/// encodings; false, with I unspecified, if not.
bool decodeCommonX86(llvm::ArrayRef<uint8_t> Bytes, uint64_t Addr, Inst &I);

/// MC's decoding of the same (Disassemble.cpp), what decodeCommonX86 must
/// agree with. Arch is "x86_64" or "aarch64". False if MC cannot decode
/// the bytes (I is then the 1-byte Other that decoding goes on after) or
/// has no such target.
bool decodeWithMc(llvm::StringRef Arch, llvm::ArrayRef<uint8_t> Bytes,
                  uint64_t Addr, Inst &I);

} // namespace lbr2prof

#endif
