//===- UnitIndex.cpp - which compile unit covers an address ---------------===//
//
// The ranges of a unit are those DWARFUnit::collectAddressRanges takes
// from its unit DIE (DWARFDie::getAddressRanges): low and high PC if both
// resolve and low is not the tombstone, else DW_AT_ranges, else none.
// DWARFDebugAranges then drops empty ranges and, where ranges of several
// units overlap, picks among them by a rule that depends on its sort
// order; overlaps are left to it.
//
//===----------------------------------------------------------------------===//
#include "UnitIndex.h"
#include "FileWindow.h"
#include "Leb128.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/DebugInfo/DWARF/DWARFDataExtractor.h"
#include "llvm/DebugInfo/DWARF/DWARFDebugRangeList.h"
#include "llvm/DebugInfo/DWARF/DWARFDebugRnglists.h"
#include "llvm/DebugInfo/DWARF/DWARFFormValue.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Object/ELFObjectFile.h"
#include <algorithm>
#include <memory>

using namespace llvm;
using namespace llvm::object;

namespace lbr2prof {

namespace {

/// A section the index reads, uncompressed in the file: its bytes in the
/// mapping, its file offset, and, where set, the window its bytes are
/// read through (FileWindow.h: reading a few bytes of each of 9,600 units
/// through the mapping faulted all 48 MB of a 300 MB binary's .debug_info,
/// and 11 MB of .debug_addr, into this process, whose peak memory is the
/// run's: 288 instead of 230 MB; units, their abbreviation tables and
/// address pools come in file order, so one 64 KiB window serves the next
/// ones: 750 reads of .debug_info there, not 9,600).
struct SectionBytes {
  StringRef Data;
  uint64_t At = 0;
  std::unique_ptr<FileWindow> Window;

