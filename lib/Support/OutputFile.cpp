//===- OutputFile.cpp - temporary file + rename ---------------------------===//
//
// Implements AtomicOutputFile with llvm::sys::fs::createUniqueFile in the
// destination's directory (so the rename stays on one file system).
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Support/OutputFile.h"
#include "lbr2prof/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"

using namespace llvm;
namespace lbr2prof {

Expected<std::unique_ptr<AtomicOutputFile>>
AtomicOutputFile::create(StringRef Path) {
  std::unique_ptr<AtomicOutputFile> F(new AtomicOutputFile());
  F->Path = Path.str();
  if (Path == "-") {
    std::error_code EC;
    F->OS = std::make_unique<raw_fd_ostream>("-", EC);
    if (EC)
      return makeError("cannot write to standard output: {0}", EC.message());
    return std::move(F);
  }
  SmallString<256> Model(Path);
  Model += ".tmp%%%%%%";
  int FD;
  SmallString<256> Temp;
  if (std::error_code EC = sys::fs::createUniqueFile(Model, FD, Temp))
    return makeError("{0}: cannot create output: {1}", Path, EC.message());
  F->TempPath = std::string(Temp);
  // A run killed while writing (Ctrl-C, SIGTERM, a full quota's SIGXFSZ)
  // must not leave the temporary behind: LLVM's signal handlers remove it.
  sys::RemoveFileOnSignal(F->TempPath);
  F->OS = std::make_unique<raw_fd_ostream>(FD, /*shouldClose=*/true);
  return std::move(F);
}

AtomicOutputFile::~AtomicOutputFile() {
  if (!Committed && !TempPath.empty()) {
    OS.reset();
    sys::fs::remove(TempPath);
    sys::DontRemoveFileOnSignal(TempPath);
  }
}

Error AtomicOutputFile::commit() {
  OS->flush();
  if (OS->has_error()) {
    std::string Msg = OS->error().message();
    OS->clear_error();
    return makeError("{0}: write failed: {1}", Path, Msg);
  }
  if (TempPath.empty()) {
    Committed = true;
    return Error::success();
  }
  OS->close();
  if (OS->has_error()) {
    std::string Msg = OS->error().message();
    OS->clear_error();
    return makeError("{0}: write failed: {1}", Path, Msg);
  }
  if (std::error_code EC = sys::fs::rename(TempPath, Path))
    return makeError("{0}: cannot replace it with the new output: {1}", Path,
                     EC.message());
  sys::DontRemoveFileOnSignal(TempPath);
  Committed = true;
  return Error::success();
}

} // namespace lbr2prof
