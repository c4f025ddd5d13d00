//===- Error.cpp - rendering of input errors ------------------------------===//
//
// Formats InputLocation and InputError as one line: the file, then the byte
// offset in hex and the record, then the message.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
namespace lbr2prof {

char InputError::ID;

std::string InputLocation::str() const {
  std::string S;
  raw_string_ostream OS(S);
  OS << File;
  if (Line)
    OS << ":" << Line;
  if (Offset != NoOffset) {
    OS << ": offset ";
    OS << format_hex(Offset, 0);
  }
  if (Record != NoRecord) {
    OS << (Offset != NoOffset ? " (" : ": (") << "record #" << Record;
    if (!RecordKind.empty())
      OS << " " << RecordKind;
    OS << ")";
  }
  return OS.str();
}

void InputError::log(raw_ostream &OS) const {
  OS << Loc.str() << ": ";
  // A message may quote the input, which may be any bytes: control bytes
  // and bytes above ASCII are written as \xNN, so the error stays one
  // printable line.
  for (unsigned char C : Msg) {
    if ((C >= 0x20 && C < 0x7f) || C == '\t')
      OS << C;
    else
      OS << "\\x" << hexdigit(C >> 4, true) << hexdigit(C & 15, true);
  }
}

} // namespace lbr2prof
