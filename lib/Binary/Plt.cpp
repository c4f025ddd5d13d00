//===- Plt.cpp - PLT entries as functions named foo@PLT -------------------===//
//
// A call to an exported function from a shared library (or from a PIE to a
// library) goes through a PLT stub that jumps through a GOT slot. No symbol
// covers the stubs, so without this file a call into one has no target
// function and the stub's jump has no source. Each stub becomes a
// FunctionSym named `foo@PLT`, as BOLT names it (perf writes `foo@plt`),
// marked Plt, with PltTarget set to foo's index when foo is defined in the
// same binary (the stub then jumps there unless foo is interposed).
//
// A stub is named by its GOT slot: the slot's dynamic relocation
// (JUMP_SLOT in .rela.plt, GLOB_DAT in .rela.dyn for .plt.got) names the
// symbol. Layouts read:
//   x86-64 .plt      16-byte entries after the 16-byte PLT0 header:
//                      jmp *slot(%rip); push $n; jmp PLT0
//   x86-64 .plt.sec  16-byte IBT entries: endbr64; bnd jmp *slot(%rip); nop
//   x86-64 .plt.got  8-byte entries (16 with IBT): [endbr64;] jmp *slot(%rip)
//   AArch64 .plt     16-byte entries after the 32-byte header (a `bti c`
//                    before them with BTI):
//                      adrp x16, slot; ldr x17, [x16, :lo12:slot]; ...; br x17
// With IBT the lazy `.plt` entries (endbr64; push; bnd jmp PLT0) hold no
// slot and stay unnamed; calls go to `.plt.sec`, which is named.
//
// Why not ELFObjectFileBase::getPltEntries() (LLVM 19): it reads only the
// sections named `.plt` and `.plt.got`, so IBT binaries' `.plt.sec` stubs,
// the ones calls go to, stay unnamed (llvm-objdump-19 -d shows a bare
// `<.plt.sec>`); it places a stub at its `jmp *slot(%rip)`, so an IBT
// `.plt.got` stub would start 4 bytes in, after its endbr64, where no call
// lands (llvm-objdump-19 prints `__cxa_finalize@plt` at 0x1044 for a stub
// at 0x1040); and it looks the target up in the global TargetRegistry, so
// lib/Binary's MC initialisation (Disassemble.cpp) would have to run
// before the symbol table is read. Reading the few fixed stub encodings
// here needs no MC and checks every offset against the section.
//
//===----------------------------------------------------------------------===//
#include "BinaryImpl.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"
#include <algorithm>
#include <map>
#include <tuple>

using namespace llvm;
using namespace llvm::object;