  uint64_t size() const { return Data.size(); }
  /// Bytes [Off, Off + Len), clipped to the section; valid until the next
  /// read. From the mapping when there is no window or it cannot read them.
  StringRef read(uint64_t Off, uint64_t Len) {
    if (Off >= Data.size())
      return StringRef();
    Len = std::min<uint64_t>(Len, Data.size() - Off);
    if (Window)
      if (StringRef R = Window->read(At + Off, Len); R.size() == Len)
        return R;
    return Data.substr(Off, Len);
  }
};

/// The sections the index reads.
struct Sections {
  SectionBytes Info, Abbrev, Addr, Ranges, Rnglists;
};

/// Finds the sections; false if LLVM must read the file (compressed or
/// .dwo sections, a .debug_aranges section, no .debug_info).
bool findSections(const ObjectFile &Obj, Sections &S) {
  if (!Obj.isELF() || Obj.isRelocatableObject())
    return false;
  for (const SectionRef &Sec : Obj.sections()) {
    Expected<StringRef> Name = Sec.getName();
    if (!Name) {
      consumeError(Name.takeError());
      return false;
    }
    if (Name->starts_with(".zdebug") || Name->ends_with(".dwo"))
      return false;
    // LLVM reads .debug_aranges first and then only the units it does not
    // cover; type units come with their own rules: both need LLVM unless
    // empty.
    bool MustBeEmpty = *Name == ".debug_aranges" || *Name == ".debug_types";
    SectionBytes *Slot = StringSwitch<SectionBytes *>(*Name)
                          .Case(".debug_info", &S.Info)
                          .Case(".debug_abbrev", &S.Abbrev)
                          .Case(".debug_addr", &S.Addr)
                          .Case(".debug_ranges", &S.Ranges)
                          .Case(".debug_rnglists", &S.Rnglists)
                          .Default(nullptr);
    if (!Slot && !MustBeEmpty)
      continue;
    if (ELFSectionRef(Sec).getFlags() & ELF::SHF_COMPRESSED)
      return false;
    Expected<StringRef> Data = Sec.getContents();
    if (!Data) {
      consumeError(Data.takeError());
      return false;
    }
    if (MustBeEmpty) {
      if (!Data->empty())
        return false;
      continue;
    }
    if (!Slot->Data.empty())
      return false; // twice
    Slot->Data = *Data;
    Slot->At = ELFSectionRef(Sec).getOffset();
  }
  return !S.Info.Data.empty() && !S.Abbrev.Data.empty();
}

/// What a unit DIE says about the unit's addresses.
struct UnitAttrs {
  std::optional<DWARFFormValue> LowPc, HighPc, Ranges, EntryPc;
  std::optional<uint64_t> AddrBase, RnglistsBase;
};

/// An attribute of an abbreviation declaration.
struct Spec {
  uint64_t Attr, Form;
  int64_t Const; ///< DW_FORM_implicit_const's value
};

/// The tag and attributes of abbreviation Code in the table at Off, read
/// from the bytes: LLVM's DWARFAbbreviationDeclaration::extract builds a
/// vector and works out fixed sizes for each declaration (30M
/// instructions for the first declarations of 9,600 units), and
/// scanning whole tables was 60M more. The declarations up to Code's are
/// checked as DWARFAbbreviationDeclarationSet::extract checks them
/// (non-null tags, attribute lists ended by a null pair, no lone null
/// attribute or form, no read past the section); false if one fails or
/// the code is not in the table. A table that goes wrong only after the
/// unit's declaration is left to the child that reads the unit's DIEs:
/// LLVM then reads none, and its addresses get no lines, as they would
/// have without a unit.
bool findDecl(StringRef Abbrev, uint64_t Off, uint64_t Code, uint64_t &Tag,
              SmallVectorImpl<Spec> &Out) {
  if (Off >= Abbrev.size())
    return false;
  const uint8_t *P = Abbrev.bytes_begin() + Off, *E = Abbrev.bytes_end();
  for (;;) {
    uint64_t Cd, T;
    if (!uleb(P, E, Cd) || Cd == 0)
      return false;
    if (!uleb(P, E, T) || T == 0 || P == E)
      return false;
    ++P; // DW_CHILDREN_*
    bool Mine = Cd == Code; // a code given twice: the first
    if (Mine)
      Tag = T;
    for (;;) {
      uint64_t A, F;
      if (!uleb(P, E, A) || !uleb(P, E, F) || (A == 0) != (F == 0))
        return false;
      if (A == 0)
        break;
      int64_t V = 0;
      if (F == dwarf::DW_FORM_implicit_const && !sleb(P, E, V))
        return false;
      if (Mine)
        Out.push_back({A, F, V});
    }
    if (Mine)
      return true;
  }
}

/// Reads the unit DIE at Off (its abbreviation table at AbbrOff); false
/// if it is not a plain compile unit DIE this index can read.
bool readUnitDie(Sections &S, const DWARFDataExtractor &Info,
                 uint64_t Off, uint64_t End, uint64_t AbbrOff,
                 const dwarf::FormParams &Params, UnitAttrs &A) {
  uint64_t Code = Info.getULEB128(&Off);
  if (Code == 0 || Off > End)
    return false;
  uint64_t Tag = 0;
  SmallVector<Spec, 16> Specs;
  // The unit's declaration is usually the table's first: 512 bytes hold
  // it, else the rest of the section is read.
  StringRef Table = S.Abbrev.read(AbbrOff, 512);
  if (!findDecl(Table, 0, Code, Tag, Specs)) {
    if (AbbrOff + Table.size() >= S.Abbrev.size())
      return false;
    Specs.clear();
    Table = S.Abbrev.read(AbbrOff, S.Abbrev.size());
    if (!findDecl(Table, 0, Code, Tag, Specs))
      return false;
  }
  if (Tag != dwarf::DW_TAG_compile_unit)
    return false;
  for (const Spec &Sp : Specs) {
    auto Form = dwarf::Form(Sp.Form);
    DWARFFormValue V = Form == dwarf::DW_FORM_implicit_const
                           ? DWARFFormValue::createFromSValue(Form, Sp.Const)
                           : DWARFFormValue(Form);
    // skipValue first: it refuses a form it does not know (also through
    // DW_FORM_indirect), where extractValue reaches llvm_unreachable
    // (found by binary-fuzzer); LLVM's own DIE reader skips before it
    // extracts too.
    uint64_t Probe = Off;
    if (Form != dwarf::DW_FORM_implicit_const &&
        (!DWARFFormValue::skipValue(Form, Info, &Probe, Params) ||
         !V.extractValue(Info, &Off, Params, nullptr, nullptr)))
      return false;
    if (Off > End)
      return false;
    // The first of an attribute counts (DWARFDie::find).
    auto keep = [&](std::optional<DWARFFormValue> &Slot) {
      if (!Slot)
        Slot = V;
    };
    switch (Sp.Attr) {
    case dwarf::DW_AT_low_pc:
      keep(A.LowPc);
      break;
    case dwarf::DW_AT_high_pc:
      keep(A.HighPc);
      break;
    case dwarf::DW_AT_ranges:
      keep(A.Ranges);
      break;
    case dwarf::DW_AT_entry_pc:
      keep(A.EntryPc);
      break;
    case dwarf::DW_AT_addr_base:
    case dwarf::DW_AT_rnglists_base: {
      std::optional<uint64_t> &Base = Sp.Attr == dwarf::DW_AT_addr_base
                                          ? A.AddrBase
                                          : A.RnglistsBase;
      if (!Base)
        Base = V.getAsSectionOffset();
      if (!Base)
        return false;
      break;
    }
    // Split DWARF: the skeleton's ranges and pools follow other rules.
    case dwarf::DW_AT_dwo_name:
    case dwarf::DW_AT_GNU_dwo_name:
    case dwarf::DW_AT_GNU_dwo_id:
    case dwarf::DW_AT_GNU_addr_base:
    case dwarf::DW_AT_GNU_ranges_base:
      return false;
    default:
      break;
    }
  }
  return true;
}

bool isAddrx(dwarf::Form F) {
  switch (F) {
  case dwarf::DW_FORM_addrx:
  case dwarf::DW_FORM_addrx1:
  case dwarf::DW_FORM_addrx2:
  case dwarf::DW_FORM_addrx3:
  case dwarf::DW_FORM_addrx4:
  case dwarf::DW_FORM_GNU_addr_index:
    return true;
  default:
    return false;
  }
}

/// The unit's ranges into Out; false if LLVM must work them out.
bool unitRanges(Sections &S, bool LE, const dwarf::FormParams &Params,
                const UnitAttrs &A, DWARFAddressRangesVector &Out) {
  uint8_t AS = Params.AddrSize;
  // An entry of the unit's address pool (DWARFUnit::getAddrOffsetSectionItem).
  auto pooled = [&](uint32_t Index) -> std::optional<SectionedAddress> {
    if (!A.AddrBase)
      return std::nullopt;
    uint64_t Off = *A.AddrBase + uint64_t(Index) * AS;
    if (Off < *A.AddrBase || S.Addr.size() < Off + AS)
      return std::nullopt;
    DataExtractor D(S.Addr.read(Off, AS), LE, AS);
    uint64_t At = 0;
    return SectionedAddress{D.getUnsigned(&At, AS),
                            SectionedAddress::UndefSection};
  };
  // A form of the address class, resolved as toSectionedAddress does.
  auto address = [&](const DWARFFormValue &V,
                     bool &Ok) -> std::optional<uint64_t> {
    Ok = true;
    if (V.getForm() == dwarf::DW_FORM_addr)
      return V.getRawUValue();
    if (isAddrx(V.getForm())) {
      if (std::optional<SectionedAddress> P = pooled(uint32_t(V.getRawUValue())))
        return P->Address;
      Ok = false; // LLVM's pool lookup may differ: leave it to LLVM
      return std::nullopt;
    }
    return std::nullopt; // not an address
  };
  bool Ok;
  std::optional<uint64_t> Low;
  if (A.LowPc) {
    Low = address(*A.LowPc, Ok);
    if (!Ok)
      return false;
  }
  if (Low && *Low != dwarf::computeTombstoneAddress(AS) && A.HighPc) {
    std::optional<uint64_t> High = address(*A.HighPc, Ok);
    if (!Ok)
      return false;
    if (!High)
      if (std::optional<uint64_t> Len = A.HighPc->getAsUnsignedConstant())
        High = *Low + *Len;
    if (High) {
      Out.push_back({*Low, *High, SectionedAddress::UndefSection});
      return true;
    }
  }
  if (!A.Ranges)
    return true;
  // The base address of the range lists: low PC, else entry PC.
  std::optional<SectionedAddress> Base;
  if (A.LowPc) {
    if (Low)
      Base = SectionedAddress{*Low, SectionedAddress::UndefSection};
  } else if (A.EntryPc) {
    return false;
  }
  dwarf::Form F = A.Ranges->getForm();
  if (Params.Version <= 4) {
    std::optional<uint64_t> Off = A.Ranges->getAsSectionOffset();
    if (!Off || F == dwarf::DW_FORM_rnglistx)
      return false;
    DWARFDebugRangeList List;
    DWARFDataExtractor D(S.Ranges.Data, LE, AS);
    uint64_t At = *Off;
    if (Error E = List.extract(D, &At)) {
      consumeError(std::move(E));
      return false;
    }
    Out = List.getAbsoluteRanges(Base);
    return true;
  }
  std::optional<uint64_t> Off;
  if (F == dwarf::DW_FORM_rnglistx) {
    // The offset table after the list table's header (DWARF 32: 12
    // bytes, its offset count last), entries relative to the base.
    if (!A.RnglistsBase || Params.Format != dwarf::DWARF32 ||
        *A.RnglistsBase < 12 || *A.RnglistsBase > S.Rnglists.size())
      return false;
    DataExtractor D(S.Rnglists.Data, LE, AS);
    uint64_t CountAt = *A.RnglistsBase - 4;
    uint32_t Count = D.getU32(&CountAt);
    uint64_t Index = A.Ranges->getRawUValue();
    uint64_t EntryAt = *A.RnglistsBase + Index * 4;
    if (Index >= Count || EntryAt + 4 > S.Rnglists.size())
      return false;
    Off = *A.RnglistsBase + D.getU32(&EntryAt);
  } else {
    Off = A.Ranges->getAsSectionOffset();
  }
  if (!Off)
    return false;
  DWARFDebugRnglistTable Table;
  Expected<DWARFDebugRnglist> List =
      Table.findList(DWARFDataExtractor(S.Rnglists.Data, LE, AS), *Off);
  if (!List) {
    consumeError(List.takeError());
    return false;
  }
  bool PoolOk = true;
  Out = List->getAbsoluteRanges(Base, AS, [&](uint32_t Index) {
    std::optional<SectionedAddress> P = pooled(Index);
    PoolOk &= P.has_value();
    return P;
  });
  return PoolOk;
}

} // namespace

std::optional<UnitIndex> UnitIndex::build(const ObjectFile &Obj) {
  Sections S;
  if (!findSections(Obj, S))
    return std::nullopt;
  bool LE = Obj.isLittleEndian();
  struct Piece {
    uint64_t Lo, Hi, Unit;
  };
  std::vector<Piece> Pieces;
  for (SectionBytes *B : {&S.Info, &S.Abbrev, &S.Addr})
    B->Window = std::make_unique<FileWindow>(Obj.getFileName(), 64 << 10);
  uint64_t Off = 0;
  while (Off < S.Info.size()) {
    uint64_t UnitOff = Off;
    // The header (at most 24 bytes: DWARF 64, version 5) and, in the same
    // read, the unit DIE: 512 bytes hold it, else the whole unit is read.
    StringRef Head = S.Info.read(UnitOff, 24 + 512);
    DataExtractor Header(Head, LE, 0);
    DataExtractor::Cursor C(0);
    dwarf::FormParams Params{0, 0, dwarf::DWARF32};
    uint64_t Length = Header.getU32(C);
    if (Length == dwarf::DW_LENGTH_DWARF64) {
      Params.Format = dwarf::DWARF64;
      Length = Header.getU64(C);
    } else if (Length >= dwarf::DW_LENGTH_lo_reserved) {
      consumeError(C.takeError());
      return std::nullopt;
    }
    uint64_t End = UnitOff + C.tell() + Length;
    Params.Version = Header.getU16(C);
    uint8_t UnitType = dwarf::DW_UT_compile;
    uint64_t AbbrOff;
    if (Params.Version >= 5) {
      UnitType = Header.getU8(C);
      Params.AddrSize = Header.getU8(C);
      AbbrOff = Header.getUnsigned(C, Params.getDwarfOffsetByteSize());
    } else {
      AbbrOff = Header.getUnsigned(C, Params.getDwarfOffsetByteSize());
      Params.AddrSize = Header.getU8(C);
    }
    uint64_t DieOff = UnitOff + C.tell();
    if (!C) {
      consumeError(C.takeError());
      return std::nullopt;
    }
    if (End < DieOff || End > S.Info.size() || Params.Version < 2 ||
        Params.Version > 5 || (Params.AddrSize != 4 && Params.AddrSize != 8))
      return std::nullopt;
    Off = End;
    if (UnitType == dwarf::DW_UT_type)
      continue; // not a compile unit
    if (UnitType != dwarf::DW_UT_compile)
      return std::nullopt;
    UnitAttrs A;
    StringRef Die = Head.drop_front(DieOff - UnitOff);
    bool Read = readUnitDie(S, DWARFDataExtractor(Die, LE, Params.AddrSize), 0,
                            std::min<uint64_t>(Die.size(), End - DieOff),
                            AbbrOff, Params, A);
    if (!Read && DieOff + Die.size() < End) {
      A = UnitAttrs();
      Die = S.Info.read(DieOff, End - DieOff);
      Read = readUnitDie(S, DWARFDataExtractor(Die, LE, Params.AddrSize), 0,
                         Die.size(), AbbrOff, Params, A);
    }
    DWARFAddressRangesVector R;
    if (!Read || !unitRanges(S, LE, Params, A, R))
      return std::nullopt;
    for (const DWARFAddressRange &X : R)
      if (X.LowPC < X.HighPC)
        Pieces.push_back({X.LowPC, X.HighPC, UnitOff});
  }
  llvm::sort(Pieces, [](const Piece &A, const Piece &B) {
    return std::tie(A.Lo, A.Hi) < std::tie(B.Lo, B.Hi);
  });
  UnitIndex I;
  for (const Piece &P : Pieces) {
    if (!I.Ranges.empty() && P.Lo < I.Ranges.back().Hi) {
      // Overlapping units: DWARFDebugAranges' choice depends on its sort.
      if (I.Ranges.back().Unit != P.Unit)
        return std::nullopt;
      I.Ranges.back().Hi = std::max(I.Ranges.back().Hi, P.Hi);
      continue;
    }
    if (!I.Ranges.empty() && P.Lo == I.Ranges.back().Hi &&
        P.Unit == I.Ranges.back().Unit) {
      I.Ranges.back().Hi = P.Hi;
      continue;
    }
    I.Ranges.push_back({P.Lo, P.Hi, P.Unit});
  }
  return I;
}

const UnitIndex::Range *UnitIndex::rangeAt(uint64_t Addr) const {
  auto It = std::upper_bound(
      Ranges.begin(), Ranges.end(), Addr,
      [](uint64_t A, const Range &R) { return A < R.Lo; });
  if (It == Ranges.begin())
    return nullptr;
  --It;
  return It->holds(Addr) ? &*It : nullptr;
}

} // namespace lbr2prof
