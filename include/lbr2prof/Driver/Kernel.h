//===- Kernel.h - kernel profiles: the kernel's map and vmlinux -*- C++ -*-===//
//
// `--kernel` profiles the kernel of a recording (perf record -a -b -e
// ...:k) against a vmlinux whose text is at its link address, as
// llvm-profgen --kernel does. The kernel's samples live on the
// `[kernel.kallsyms]_text` (or `_stext`) map, whose offsets count from that
// symbol's runtime address (ProcessMaps); here they become offsets in the
// vmlinux file through the symbol's link address, so a kernel loaded at a
// random address (KASLR) profiles the same as one at its link address.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_DRIVER_KERNEL_H
#define LBR2PROF_DRIVER_KERNEL_H

#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "lbr2prof/Binary/BinaryImage.h"
#include "llvm/Support/Error.h"

namespace lbr2prof {

/// The DSO index of the kernel's text map with the most samples, or an
/// error naming Input when the recording has none or no kernel samples.
llvm::Expected<int> findKernelDso(const std::vector<DsoInfo> &Dsos,
                                  const RawProfile &Raw, llvm::StringRef Input);

/// Rewrites the Locs of DSO Dso (the kernel text map named DsoPath) from
/// offsets from the map's reference symbol to file offsets in the vmlinux
/// Image (its ELF at ImagePath); kernel code outside Image's segments
/// becomes external. Fails if the symbol is not in vmlinux's symbol table.
llvm::Error relocateKernel(RawProfile &Raw, int Dso, llvm::StringRef DsoPath,
                           const BinaryImage &Image,
                           llvm::StringRef ImagePath);

} // namespace lbr2prof

#endif
