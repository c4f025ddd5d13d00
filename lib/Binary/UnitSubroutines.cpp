//===- UnitSubroutines.cpp - a unit's inline chains without its DIE tree --===//
//
// The walk is DWARFUnit::extractDIEsToVector's order (pre-order; a null
// entry closes the children of the last DIE that has them), and the
// address map is filled as DWARFUnit::updateAddressDieMap fills it, from
// DWARFDie::getAddressRanges' ranges (low/high PC, else DW_AT_ranges).
//
//===----------------------------------------------------------------------===//
#include "UnitSubroutines.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/DebugInfo/DWARF/DWARFAbbreviationDeclaration.h"
#include "llvm/DebugInfo/DWARF/DWARFDataExtractor.h"
#include "llvm/DebugInfo/DWARF/DWARFDebugAbbrev.h"
#include "llvm/DebugInfo/DWARF/DWARFDie.h"
#include "llvm/DebugInfo/DWARF/DWARFFormValue.h"
#include "llvm/DebugInfo/DWARF/DWARFUnit.h"
#include <optional>

using namespace llvm;

namespace lbr2prof {

namespace {
bool isSubroutine(dwarf::Tag T) {
  return T == dwarf::DW_TAG_subprogram || T == dwarf::DW_TAG_inlined_subroutine;
}
} // namespace

bool UnitSubroutines::scan(DWARFUnit &Unit) {
  U = &Unit;
  Subs.clear();
  AddrMap.clear();
  MapNodes.reset();
  if (Unit.isDWOUnit() || Unit.getDWOId())
    return false;
  DWARFDie UnitDie = Unit.getUnitDIE(/*ExtractUnitDIEOnly=*/true);
  if (!UnitDie ||
      UnitDie.find({dwarf::DW_AT_dwo_name, dwarf::DW_AT_GNU_dwo_name}))
    return false;
  const DWARFAbbreviationDeclarationSet *Abbrevs = Unit.getAbbreviations();
  if (!Abbrevs)
    return false;
  DWARFDataExtractor Data = Unit.getDebugInfoExtractor();
  const dwarf::FormParams Params = Unit.getFormParams();
  const uint64_t Begin = Unit.getOffset(), End = Unit.getNextUnitOffset();
  if (End > Data.size() || End <= Begin)
    return false;
  const uint64_t Tombstone =
      dwarf::computeTombstoneAddress(Unit.getAddressByteSize());
  Starts.clear();
  Starts.resize(End - Begin);

  uint64_t Off = Begin + Unit.getHeaderSize();
  SmallVector<int32_t, 16> Open; // the Current of each DIE with children
  int32_t Current = -1;          // the nearest subroutine being read
  bool Seen = false;
  while (Off < End) {
    uint64_t DieOff = Off;
    DataExtractor::Cursor C(Off);
    uint64_t Code = Data.getULEB128(C);
    if (!C) {
      consumeError(C.takeError());
      return false;
    }
    Off = C.tell();
    if (Code == 0) {
      if (Open.empty())
        return false; // a null entry where no DIE has children
      Current = Open.pop_back_val();
      if (Open.empty())
        break; // the unit DIE's children are done
      continue;
    }
    const DWARFAbbreviationDeclaration *Decl =
        Abbrevs->getAbbreviationDeclaration(uint32_t(Code));
    if (!Decl || Code > UINT32_MAX)
      return false;
    Starts.set(DieOff - Begin);
    dwarf::Tag Tag = Decl->getTag();
    if (!Seen) {
      Seen = true;
      if (!Decl->hasChildren())
        return true; // a unit DIE alone: no subroutines
    }
    if (!isSubroutine(Tag)) {
      if (std::optional<size_t> Fixed = Decl->getFixedAttributesByteSize(Unit)) {
        Off += *Fixed;
      } else {
        for (const auto &Spec : Decl->attributes())
          if (!DWARFFormValue::skipValue(Spec.Form, Data, &Off, Params))
            return false;
      }
      if (Off > End)
        return false;
      if (Decl->hasChildren())
        Open.push_back(Current);
      continue;
    }
    std::optional<DWARFFormValue> Low, High, Ranges;
    for (const auto &Spec : Decl->attributes()) {
      std::optional<DWARFFormValue> *Keep = nullptr;
      switch (Spec.Attr) {
      case dwarf::DW_AT_low_pc:
        Keep = &Low;
        break;
      case dwarf::DW_AT_high_pc:
        Keep = &High;
        break;
      case dwarf::DW_AT_ranges:
        Keep = &Ranges;
        break;
      default:
        break;
      }
      if (!Keep || *Keep) {
        if (!DWARFFormValue::skipValue(Spec.Form, Data, &Off, Params))
          return false;
        continue;
      }
      DWARFFormValue V = Spec.getFormValue();
      if (!V.extractValue(Data, &Off, Params, &Unit))
        return false;
      *Keep = V;
    }
    if (Off > End)
      return false;
    // DWARFDie::getAddressRanges.
    DWARFAddressRangesVector Rs;
    std::optional<object::SectionedAddress> LowPC =
        Low ? Low->getAsSectionedAddress() : std::nullopt;
    if (LowPC && LowPC->Address == Tombstone)
      return false;
    std::optional<uint64_t> HighPC;
    if (LowPC && High) {
      if (std::optional<uint64_t> A = High->getAsAddress())
        HighPC = *A;
      else if (std::optional<uint64_t> N = High->getAsUnsignedConstant())
        HighPC = LowPC->Address + *N;
    }
    if (LowPC && HighPC) {
      Rs.push_back({LowPC->Address, *HighPC, LowPC->SectionIndex});
    } else if (Ranges) {
      std::optional<uint64_t> At = Ranges->getAsSectionOffset();
      if (!At)
        return false;
      Expected<DWARFAddressRangesVector> Found =
          Ranges->getForm() == dwarf::DW_FORM_rnglistx
              ? Unit.findRnglistFromIndex(uint32_t(*At))
              : Unit.findRnglistFromOffset(*At);
      if (Found)
        Rs = std::move(*Found);
      else
        consumeError(Found.takeError()); // as updateAddressDieMap
    }
    uint32_t Index = uint32_t(Subs.size());
    Subs.push_back({DieOff, Current, Tag == dwarf::DW_TAG_subprogram});
    // DWARFUnit::updateAddressDieMap, range by range.
    for (const DWARFAddressRange &R : Rs) {
      if (R.LowPC == R.HighPC)
        continue;
      auto B = AddrMap.upper_bound(R.LowPC);
      if (B != AddrMap.begin() && R.LowPC < (--B)->second.first) {
        if (R.HighPC < B->second.first)
          AddrMap[R.HighPC] = B->second;
        if (R.LowPC > B->first)
          AddrMap[B->first].first = R.LowPC;
      }
      AddrMap[R.LowPC] = {R.HighPC, Index};
    }
    if (Decl->hasChildren()) {
      Open.push_back(Current);
      Current = int32_t(Index);
    }
  }
  return Seen && Open.empty();
}

void UnitSubroutines::chain(uint64_t Addr,
                            SmallVectorImpl<uint64_t> &Offsets) const {
  // DWARFUnit::getSubroutineForAddress, then up through the parents: the
  // inlined subroutines, up to and with the first subprogram.
  auto R = AddrMap.upper_bound(Addr);
  if (R == AddrMap.begin())
    return;
  --R;
  if (Addr >= R->second.first)
    return;
  for (int32_t K = int32_t(R->second.second); K >= 0; K = Subs[K].Parent) {
    Offsets.push_back(Subs[K].Offset);
    if (Subs[K].Subprogram)
      return;
  }
}

/// The attributes of one DIE that info() reads (the first of each kind, as
/// DWARFDie::find takes it).
struct UnitSubroutines::Attrs {
  std::optional<DWARFFormValue> MipsLinkage, Linkage, Name, DeclLine, Origin,
      Spec, CallFile, CallLine, CallColumn, Disc;
};

bool UnitSubroutines::read(uint64_t Offset, Attrs &A) const {
  const uint64_t Begin = U->getOffset();
  if (Offset < Begin || Offset - Begin >= Starts.size() ||
      !Starts.test(Offset - Begin))
    return false;
  DWARFDataExtractor Data = U->getDebugInfoExtractor();
  const dwarf::FormParams Params = U->getFormParams();
  uint64_t Off = Offset;
  uint64_t Code = Data.getULEB128(&Off);
  const DWARFAbbreviationDeclaration *Decl =
      U->getAbbreviations()->getAbbreviationDeclaration(uint32_t(Code));
  if (!Decl)
    return false;
  for (const auto &Spec : Decl->attributes()) {
    std::optional<DWARFFormValue> *Keep = nullptr;
    switch (Spec.Attr) {
    case dwarf::DW_AT_MIPS_linkage_name:
      Keep = &A.MipsLinkage;
      break;
    case dwarf::DW_AT_linkage_name:
      Keep = &A.Linkage;
      break;
    case dwarf::DW_AT_name:
      Keep = &A.Name;
      break;
    case dwarf::DW_AT_decl_line:
      Keep = &A.DeclLine;
      break;
    case dwarf::DW_AT_abstract_origin:
      Keep = &A.Origin;
      break;
    case dwarf::DW_AT_specification:
      Keep = &A.Spec;
      break;
    case dwarf::DW_AT_call_file:
      Keep = &A.CallFile;
      break;
    case dwarf::DW_AT_call_line:
      Keep = &A.CallLine;
      break;
    case dwarf::DW_AT_call_column:
      Keep = &A.CallColumn;
      break;
    case dwarf::DW_AT_GNU_discriminator:
      Keep = &A.Disc;
      break;
    case dwarf::DW_AT_signature:
      return false; // a type unit's DIE: LLVM's business
    default:
      break;
    }
    if (!Keep || *Keep) {
      if (!DWARFFormValue::skipValue(Spec.Form, Data, &Off, Params))
        return false;
      continue;
    }
    DWARFFormValue V = Spec.getFormValue();
    if (!V.extractValue(Data, &Off, Params, U))
      return false;
    *Keep = V;
  }
  return true;
}

/// DWARFDie::findRecursively for the name attributes (Which 0: linkage
/// names, 1: DW_AT_name) or the declaration line (2): the DIE, then the
/// DIEs its abstract origin and specification name, depth first, the
/// specification's first, each once. Str or Num gets the value (nullptr or
/// 0 if none); false if LLVM must answer.
bool UnitSubroutines::findRecursively(uint64_t Offset, unsigned Which,
                                      const char *&Str, uint64_t &Num) const {
  Str = nullptr;
  Num = 0;
  SmallVector<uint64_t, 3> Work{Offset}, Seen{Offset};
  // A reference to a DIE of this unit; another unit's or a type
  // signature declines; an offset where no DIE starts is no DIE.
  auto target = [&](const std::optional<DWARFFormValue> &V,
                    std::optional<uint64_t> &To) -> bool {
    To.reset();
    if (!V)
      return true;
    if (std::optional<uint64_t> Rel = V->getAsRelativeReference()) {
      uint64_t T = U->getOffset() + *Rel;
      uint64_t K = T - U->getOffset();
      if (K < Starts.size() && Starts.test(K))
        To = T;
      return true;
    }
    return false;
  };
  while (!Work.empty()) {
    uint64_t Off = Work.pop_back_val();
    Attrs A;
    if (!read(Off, A))
      return false;
    std::optional<DWARFFormValue> Found;
    if (Which == 0)
      Found = A.MipsLinkage ? A.MipsLinkage : A.Linkage;
    else if (Which == 1)
      Found = A.Name;
    else
      Found = A.DeclLine;
    if (Found) {
      if (Which == 2)
        Num = dwarf::toUnsigned(Found, 0);
      else
        Str = dwarf::toString(Found, nullptr);
      return true;
    }
    for (const std::optional<DWARFFormValue> *Ref : {&A.Origin, &A.Spec}) {
      std::optional<uint64_t> To;
      if (!target(*Ref, To))
        return false;
      if (To && llvm::find(Seen, *To) == Seen.end()) {
        Seen.push_back(*To);
        Work.push_back(*To);
      }
    }
  }
  return true;
}

bool UnitSubroutines::info(uint64_t Offset, Info &Out) const {
  Out = Info();
  const char *Name;
  uint64_t Unused;
  if (!findRecursively(Offset, 0, Name, Unused))
    return false;
  if (!Name && !findRecursively(Offset, 1, Name, Unused))
    return false;
  Out.Name = Name;
  const char *NoStr;
  if (!findRecursively(Offset, 2, NoStr, Out.DeclLine))
    return false;
  Attrs A;
  if (!read(Offset, A))
    return false;
  Out.CallFile = uint32_t(dwarf::toUnsigned(A.CallFile, 0));
  Out.CallLine = uint32_t(dwarf::toUnsigned(A.CallLine, 0));
  Out.CallColumn = uint32_t(dwarf::toUnsigned(A.CallColumn, 0));
  Out.CallDisc = uint32_t(dwarf::toUnsigned(A.Disc, 0));
  return true;
}

} // namespace lbr2prof
