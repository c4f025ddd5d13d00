//===- Annotate.cpp - a function's disassembly with its branch counts -----===//
//
// The text of each instruction comes from LLVM MC (AT&T syntax on x86-64),
// decoded from the binary's own bytes with lib/Binary's MC objects
// (McTarget); lib/Binary's decoder keeps kinds and targets only, so the
// printer lives here. The counts beside it come
// from the analyzer (Analyze.cpp), which knows the binary addresses.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Report/Annotate.h"
#include "lbr2prof/Binary/McTarget.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/Object/ObjectFile.h"

using namespace llvm;

namespace lbr2prof {

struct InstPrinter::State {
  object::OwningBinary<object::ObjectFile> Obj;
  std::unique_ptr<McTarget> M;
  std::unique_ptr<MCInstPrinter> Printer;
  bool X86 = false;
};

InstPrinter::InstPrinter() = default;
InstPrinter::~InstPrinter() = default;

Expected<std::unique_ptr<InstPrinter>> InstPrinter::create(StringRef Path) {
  auto P = std::unique_ptr<InstPrinter>(new InstPrinter());
  P->S = std::make_unique<State>();
  State &S = *P->S;
  auto Obj = object::ObjectFile::createObjectFile(Path);
  if (!Obj)
    return Obj.takeError();
  S.Obj = std::move(*Obj);
  Triple TT = S.Obj.getBinary()->makeTriple();
  S.X86 = TT.isX86();
  Expected<std::unique_ptr<McTarget>> M = McTarget::create(TT);
  if (!M)
    return createStringError(inconvertibleErrorCode(), "%s: %s",
                             Path.str().c_str(),
                             toString(M.takeError()).c_str());
  S.M = std::move(*M);
  S.Printer = S.M->makePrinter();
  if (!S.Printer)
    return createStringError(inconvertibleErrorCode(),
                             "%s: no instruction printer for %s",
                             Path.str().c_str(), TT.getTriple().c_str());
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
    if (S->M->Dis->getInstruction(MI, Got, Bytes, Addr, nulls()) !=
            MCDisassembler::Success ||
        Got != Size)
      return "(bad)";
    std::string Out;
    raw_string_ostream OS(Out);
    // x86's printer adds a PC-relative operand to the address it is given,
    // and x86 counts from the next instruction; AArch64 from the branch.
    S->Printer->printInst(&MI, S->X86 ? Addr + Size : Addr, "", *S->M->STI, OS);
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
