//===- ElfSymbols.cpp - hand-rolled ELF64 symbol table reader -------------===//
//
// Layout facts used (System V gABI, ELF64):
//   Ehdr: e_shoff @40 (u64), e_shentsize @58, e_shnum @60, e_shstrndx @62
//   Shdr (64 B): sh_type @4, sh_offset @24, sh_size @32, sh_link @40,
//                sh_entsize @56
//   Sym (24 B):  st_name @0, st_info @4, st_shndx @6, st_value @8
// SHT_SYMTAB = 2, SHT_DYNSYM = 11; STT_SECTION = 3, STT_FILE = 4.
//
//===----------------------------------------------------------------------===//
#include "ElfSymbols.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <vector>

namespace lbr2prof {
namespace t2p {

namespace {

struct Reader {
  const std::vector<uint8_t> &B;
  bool in(uint64_t Off, uint64_t Len) const {
    return Off <= B.size() && Len <= B.size() - Off;
  }
  uint64_t get(uint64_t Off, unsigned N) const {
    uint64_t V = 0;
    for (unsigned I = 0; I < N; ++I)
      V |= (uint64_t)B[Off + I] << (8 * I);
    return V;
  }
};

} // namespace

bool readElfSymbols(const std::string &Path, uint64_t Bias, LabelMap &Labels,
                    std::string &Err) {
  std::ifstream F(Path, std::ios::binary);
  if (!F) {
    Err = Path + ": cannot open";
    return false;
  }
  std::vector<uint8_t> B((std::istreambuf_iterator<char>(F)),
                         std::istreambuf_iterator<char>());
  Reader R{B};
  if (!R.in(0, 64) || std::memcmp(B.data(),
                                  "\x7f"
                                  "ELF",
                                  4) != 0) {
    Err = Path + ": not an ELF file";
    return false;
  }
  if (B[4] != 2 || B[5] != 1) {
    Err = Path + ": only little-endian ELF64 is supported";
    return false;
  }
  uint64_t ShOff = R.get(40, 8);
  uint64_t ShEntSize = R.get(58, 2);
  uint64_t ShNum = R.get(60, 2);
  if (ShNum == 0 && ShOff && R.in(ShOff, 64))
    ShNum = R.get(ShOff + 32, 8); // extended section numbering
  if (ShEntSize < 64 || !R.in(ShOff, ShNum * ShEntSize)) {
    Err = Path + ": section header table out of bounds";
    return false;
  }
  // name -> (bind is global/weak) so a global replaces a local.
  std::map<std::string, bool> IsGlobal;
  bool FoundTable = false;
  for (uint32_t WantType : {2u, 11u}) {
    for (uint64_t I = 0; I < ShNum; ++I) {
      uint64_t Sh = ShOff + I * ShEntSize;
      if (R.get(Sh + 4, 4) != WantType)
        continue;
      FoundTable = true;
      uint64_t Off = R.get(Sh + 24, 8), Size = R.get(Sh + 32, 8);
      uint64_t Link = R.get(Sh + 40, 4), EntSize = R.get(Sh + 56, 8);
      if (EntSize < 24)
        EntSize = 24;
      if (!R.in(Off, Size) || Link >= ShNum) {
        Err = Path + ": symbol table out of bounds";
        return false;
      }
      uint64_t StrSh = ShOff + Link * ShEntSize;
      uint64_t StrOff = R.get(StrSh + 24, 8), StrSize = R.get(StrSh + 32, 8);
      if (!R.in(StrOff, StrSize)) {
        Err = Path + ": string table out of bounds";
        return false;
      }
      for (uint64_t S = Off; S + 24 <= Off + Size; S += EntSize) {
        uint64_t Name = R.get(S, 4);
        uint8_t Info = B[S + 4];
        uint64_t Shndx = R.get(S + 6, 2);
        unsigned Type = Info & 0xf, Bind = Info >> 4;
        if (Name == 0 || Name >= StrSize || Shndx == 0 || Type == 3 ||
            Type == 4)
          continue;
        const char *P = (const char *)B.data() + StrOff + Name;
        size_t Len = strnlen(P, StrSize - Name);
        std::string N(P, Len);
        bool Global = Bind == 1 || Bind == 2;
        auto It = IsGlobal.find(N);
        bool Replace =
            It == IsGlobal.end() ? !Labels.count(N) : (!It->second && Global);
        if (!Replace)
          continue;
        IsGlobal[N] = Global;
        Labels[N] = R.get(S + 8, 8) + Bias;
      }
    }
  }
  if (!FoundTable) {
    Err = Path + ": no .symtab or .dynsym";
    return false;
  }
  return true;
}

} // namespace t2p
} // namespace lbr2prof