namespace lbr2prof {
namespace {

using ELFT = ELF64LE;

/// One stub: [Start, Start + Size), and the binary address of its GOT slot.
struct Stub {
  uint64_t Start, Size, Slot;
};

/// Stubs of an x86-64 PLT section with entries of EntSize bytes: each entry
/// that begins with `jmp *disp32(%rip)` (ff 25), maybe after endbr64
/// (f3 0f 1e fa) and a bnd prefix (f2). Only these four openings are read:
/// an IBT lazy entry (endbr64; push $n; bnd jmp PLT0) can hold ff 25 in
/// its push's operand.
void x86Stubs(uint64_t Addr, ArrayRef<uint8_t> Bytes, uint64_t EntSize,
              std::vector<Stub> &Out) {
  static constexpr StringLiteral Openings[] = {
      "\xff\x25", "\xf2\xff\x25", "\xf3\x0f\x1e\xfa\xff\x25",
      "\xf3\x0f\x1e\xfa\xf2\xff\x25"};
  for (uint64_t E = 0; E + EntSize <= Bytes.size(); E += EntSize) {
    StringRef Entry(reinterpret_cast<const char *>(&Bytes[E]), EntSize);
    for (StringRef O : Openings) {
      // The opening and the 4-byte displacement after it.
      uint64_t Len = O.size() + 4;
      if (Len > EntSize || !Entry.starts_with(O))
        continue;
      int32_t Disp = int32_t(support::endian::read32le(&Bytes[E + O.size()]));
      Out.push_back({Addr + E, EntSize, Addr + E + Len + int64_t(Disp)});
      break;
    }
  }
}

/// Stubs of an AArch64 .plt: every `adrp x16, P` followed by
/// `ldr x17, [x16, #imm]` (a stub starts there, or at a `bti c` just
/// before it); the slot is P + imm.
void aarch64Stubs(uint64_t Addr, ArrayRef<uint8_t> Bytes,
                  std::vector<Stub> &Out) {
  auto Word = [&](uint64_t Off) {
    return support::endian::read32le(&Bytes[Off]);
  };
  constexpr uint32_t BtiC = 0xd503245f;
  for (uint64_t Off = 0; Off + 16 <= Bytes.size(); Off += 4) {
    uint32_t Adrp = Word(Off), Ldr = Word(Off + 4);
    // adrp x16: op=1, bits 28-24 = 10000, Rd = 16.
    if ((Adrp & 0x9f00001f) != 0x90000010)
      continue;
    // ldr x17, [x16, #imm12 * 8] (unsigned offset, 64-bit).
    if ((Ldr & 0xffc003ff) != 0xf9400211)
      continue;
    int64_t Imm = int64_t(((Adrp >> 29) & 3) | (((Adrp >> 5) & 0x7ffff) << 2));
    if (Imm & (int64_t(1) << 20)) // sign bit of the 21-bit page count
      Imm -= int64_t(1) << 21;
    uint64_t Pc = Addr + Off;
    uint64_t Page = (Pc & ~uint64_t(0xfff)) + uint64_t(Imm * 4096);
    uint64_t Slot = Page + ((Ldr >> 10) & 0xfff) * 8;
    bool Bti = Off >= 4 && Word(Off - 4) == BtiC;
    Out.push_back({Pc - (Bti ? 4 : 0), Bti ? 20u : 16u, Slot});
    Off += 12;
  }
}

/// GOT slot -> symbol name, from the JUMP_SLOT and GLOB_DAT relocations of
/// the allocated (dynamic) RELA sections. Unreadable sections are skipped:
/// PLT names are a convenience, not a reason to refuse the binary.
std::map<uint64_t, std::string> slotSymbols(const ELFFile<ELFT> &E,
                                            ArrayRef<ELFT::Shdr> Sections,
                                            bool X86) {
  uint32_t JumpSlot = X86 ? ELF::R_X86_64_JUMP_SLOT : ELF::R_AARCH64_JUMP_SLOT;
  uint32_t GlobDat = X86 ? ELF::R_X86_64_GLOB_DAT : ELF::R_AARCH64_GLOB_DAT;
  std::map<uint64_t, std::string> Names;
  for (const auto &S : Sections) {
    if (S.sh_type != ELF::SHT_RELA || !(S.sh_flags & ELF::SHF_ALLOC))
      continue;
    auto SymTab = E.getSection(S.sh_link);
    auto Relas = E.relas(S);
    if (!SymTab || !Relas) {
      if (!SymTab)
        consumeError(SymTab.takeError());
      if (!Relas)
        consumeError(Relas.takeError());
      continue;
    }
    auto Syms = E.symbols(*SymTab);
    auto Str = E.getStringTableForSymtab(**SymTab);
    if (!Syms || !Str) {
      if (!Syms)
        consumeError(Syms.takeError());
      if (!Str)
        consumeError(Str.takeError());
      continue;
    }
    for (const auto &R : *Relas) {
      uint32_t Type = R.getType(/*IsMips64EL=*/false);
      uint32_t Index = R.getSymbol(/*IsMips64EL=*/false);
      if ((Type != JumpSlot && Type != GlobDat) || Index == 0 ||
          Index >= Syms->size())
        continue;
      auto Name = (*Syms)[Index].getName(*Str);
      if (!Name) {
        consumeError(Name.takeError());
        continue;
      }
      if (!Name->empty())
        Names.emplace(R.r_offset, Name->str());
    }
  }
  return Names;
}

/// The stubs of every PLT section of the binary.
std::vector<Stub> findStubs(ArrayRef<CodeSection> Code, bool X86) {
  std::vector<Stub> Stubs;
  for (const CodeSection &C : Code) {
    StringRef N = C.Name;
    if (!X86) {
      if (N == ".plt")
        aarch64Stubs(C.Addr, C.Bytes, Stubs);
      continue;
    }
    // An IBT entry starts with endbr64 (f3 0f 1e fa); .plt.got's entries
    // are 8 bytes without it, 16 with it.
    bool Ibt = C.Bytes.size() >= 4 && C.Bytes[0] == 0xf3 &&
               C.Bytes[1] == 0x0f && C.Bytes[2] == 0x1e && C.Bytes[3] == 0xfa;
    if (N == ".plt" || N == ".plt.sec")
      x86Stubs(C.Addr, C.Bytes, 16, Stubs);
    else if (N == ".plt.got")
      x86Stubs(C.Addr, C.Bytes, Ibt ? 16 : 8, Stubs);
  }
  return Stubs;
}

} // namespace

std::vector<FunctionSym> pltStubs(const ELFFile<ELFT> &E,
                                  ArrayRef<ELFT::Shdr> Sections,
                                  BinaryImage::Impl &B) {
  bool X86 = B.Arch == "x86_64";
  std::vector<FunctionSym> Plts;
  std::vector<Stub> Stubs = findStubs(B.Code, X86);
  if (Stubs.empty())
    return Plts;
  std::map<uint64_t, std::string> Names = slotSymbols(E, Sections, X86);
  for (const Stub &S : Stubs) {
    auto It = Names.find(S.Slot);
    if (It == Names.end())
      continue;
    FunctionSym &F = Plts.emplace_back();
    F.Start = S.Start;
    F.End = S.Start + S.Size;
    F.Name = B.Names.save(It->second + "@PLT");
    F.Plt = true;
  }
  llvm::sort(Plts, [](const FunctionSym &A, const FunctionSym &B) {
    return A.Start < B.Start;
  });
  return Plts;
}

void linkPltTargets(std::vector<FunctionSym> &Fs, ArrayRef<uint32_t> Stubs) {
  // PltTarget: the global function of the same name in this binary (the
  // first in address order, by name, then by alias). One pass over the
  // functions: the stubs are known by position (a pass to find them and
  // one to set them were 3% of a 300 MB binary's fixed profile).
  StringMap<int> Targets;
  // Lengths of the targets' names: most binaries call a few library
  // functions and define hundreds of thousands, whose names need no hash
  // unless their length matches (hashing 480k names was 5% of a 300 MB
  // binary's profile, bench/scale).
  std::vector<bool> Lengths;
  for (uint32_t K : Stubs) {
    assert(Fs[K].Plt && "Stubs lists the stubs");
    StringRef N = Fs[K].Name.drop_back(4);
    Targets.try_emplace(N, -1);
    if (Lengths.size() <= N.size())
      Lengths.resize(N.size() + 1);
    Lengths[N.size()] = true;
  }
  if (Targets.empty())
    return;
  auto claim = [&](StringRef Name, int K) {
    if (Name.size() >= Lengths.size() || !Lengths[Name.size()])
      return;
    auto It = Targets.find(Name);
    if (It != Targets.end() && It->second < 0)
      It->second = K;
  };
  for (size_t K = 0; K < Fs.size(); ++K)
    if (!Fs[K].Plt && !Fs[K].Local) {
      claim(Fs[K].Name, int(K));
      for (StringRef A : Fs[K].Aliases)
        claim(A, int(K));
    }
  for (uint32_t K : Stubs)
    Fs[K].PltTarget = Targets.lookup(Fs[K].Name.drop_back(4));
}

} // namespace lbr2prof
