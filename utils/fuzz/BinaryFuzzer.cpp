//===- BinaryFuzzer.cpp - fuzz the ELF and DWARF readers ------------------===//
//
// BinaryImage and Symbolizer open files by path, so the input is written to
// a per-process temporary file first (in /dev/shm when it exists). Then: the
// segments and functions, the instructions of up to 64 functions, file
// offsets mapped back to addresses, and the inline stacks at the addresses of
// those instructions and at function starts (looked up in a child process,
// as the tool does).
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Binary/BinaryImage.h"
#include "lbr2prof/Binary/Symbolizer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <string>

using namespace lbr2prof;

static const std::string &tempPath() {
  static const std::string P =
      (llvm::sys::fs::is_directory("/dev/shm") ? std::string("/dev/shm")
                                               : std::string("/tmp")) +
      "/lbr2prof-binary-fuzz-" +
      std::to_string(llvm::sys::Process::getProcessId()) + ".elf";
  return P;
}

namespace {
struct RemoveAtExit {
  ~RemoveAtExit() { llvm::sys::fs::remove(tempPath()); }
} Remover;
} // namespace

static uint64_t Sum = 0;
static void mix(uint64_t V) { Sum = (Sum ^ V) * 0x100000001b3ULL; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  const std::string &Path = tempPath();
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    if (EC)
      return 0;
    OS.write(reinterpret_cast<const char *>(Data), Size);
  }
  auto B = BinaryImage::open(Path);
  if (!B) {
    llvm::consumeError(B.takeError());
    return 0;
  }
  BinaryImage &Img = **B;
  mix(Img.buildId().size());
  mix(Img.isPositionIndependent());
  mix(Img.arch().size());
  mix(Img.hasSymtab());
  for (const Segment &S : Img.segments()) {
    mix(S.VAddr + S.MemSize + S.Offset + S.FileSize + S.Exec);
    for (uint64_t Off : {S.Offset, S.Offset + S.FileSize / 2,
                         S.Offset + S.FileSize, S.Offset + S.FileSize - 1})
      if (std::optional<uint64_t> A = Img.fileOffsetToAddr(Off))
        mix(*A);
  }
  for (uint64_t Off : {uint64_t(0), uint64_t(Size), ~uint64_t(0)})
    if (std::optional<uint64_t> A = Img.fileOffsetToAddr(Off))
      mix(*A);

  std::vector<uint64_t> Addrs;
  llvm::ArrayRef<FunctionSym> Funcs = Img.functions();
  for (unsigned F = 0; F < Funcs.size(); ++F) {
    const FunctionSym &Fn = Funcs[F];
    mix(Fn.Start + Fn.End + Fn.Local + Fn.LocalId + Fn.Parent);
    mix(Fn.Name.size() + Fn.Aliases.size() + Fn.File.size());
    mix(Img.functionAt(Fn.Start));
    if (F >= 64)
      continue;
    Addrs.push_back(Fn.Start);
    llvm::ArrayRef<Inst> Insts = Img.instructions(F);
    for (const Inst &I : Insts) {
      mix(I.Addr + I.Target + I.Size + unsigned(I.Kind));
      if (Addrs.size() < 512)
        Addrs.push_back(I.Addr);
    }
    if (!Insts.empty())
      mix(instIndexAt(Insts, Insts.back().Addr));
  }

  auto S = Symbolizer::create(Path, Img.buildId(), SymbolizerOptions());
  if (!S) {
    llvm::consumeError(S.takeError());
    return 0;
  }
  mix((*S)->hasDebugInfo());
  // DWARF is parsed in child processes (LLVM's parser is not safe on
  // corrupt input); a child that crashes is an error here, which is what the
  // tool reports too. The parent's side (the pipe protocol) is fuzzed.
  if (llvm::Error E = (*S)->prefetch(Addrs, 1)) {
    llvm::consumeError(std::move(E));
    return 0;
  }
  mix((*S)->hasDebugInfo());
  for (uint64_t A : Addrs)
    for (const SourceFrame &Fr : (*S)->frames(A))
      mix(Fr.Function.size() + Fr.LineOffset + Fr.Discriminator + Fr.DupFactor);
  volatile uint64_t Sink = Sum;
  (void)Sink;
  return 0;
}
