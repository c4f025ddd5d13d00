//===- Kernel.cpp - kernel profiles: the kernel's map and vmlinux ---------===//
//
// perf names the kernel's text map after its reference relocation symbol
// (`[kernel.kallsyms]_text`, or `_stext` before perf 4.x) and stores that
// symbol's runtime address as the map's page offset. vmlinux's symbol table
// gives its link address; the difference is the KASLR slide.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Driver/Kernel.h"
#include "lbr2prof/Support/Error.h"
#include "llvm/Object/ObjectFile.h"

using namespace llvm;

namespace lbr2prof {

static bool isKernelMap(StringRef Path) {
  return Path.starts_with("[kernel.kallsyms]");
}

Expected<int> findKernelDso(const std::vector<DsoInfo> &Dsos,
                            const RawProfile &Raw, StringRef Input) {
  int Best = -1;
  uint64_t BestN = 0;
  bool Any = false;
  for (int D = 0; D < int(Dsos.size()); ++D) {
    if (!isKernelMap(Dsos[D].Path))
      continue;
    Any = true;
    uint64_t N = Raw.SamplesPerDso.lookup(D);
    if (N > BestN)
      Best = D, BestN = N;
  }
  if (!Any)
    return makeError("{0}: --kernel: the recording has no kernel map "
                     "([kernel.kallsyms]_text); record with perf record -a "
                     "(as root, or with perf_event_paranoid <= 1)",
                     Input);
  if (Best < 0)
    return makeError("{0}: --kernel: no sample is in the kernel; record "
                     "kernel branches (perf record -b -e "
                     "BR_INST_RETIRED.NEAR_TAKEN:k, or -j any,k)",
                     Input);
  return Best;
}

/// The address of the ELF symbol Name in the file at Path.
static Expected<uint64_t> symbolAddress(StringRef Path, StringRef Name) {
  Expected<object::OwningBinary<object::ObjectFile>> Obj =
      object::ObjectFile::createObjectFile(Path);
  if (!Obj)
    return makeError("{0}: {1}", Path, toString(Obj.takeError()));
  for (const object::SymbolRef &S : Obj->getBinary()->symbols()) {
    Expected<StringRef> N = S.getName();
    if (!N) {
      consumeError(N.takeError());
      continue;
    }
    if (*N != Name)
      continue;
    Expected<uint64_t> A = S.getAddress();
    if (!A)
      return makeError("{0}: symbol {1}: {2}", Path, Name,
                       toString(A.takeError()));
    return *A;
  }
  return makeError("{0}: --kernel: no symbol {1} in the symbol table (the "
                   "recording's kernel map is relative to it); give the "
                   "vmlinux the kernel was built as, not a stripped or "
                   "compressed image",
                   Path, Name);
}

Error relocateKernel(RawProfile &Raw, int Dso, StringRef DsoPath,
                     const BinaryImage &Image, StringRef ImagePath) {
  StringRef Sym = DsoPath.drop_front(StringRef("[kernel.kallsyms]").size());
  if (Sym.empty())
    Sym = "_text";
  Expected<uint64_t> Base = symbolAddress(ImagePath, Sym);
  if (!Base)
    return Base.takeError();
  ArrayRef<Segment> Segs = Image.segments();
  Raw.rekey([&](Loc L) -> Loc {
    if (L == ExternalLoc || locDso(L) != Dso)
      return L;
    uint64_t A = *Base + locOffset(L);
    for (const Segment &S : Segs)
      if (S.Exec && A >= S.VAddr && A - S.VAddr < S.FileSize)
        return makeLoc(unsigned(Dso), S.Offset + (A - S.VAddr));
    return ExternalLoc;
  });
  return Error::success();
}

} // namespace lbr2prof
