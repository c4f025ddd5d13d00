//===- McTarget.cpp - LLVM MC objects for one target ----------------------===//
#include "lbr2prof/Binary/McTarget.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include <mutex>

using namespace llvm;

namespace lbr2prof {

void initTargets() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86Disassembler();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64Disassembler();
  });
}

McTarget::McTarget() = default;
McTarget::~McTarget() = default;

Expected<std::unique_ptr<McTarget>> McTarget::create(const Triple &TT) {
  initTargets();
  auto M = std::make_unique<McTarget>();
  M->TT = TT;
  std::string Err;
  M->T = TargetRegistry::lookupTarget(TT.getTriple(), Err);
  if (!M->T)
    return createStringError(inconvertibleErrorCode(), "%s: %s",
                             TT.getTriple().c_str(), Err.c_str());
  M->MRI.reset(M->T->createMCRegInfo(TT.getTriple()));
  MCTargetOptions Opts;
  if (M->MRI)
    M->MAI.reset(M->T->createMCAsmInfo(*M->MRI, TT.getTriple(), Opts));
  M->STI.reset(M->T->createMCSubtargetInfo(TT.getTriple(), "", ""));
  M->MII.reset(M->T->createMCInstrInfo());
  if (M->MRI && M->MAI && M->STI && M->MII) {
    M->Ctx = std::make_unique<MCContext>(TT, M->MAI.get(), M->MRI.get(),
                                         M->STI.get());
    M->Dis.reset(M->T->createMCDisassembler(*M->STI, *M->Ctx));
  }
  if (!M->Dis)
    return createStringError(inconvertibleErrorCode(),
                             "no disassembler for %s", TT.getTriple().c_str());
  return std::move(M);
}

std::unique_ptr<MCInstrAnalysis> McTarget::makeAnalysis() const {
  return std::unique_ptr<MCInstrAnalysis>(T->createMCInstrAnalysis(MII.get()));
}

std::unique_ptr<MCInstPrinter> McTarget::makePrinter() const {
  return std::unique_ptr<MCInstPrinter>(
      T->createMCInstPrinter(TT, 0, *MAI, *MII, *MRI));
}

} // namespace lbr2prof
