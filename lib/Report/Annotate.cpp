//===- Annotate.cpp - a function's disassembly with its branch counts -----===//
//
// The text of each instruction comes from LLVM MC (AT&T syntax on x86-64),
// decoded from the binary's own bytes; lib/Binary's decoder keeps kinds
// and targets only, so the printer lives here. The counts beside it come
// from the analyzer (Analyze.cpp), which knows the binary addresses.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Report/Annotate.h"
#include "lbr2prof/Binary/BinaryImage.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/TargetSelect.h"

using namespace llvm;

namespace lbr2prof {

struct InstPrinter::State {
  object::OwningBinary<object::ObjectFile> Obj;
  std::unique_ptr<MCRegisterInfo> MRI;
  std::unique_ptr<MCAsmInfo> MAI;
  std::unique_ptr<MCSubtargetInfo> STI;
  std::unique_ptr<MCInstrInfo> MII;
  std::unique_ptr<MCContext> Ctx;
  std::unique_ptr<MCDisassembler> Dis;
  std::unique_ptr<MCInstPrinter> Printer;
  bool X86 = false;
};

InstPrinter::InstPrinter() = default;
InstPrinter::~InstPrinter() = default;

Expected<std::unique_ptr<InstPrinter>> InstPrinter::create(StringRef Path) {
  initTargets();
  auto P = std::unique_ptr<InstPrinter>(new InstPrinter());
  P->S = std::make_unique<State>();
  State &S = *P->S;
  auto Obj = object::ObjectFile::createObjectFile(Path);
  if (!Obj)
    return Obj.takeError();
  S.Obj = std::move(*Obj);
  Triple TT = S.Obj.getBinary()->makeTriple();
  S.X86 = TT.isX86();
  std::string Err;
  const Target *T = TargetRegistry::lookupTarget(TT.getTriple(), Err);
  if (!T)
    return createStringError(inconvertibleErrorCode(), "%s: %s",
                             Path.str().c_str(), Err.c_str());
  S.MRI.reset(T->createMCRegInfo(TT.getTriple()));
  MCTargetOptions Opts;
  S.MAI.reset(T->createMCAsmInfo(*S.MRI, TT.getTriple(), Opts));
  S.STI.reset(T->createMCSubtargetInfo(TT.getTriple(), "", ""));
  S.MII.reset(T->createMCInstrInfo());
  S.Ctx = std::make_unique<MCContext>(TT, S.MAI.get(), S.MRI.get(),
                                      S.STI.get());
  S.Dis.reset(T->createMCDisassembler(*S.STI, *S.Ctx));
  S.Printer.reset(T->createMCInstPrinter(TT, 0, *S.MAI, *S.MII, *S.MRI));
  if (!S.Dis || !S.Printer)
    return createStringError(inconvertibleErrorCode(),
                             "%s: no disassembler for %s", Path.str().c_str(),
                             TT.getTriple().c_str());
  S.Printer->setPrintBranchImmAsAddress(true);
  S.Printer->setPrintImmHex(true);
  return std::move(P);
}

std::string InstPrinter::text(uint64_t Addr, unsigned Size) const {
  for (const object::SectionRef &Sec : S->Obj.getBinary()->sections()) {
    if (!Sec.isText() || Addr < Sec.getAddress() ||
        Addr + Size > Sec.getAddress() + Sec.getSize())
      continue;
    Expected<StringRef> Data = Sec.getContents();
    if (!Data) {
      consumeError(Data.takeError());
      return "?";
    }
    ArrayRef<uint8_t> Bytes(
        reinterpret_cast<const uint8_t *>(Data->data()) +
            (Addr - Sec.getAddress()),
        Size);
    MCInst MI;
    uint64_t Got = 0;
    if (S->Dis->getInstruction(MI, Got, Bytes, Addr, nulls()) !=
            MCDisassembler::Success ||
        Got != Size)
      return "(bad)";
    std::string Out;
    raw_string_ostream OS(Out);
    // x86's printer adds a PC-relative operand to the address it is given,
    // and x86 counts from the next instruction; AArch64 from the branch.
    S->Printer->printInst(&MI, S->X86 ? Addr + Size : Addr, "", *S->STI, OS);
    OS.flush();
    // The printer indents with a tab and separates operands with one.
    StringRef T = StringRef(Out).trim();
    std::string R;
    for (char C : T)
      R += C == '\t' ? ' ' : C;
    return R;
  }
  return "?";
}

} // namespace lbr2prof
