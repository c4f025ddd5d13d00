//===- Error.h - errors that name the input, the place and the fault -*- C++ -*-===//
//
// Every library in lbr2prof reports bad input through llvm::Error. An
// InputError carries what a user needs to find the fault: the file, the byte
// offset, the record (index and kind) when there is one, and a sentence that
// says what was expected and what was found. Its message renders as
//   app.data: offset 0x1a0 (record #12 SAMPLE): branch stack claims 4096
//   entries, 744 bytes remain
// which the tool prefixes with "error: ".
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_SUPPORT_ERROR_H
#define LBR2PROF_SUPPORT_ERROR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include <cstdint>
#include <string>

namespace lbr2prof {

/// Where in an input a fault was found. Offset is a byte offset in the file
/// as stored (for records inside a compressed chunk, the chunk's offset; the
/// detail says where in the decompressed stream).
struct InputLocation {
  std::string File;
  /// Byte offset in the file, or NoOffset.
  uint64_t Offset = NoOffset;
  /// 1-based line number for text inputs, or 0.
  uint64_t Line = 0;
  /// 0-based record index in the data section, or NoRecord.
  uint64_t Record = NoRecord;
  /// Record kind name, e.g. "SAMPLE"; empty when unknown.
  std::string RecordKind;

  static constexpr uint64_t NoOffset = ~0ULL;
  static constexpr uint64_t NoRecord = ~0ULL;

  /// Renders "file: offset 0x1a0 (record #12 SAMPLE)" (only the parts set).
  std::string str() const;
};

/// An error in an input file: location plus a message.
class InputError : public llvm::ErrorInfo<InputError> {
public:
  static char ID;
  InputError(InputLocation Loc, std::string Msg)
      : Loc(std::move(Loc)), Msg(std::move(Msg)) {}
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  const InputLocation &location() const { return Loc; }
  llvm::StringRef detail() const { return Msg; }

private:
  InputLocation Loc;
  std::string Msg;
};

/// Makes an InputError.
inline llvm::Error inputError(InputLocation Loc, const llvm::Twine &Msg) {
  return llvm::make_error<InputError>(std::move(Loc), Msg.str());
}

/// Makes a plain error from a formatted message (for faults with no input
/// location: options, environment).
template <typename... Ts>
llvm::Error makeError(const char *Fmt, Ts &&...Vals) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv(Fmt, std::forward<Ts>(Vals)...).str());
}

} // namespace lbr2prof

#endif
