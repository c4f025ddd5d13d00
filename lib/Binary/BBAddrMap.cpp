//===- BBAddrMap.cpp - read .llvm_bb_addr_map -----------------------------===//
//
// The section is decoded by LLVM Object (ELFObjectFileBase::readBBAddrMap,
// which checks every field against the section's end). Here the entries
// become absolute [Start, End) ranges; a function split into several ranges
// (a build that already had basic block sections) keeps all of them.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Binary/BBAddrMap.h"
#include "lbr2prof/Support/Error.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include <algorithm>
#include <tuple>

using namespace llvm;
using namespace llvm::object;

namespace lbr2prof {

Expected<std::vector<MachineFunctionBlocks>> readMachineBlocks(StringRef Path) {
  Expected<OwningBinary<ObjectFile>> Obj = ObjectFile::createObjectFile(Path);
  if (!Obj)
    return makeError("{0}: {1}", Path, toString(Obj.takeError()));
  auto *Elf = dyn_cast<ELFObjectFileBase>(Obj->getBinary());
  if (!Elf)
    return makeError("{0}: not an ELF file", Path);
  bool Found = false;
  for (const SectionRef &S : Elf->sections()) {
    Expected<StringRef> Name = S.getName();
    if (Name && *Name == ".llvm_bb_addr_map")
      Found = true;
  }
  if (!Found)
    return makeError("{0}: no .llvm_bb_addr_map section: Propeller output "
                     "maps addresses to basic block ids with it; build with "
                     "clang -fbasic-block-address-map (LLVM 19)",
                     Path);
  std::vector<PGOAnalysisMap> Pgo;
  Expected<std::vector<BBAddrMap>> Maps =
      Elf->readBBAddrMap(std::nullopt, &Pgo);
  if (!Maps)
    return makeError("{0}: .llvm_bb_addr_map: {1}", Path,
                     toString(Maps.takeError()));
  std::vector<MachineFunctionBlocks> Out;
  Out.reserve(Maps->size());
  for (size_t I = 0; I < Maps->size(); ++I) {
    const BBAddrMap &M = (*Maps)[I];
    MachineFunctionBlocks F;
    F.Entry = M.getFunctionAddress();
    for (const BBAddrMap::BBRangeEntry &R : M.getBBRanges())
      for (const BBAddrMap::BBEntry &E : R.BBEntries) {
        MachineBlock B;
        B.Id = E.ID;
        B.Start = R.BaseAddress + E.Offset;
        B.End = B.Start + E.Size;
        B.CanFallThrough = E.canFallThrough();
        F.Blocks.push_back(B);
      }
    // The PGO entries follow the blocks' order in the map. Only a function
    // in one range (the compiler's own layout) keeps them.
    if (I < Pgo.size() && Pgo[I].FeatEnable.BBFreq &&
        Pgo[I].FeatEnable.BrProb && M.getBBRanges().size() == 1 &&
        Pgo[I].BBEntries.size() == F.Blocks.size()) {
      F.HasCfg = true;
      for (size_t K = 0; K < F.Blocks.size(); ++K) {
        const PGOAnalysisMap::PGOBBEntry &E = Pgo[I].BBEntries[K];
        F.Blocks[K].Freq = E.BlockFreq.getFrequency();
        for (const PGOAnalysisMap::PGOBBEntry::SuccessorEntry &S :
             E.Successors)
          F.Blocks[K].Succs.push_back({S.ID, S.Prob.getNumerator()});
      }
    }
    // Entries are in address order within a range; ranges may not be. An
    // empty block goes before the block that starts where it does. One
    // range is in order already and keeps the map's order (the compiler's
    // layout, whose neighbours loopAligned reads).
    auto ByAddr = [](const MachineBlock &A, const MachineBlock &B) {
      return std::tie(A.Start, A.End) < std::tie(B.Start, B.End);
    };
    if (!std::is_sorted(F.Blocks.begin(), F.Blocks.end(), ByAddr))
      std::sort(F.Blocks.begin(), F.Blocks.end(), ByAddr);
    Out.push_back(std::move(F));
  }
  std::sort(Out.begin(), Out.end(),
            [](const MachineFunctionBlocks &A, const MachineFunctionBlocks &B) {
              return A.Entry < B.Entry;
            });
  return Out;
}

} // namespace lbr2prof
