//===- Annotate.h - instruction text for the annotated view -----*- C++ -*-===//
#ifndef LBR2PROF_REPORT_ANNOTATE_H
#define LBR2PROF_REPORT_ANNOTATE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>

namespace lbr2prof {

/// Prints instructions of an ELF file as LLVM MC's printer does (AT&T on
/// x86-64), branch targets as addresses.
class InstPrinter {
public:
  static llvm::Expected<std::unique_ptr<InstPrinter>>
  create(llvm::StringRef Path);
  ~InstPrinter();
  /// The instruction of Size bytes at link-time address Addr; "?" if no
  /// code section holds it, "(bad)" if it does not decode to Size bytes.
  std::string text(uint64_t Addr, unsigned Size) const;

private:
  InstPrinter();
  struct State;
  std::unique_ptr<State> S;
};

} // namespace lbr2prof

#endif
