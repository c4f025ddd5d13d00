//===- SampleProf.cpp - SampleProfileWriter into an AtomicOutputFile ------===//
//
// LLVM's writer wants a file name or a stream it owns, and an owned
// raw_fd_ostream reports a failed close as a fatal error. So the writer gets
// a stream of its own that forwards every write (and the ExtBinary format's
// pwrite of its section table) to the AtomicOutputFile's, whose commit()
// checks for errors and puts the output in place (a temporary renamed, or
// standard output and special files written through).
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Writers/SampleProf.h"
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Support/OutputFile.h"
#include "llvm/ProfileData/SampleProfWriter.h"

using namespace llvm;
using namespace llvm::sampleprof;

namespace lbr2prof {

namespace {
/// An unbuffered stream that forwards to a stream it does not own.
class ForwardingStream : public raw_pwrite_stream {
public:
  explicit ForwardingStream(raw_pwrite_stream &Target) : Target(Target) {
    SetUnbuffered();
  }

private:
  void write_impl(const char *P, size_t N) override { Target.write(P, N); }
  void pwrite_impl(const char *P, size_t N, uint64_t Offset) override {
    Target.pwrite(P, N, Offset);
  }
  uint64_t current_pos() const override { return Target.tell(); }
  raw_pwrite_stream &Target;
};

/// The largest count clang turns into a 32-bit branch weight: body samples
/// and call-target counts, inlined callees included.
uint64_t maxWeightCount(const FunctionSamples &FS) {
  uint64_t M = 0;
  for (const auto &[L, R] : FS.getBodySamples()) {
    M = std::max(M, R.getSamples());
    for (const auto &[F, C] : R.getCallTargets())
      M = std::max(M, C);
  }
  for (const auto &[L, Callees] : FS.getCallsiteSamples())
    for (const auto &[N, Callee] : Callees)
      M = std::max(M, maxWeightCount(Callee));
  return M;
}

/// C / D rounded, but a count that was not 0 stays at least 1 (ran, if
/// rarely, is not the explicit 0 of code that never ran).
uint64_t scaleDown(uint64_t C, uint64_t D) {
  return C ? std::max<uint64_t>(1, C / D + (C % D >= D - D / 2)) : 0;
}

/// FS with every count divided by D (LLVM can only scale up, by merging).
FunctionSamples scaledDown(const FunctionSamples &FS, uint64_t D) {
  FunctionSamples R;
  R.setContext(FS.getContext());
  R.setFunctionHash(FS.getFunctionHash());
  R.addTotalSamples(scaleDown(FS.getTotalSamples(), D));
  R.addHeadSamples(scaleDown(FS.getHeadSamples(), D));
  for (const auto &[L, Rec] : FS.getBodySamples()) {
    R.addBodySamples(L.LineOffset, L.Discriminator,
                     scaleDown(Rec.getSamples(), D));
    for (const auto &[F, C] : Rec.getCallTargets())
      R.addCalledTargetSamples(L.LineOffset, L.Discriminator, F,
                               scaleDown(C, D));
  }
  for (const auto &[L, Callees] : FS.getCallsiteSamples())
    for (const auto &[N, Callee] : Callees)
      R.functionSamplesAt(L).emplace(N, scaledDown(Callee, D));
  return R;
}

} // namespace

uint64_t fitBranchWeights(SampleProfileMap &Profiles) {
  uint64_t Max = 0;
  for (const auto &KV : Profiles)
    Max = std::max(Max, maxWeightCount(KV.second));
  if (Max <= MaxWeightCount)
    return 1;
  uint64_t D = Max / MaxWeightCount + (Max % MaxWeightCount != 0);
  SampleProfileMap Scaled;
  for (const auto &KV : Profiles)
    Scaled.create(KV.second.getContext()) = scaledDown(KV.second, D);
  Profiles = std::move(Scaled);
  return D;
}

Error writeSampleProfile(SampleProfileMap &Profiles, StringRef Path,
                         const SampleWriterOptions &Opts) {
  if (Opts.UseMD5 && Opts.Format != SampleFormat::ExtBinary)
    return makeError("--use-md5 needs the extbinary format");
  // The binary format stores no checksums, and LLVM's reader would take
  // the profile for a line-based one (llvm-profgen refuses it too).
  if (Opts.ProbeBased && Opts.Format == SampleFormat::Binary)
    return makeError("{0}: a probe-based profile cannot be written in the "
                     "binary format (it has no room for CFG checksums): use "
                     "extbinary or text, or --use-dwarf-correlation for a "
                     "line-based profile",
                     Path);
  SampleProfileFormat F = Opts.Format == SampleFormat::Text     ? SPF_Text
                          : Opts.Format == SampleFormat::Binary ? SPF_Binary
                                                                : SPF_Ext_Binary;
  Expected<std::unique_ptr<AtomicOutputFile>> Out =
      AtomicOutputFile::create(Path);
  if (!Out)
    return Out.takeError();
  {
    std::unique_ptr<raw_ostream> S =
        std::make_unique<ForwardingStream>((*Out)->os());
    auto W = SampleProfileWriter::create(S, F);
    if (!W)
      return makeError("{0}: cannot write the profile: {1}", Path,
                       W.getError().message());
    if (Opts.UseMD5)
      (*W)->setUseMD5();
    // LLVM's writers read these process-wide flags; set them for this
    // write only.
    bool WasProbeBased = FunctionSamples::ProfileIsProbeBased;
    bool WasPreInlined = FunctionSamples::ProfileIsPreInlined;
    FunctionSamples::ProfileIsProbeBased = Opts.ProbeBased;
    FunctionSamples::ProfileIsPreInlined = Opts.PreInlined;
    std::error_code EC = (*W)->write(Profiles);
    FunctionSamples::ProfileIsProbeBased = WasProbeBased;
    FunctionSamples::ProfileIsPreInlined = WasPreInlined;
    if (EC)
      return makeError("{0}: cannot write the profile: {1}", Path,
                       EC.message());
  }
  return (*Out)->commit();
}

} // namespace lbr2prof
