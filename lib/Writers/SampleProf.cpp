//===- SampleProf.cpp - SampleProfileWriter into a temporary file ---------===//
//
// LLVM's writer wants a file name or an owned stream; it writes to a unique
// temporary beside the destination, which is renamed into place only after
// the writer is done and closed.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Writers/SampleProf.h"
#include "lbr2prof/Support/Error.h"
#include "llvm/ProfileData/SampleProfWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"

using namespace llvm;
using namespace llvm::sampleprof;

namespace lbr2prof {

Error writeSampleProfile(SampleProfileMap &Profiles, StringRef Path,
                         const SampleWriterOptions &Opts) {
  if (Opts.UseMD5 && Opts.Format != SampleFormat::ExtBinary)
    return makeError("--use-md5 needs the extbinary format");
  SampleProfileFormat F = Opts.Format == SampleFormat::Text     ? SPF_Text
                          : Opts.Format == SampleFormat::Binary ? SPF_Binary
                                                                : SPF_Ext_Binary;
  bool ToStdout = Path == "-";
  SmallString<256> Temp;
  if (!ToStdout) {
    int FD;
    SmallString<256> Model(Path);
    Model += ".tmp%%%%%%";
    if (std::error_code EC = sys::fs::createUniqueFile(Model, FD, Temp))
      return makeError("{0}: cannot create output: {1}", Path, EC.message());
    sys::Process::SafelyCloseFileDescriptor(FD);
  }
  auto Fail = [&](Error E) {
    if (!ToStdout)
      sys::fs::remove(Temp);
    return E;
  };
  {
    auto W = SampleProfileWriter::create(ToStdout ? StringRef("-")
                                                  : StringRef(Temp),
                                         F);
    if (!W)
      return Fail(makeError("{0}: cannot write the profile: {1}", Path,
                            W.getError().message()));
    if (Opts.UseMD5)
      (*W)->setUseMD5();
    if (std::error_code EC = (*W)->write(Profiles))
      return Fail(makeError("{0}: cannot write the profile: {1}", Path,
                            EC.message()));
  } // The writer's stream is flushed and closed here.
  if (ToStdout)
    return Error::success();
  if (std::error_code EC = sys::fs::rename(Temp, Path))
    return Fail(makeError("{0}: cannot rename {1} into place: {2}", Path,
                          Temp, EC.message()));
  return Error::success();
}

} // namespace lbr2prof
