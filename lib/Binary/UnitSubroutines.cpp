//===- UnitSubroutines.cpp - a unit's inline chains without its DIE tree --===//
//
// The walk is DWARFUnit::extractDIEsToVector's order (pre-order; a null
// entry closes the children of the last DIE that has them), and the
// address map is filled as DWARFUnit::updateAddressDieMap fills it, from
// DWARFDie::getAddressRanges' ranges (low/high PC, else DW_AT_ranges).
//
//===----------------------------------------------------------------------===//
#include "UnitSubroutines.h"
#include "Leb128.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/DebugInfo/DWARF/DWARFAbbreviationDeclaration.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/DebugInfo/DWARF/DWARFDataExtractor.h"
#include "llvm/DebugInfo/DWARF/DWARFDebugAbbrev.h"
#include "llvm/DebugInfo/DWARF/DWARFDie.h"
#include "llvm/DebugInfo/DWARF/DWARFFormValue.h"
#include "llvm/DebugInfo/DWARF/DWARFObject.h"
#include "llvm/DebugInfo/DWARF/DWARFUnit.h"
#include "llvm/Support/Endian.h"
#include <cassert>
#include <cstring>
#include <optional>

using namespace llvm;

namespace lbr2prof {

namespace {
bool isSubroutine(dwarf::Tag T) {
  return T == dwarf::DW_TAG_subprogram || T == dwarf::DW_TAG_inlined_subroutine;
}

/// Spec's value at Off into V, made and extracted in place: copying a
/// value just written was a load that store forwarding cannot serve, a
/// sixth of the scan.
bool extractInto(std::optional<DWARFFormValue> &V,
                 const DWARFAbbreviationDeclaration::AttributeSpec &Spec,
                 const DWARFDataExtractor &Data, uint64_t &Off,
                 const dwarf::FormParams &Params, const DWARFUnit &Unit) {
  if (Spec.isImplicitConst())
    V.emplace(Spec.getFormValue());
  else
    V.emplace(Spec.Form);
  return V->extractValue(Data, &Off, Params, &Unit);
}

/// Which of a subroutine's range attributes a step reads (the first of
/// each kind, as DWARFDie::find takes it).
enum class Keep : uint8_t { None, LowPC, HighPC, Ranges };

/// One step over a DIE's attributes: Bytes of fixed-size values in a row
/// (Form 0), or one value whose size is in the data; a step that keeps
/// its value (a subroutine's low PC, high PC or ranges) is read through
/// LLVM from Spec instead.
struct SkipStep {
  uint16_t Form;
  Keep What;
  uint32_t Bytes;
  const DWARFAbbreviationDeclaration::AttributeSpec *Spec;
};

/// The values of a subroutine's range attributes: the low and high PC as
/// RangeReader decoded them (HaveLow, HaveHigh), else as LLVM's values.
struct RangeAttrs {
  std::optional<DWARFFormValue> Low, High, Ranges;
  bool HaveLow = false, HaveHigh = false, HighIsOffset = false;
  uint64_t LowPC = 0, LowSection = object::SectionedAddress::UndefSection;
  uint64_t HighPC = 0; ///< an address, or the offset from LowPC
};

/// Reads a subroutine's low and high PC in their common forms as
/// DWARFFormValue::extractValue and getAsSectionedAddress would, without
/// making a DWARFFormValue: those two calls, with the .debug_addr read
/// behind an address index, were 19% of the symbolizer child's
/// instructions on bench/scale's 300 MB binary (fixed profile; 1.9M
/// subroutines, 500 instructions each). A value that LLVM would relocate
/// (a relocation recorded at its place), or whose form or index is out of
/// the common ground, is left to LLVM (decode() returns false). LLVM 19
/// records relocations for relocatable files only, whose addresses it
/// then finds in no unit (a section index is needed): the check costs two
/// lookups in an empty map per subroutine and keeps this exact if that
/// changes.
class RangeReader {
public:
  explicit RangeReader(const DWARFUnit &U)
      : U(U), Obj(U.getContext().getDWARFObj()), Info(U.getInfoSection()),
        AddrSec(Obj.getAddrSection()), AddrSize(U.getAddressByteSize()),
        Usable(U.isLittleEndian() && (AddrSize == 4 || AddrSize == 8)) {
    if (std::optional<uint64_t> B = U.getAddrOffsetSectionBase())
      AddrBase = *B;
    else
      AddrUsable = false;
  }

  /// Decodes the value of Form at Off (within End) into Value, with its
  /// section index into Section for an address, and IsConst for a
  /// constant; advances Off. False (Off unchanged) if LLVM must read it.
  bool decode(uint16_t Form, const uint8_t *Bytes, uint64_t &Off,
              uint64_t End, uint64_t &Value, uint64_t &Section,
              bool &IsConst) {
    if (!Usable)
      return false;
    Section = object::SectionedAddress::UndefSection;
    IsConst = false;
    switch (Form) {
    case dwarf::DW_FORM_addr:
      return fixed(Bytes, Off, End, AddrSize, Value);
    case dwarf::DW_FORM_addrx: {
      const uint8_t *P = Bytes + Off;
      uint64_t Index;
      // LLVM cuts the index to 32 bits and multiplies it by the address
      // size in 32 bits: below 2^29 both are exact.
      if (!uleb(P, Bytes + End, Index) || Index >> 29 ||
          !address(Index, Value))
        return false;
      Off = uint64_t(P - Bytes);
      return true;
    }
    case dwarf::DW_FORM_data1:
    case dwarf::DW_FORM_data2:
      if (uint64_t N = Form == dwarf::DW_FORM_data1 ? 1 : 2; N <= End - Off) {
        Value = Bytes[Off] | (N == 2 ? uint64_t(Bytes[Off + 1]) << 8 : 0);
        Off += N;
        IsConst = true;
        return true;
      }
      return false;
    case dwarf::DW_FORM_data4:
    case dwarf::DW_FORM_data8:
      IsConst = true;
      return fixed(Bytes, Off, End, Form == dwarf::DW_FORM_data4 ? 4 : 8,
                   Value);
    default:
      return false;
    }
  }

private:
  /// An N-byte value of .debug_info at Off that no relocation applies to.
  bool fixed(const uint8_t *Bytes, uint64_t &Off, uint64_t End, unsigned N,
             uint64_t &Value) const {
    if (N > End - Off || Obj.find(Info, Off))
      return false;
    Value = N == 8 ? support::endian::read64le(Bytes + Off)
                   : support::endian::read32le(Bytes + Off);
    Off += N;
    return true;
  }
  /// Entry Index of the unit's .debug_addr contribution, as
  /// DWARFUnit::getAddrOffsetSectionItem reads it (with no relocation
  /// there). The first one read is also asked of LLVM: a different answer
  /// (the unit's entries are not where this reads them) leaves every
  /// index to LLVM.
  bool address(uint64_t Index, uint64_t &Value) {
    if (!AddrUsable)
      return false;
    uint64_t At = AddrBase + Index * AddrSize;
    StringRef Data = AddrSec.Data;
    if (At < AddrBase || At > Data.size() || AddrSize > Data.size() - At ||
        Obj.find(AddrSec, At))
      return false;
    const uint8_t *P = reinterpret_cast<const uint8_t *>(Data.data()) + At;
    Value = AddrSize == 8 ? support::endian::read64le(P)
                          : support::endian::read32le(P);
    if (!Checked) {
      Checked = true;
      std::optional<object::SectionedAddress> L =
          U.getAddrOffsetSectionItem(uint32_t(Index));
      AddrUsable = L && L->Address == Value &&
                   L->SectionIndex == object::SectionedAddress::UndefSection;
      return AddrUsable;
    }
    return true;
  }

  const DWARFUnit &U;
  const DWARFObject &Obj;
  const DWARFSection &Info, &AddrSec;
  const uint8_t AddrSize;
  const bool Usable;
  bool AddrUsable = true, Checked = false;
  uint64_t AddrBase = 0;
};

/// How to step over the DIEs of each abbreviation code of a unit, worked
/// out once per unit instead of once per DIE and attribute: on a 300 MB
/// binary, where the DIEs of the subprograms that hold no wanted address
/// are only stepped over, asking LLVM for each attribute's size
/// (DWARFFormValue::skipValue, getFixedFormByteSize) was a fifth of all
/// the CPU. A subroutine's plan also reads its range attributes (through
/// LLVM) on the way: its other attributes were still skipped one by one
/// by LLVM, 5% of a fixed profile's CPU on that binary.
class SkipPlans {
public:
  struct Plan {
    const DWARFAbbreviationDeclaration *Decl = nullptr;
    uint32_t Begin = 0, End = 0;
    bool Sub = false;      ///< a subroutine's DIE
    bool Children = false; ///< DW_CHILDREN_yes
  };

  SkipPlans(const DWARFAbbreviationDeclarationSet &Set,
            const dwarf::FormParams &Params) {
    First = Set.getFirstAbbrCode();
    for (const DWARFAbbreviationDeclaration &D : Set) {
      uint64_t Code = D.getCode();
      if (Code < First || Code - First > 1u << 16)
        continue; // left to LLVM's lookup
      if (Plans.size() <= Code - First)
        Plans.resize(Code - First + 1);
      Plan &P = Plans[Code - First];
      if (P.Decl)
        continue; // a code defined twice: LLVM's lookup finds the first
      P.Decl = &D;
      P.Begin = uint32_t(Steps.size());
      const bool Sub = isSubroutine(D.getTag());
      P.Sub = Sub;
      P.Children = D.hasChildren();
      bool Seen[4] = {};
      uint32_t Run = 0;
      for (const auto &Spec : D.attributes()) {
        Keep What = Keep::None;
        if (Sub && Spec.Attr == dwarf::DW_AT_low_pc)
          What = Keep::LowPC;
        else if (Sub && Spec.Attr == dwarf::DW_AT_high_pc)
          What = Keep::HighPC;
        else if (Sub && Spec.Attr == dwarf::DW_AT_ranges)
          What = Keep::Ranges;
        if (What != Keep::None && !Seen[unsigned(What)]) {
          Seen[unsigned(What)] = true;
          if (Run)
            Steps.push_back({0, Keep::None, Run, nullptr});
          Run = 0;
          Steps.push_back({uint16_t(Spec.Form), What, 0, &Spec});
          continue;
        }
        if (Spec.isImplicitConst())
          continue;
        if (std::optional<uint8_t> N =
                dwarf::getFixedFormByteSize(Spec.Form, Params)) {
          Run += *N;
          continue;
        }
        if (Run)
          Steps.push_back({0, Keep::None, Run, nullptr});
        Run = 0;
        Steps.push_back({uint16_t(Spec.Form), Keep::None, 0, nullptr});
      }
      if (Run)
        Steps.push_back({0, Keep::None, Run, nullptr});
      P.End = uint32_t(Steps.size());
    }
  }

  const DWARFAbbreviationDeclaration *
  decl(uint64_t Code, const DWARFAbbreviationDeclarationSet &Set) const {
    if (Code >= First && Code - First < Plans.size())
      return Plans[Code - First].Decl;
    return Set.getAbbreviationDeclaration(uint32_t(Code));
  }

  /// True if Code's DIEs are read by a plan (read() below); else the
  /// caller reads their attributes one by one.
  bool planned(uint64_t Code) const {
    return Code >= First && Code - First < Plans.size();
  }

  /// Steps over the attributes of a DIE of Code from Off, within End;
  /// false if they run past End or cannot be decoded. A subroutine's range
  /// attributes go to Out (with its plan only).
  bool read(uint64_t Code, const DWARFAbbreviationDeclaration &Decl,
            const DWARFDataExtractor &Data, const dwarf::FormParams &Params,
            const DWARFUnit &Unit, uint64_t &Off, uint64_t End,
            RangeAttrs *Out = nullptr, RangeReader *Fast = nullptr) const {
    if (!planned(Code)) {
      for (const auto &Spec : Decl.attributes())
        if (!DWARFFormValue::skipValue(Spec.Form, Data, &Off, Params))
          return false;
      return Off <= End;
    }
    const uint8_t *Bytes = reinterpret_cast<const uint8_t *>(Data.getData().data());
    const Plan &P = Plans[Code - First];
    for (uint32_t K = P.Begin; K < P.End; ++K) {
      const SkipStep &S = Steps[K];
      if (Off > End)
        return false;
      if (S.What != Keep::None) {
        // Only a subroutine's plan keeps values, and its DIEs are read
        // with Out.
        assert(Out && "a subroutine's attributes read without RangeAttrs");
        if (Fast && S.What != Keep::Ranges) {
          uint64_t Value, Section;
          bool IsConst;
          if (Fast->decode(S.Form, Bytes, Off, End, Value, Section,
                           IsConst)) {
            if (S.What == Keep::LowPC) {
              // A constant is no address (getAsSectionedAddress).
              Out->HaveLow = !IsConst;
              Out->LowPC = Value;
              Out->LowSection = Section;
            } else {
              Out->HaveHigh = true;
              Out->HighIsOffset = IsConst;
              Out->HighPC = Value;
            }
            continue;
          }
        }
        std::optional<DWARFFormValue> &V = S.What == Keep::LowPC  ? Out->Low
                                           : S.What == Keep::HighPC ? Out->High
                                                                    : Out->Ranges;
        if (!extractInto(V, *S.Spec, Data, Off, Params, Unit))
          return false;
        continue;
      }
      if (!step(S, Bytes, Data, Params, Off, End))
        return false;
    }
    return Off <= End;
  }

  /// The plan of Code's DIEs if it steps over them whole (they are no
  /// subroutines: skip()), else null.
  const Plan *skipOnly(uint64_t Code) const {
    if (Code < First || Code - First >= Plans.size())
      return nullptr;
    const Plan &P = Plans[Code - First];
    return P.Decl && !P.Sub ? &P : nullptr;
  }

  /// Steps over the attributes of a DIE of P (from skipOnly()) from Off,
  /// within End, as read() does: inline in the walk, without the DIE's
  /// declaration, tag or a call (a call to read() per DIE, with their
  /// lookups, was 20% of the symbolizer child's instructions on
  /// bench/scale's 300 MB fixed profile, 10.5M DIEs).
  bool skip(const Plan &P, const uint8_t *Bytes,
            const DWARFDataExtractor &Data, const dwarf::FormParams &Params,
            uint64_t &Off, uint64_t End) const {
    for (uint32_t K = P.Begin; K < P.End; ++K)
      if (Off > End || !step(Steps[K], Bytes, Data, Params, Off, End))
        return false;
    return Off <= End;
  }

private:
  /// Steps over one value (or run of fixed-size values) that is not kept.
  LLVM_ATTRIBUTE_ALWAYS_INLINE bool
  step(const SkipStep &S, const uint8_t *Bytes, const DWARFDataExtractor &Data,
       const dwarf::FormParams &Params, uint64_t &Off, uint64_t End) const {
    switch (S.Form) {
    case 0:
      if (S.Bytes > End - Off)
        return false;
      Off += S.Bytes;
      break;
    case dwarf::DW_FORM_udata:
    case dwarf::DW_FORM_sdata:
    case dwarf::DW_FORM_ref_udata:
    case dwarf::DW_FORM_strx:
    case dwarf::DW_FORM_addrx:
    case dwarf::DW_FORM_loclistx:
    case dwarf::DW_FORM_rnglistx:
    case dwarf::DW_FORM_GNU_addr_index:
    case dwarf::DW_FORM_GNU_str_index:
      do
        if (Off >= End)
          return false;
      while (Bytes[Off++] & 0x80);
      break;
    case dwarf::DW_FORM_string: {
      const void *Nul = std::memchr(Bytes + Off, 0, End - Off);
      if (!Nul)
        return false;
      Off = static_cast<const uint8_t *>(Nul) - Bytes + 1;
      break;
    }
    case dwarf::DW_FORM_block1:
      if (Off >= End || Bytes[Off] >= End - Off)
        return false;
      Off += 1 + Bytes[Off];
      break;
    case dwarf::DW_FORM_block:
    case dwarf::DW_FORM_exprloc: {
      const uint8_t *P = Bytes + Off;
      uint64_t Len;
      if (!uleb(P, Bytes + End, Len))
        return false;
      Off = uint64_t(P - Bytes);
      if (Len > End - Off)
        return false;
      Off += Len;
      break;
    }
    default:
      if (!DWARFFormValue::skipValue(dwarf::Form(S.Form), Data, &Off,
                                     Params))
        return false;
      break;
    }
    return true;
  }

  uint64_t First = 0;
  std::vector<Plan> Plans;
  std::vector<SkipStep> Steps;
};
} // namespace

/// The first position of A whose element is not Before (A partitioned by
/// Before), found from Hint, the answer for the previous key, and left
/// there: a few steps forward, else a binary search on the side it lies
/// (ranges come in DIE order, mostly ascending). On the 300 MB fixed
/// profile the symbolizer child at -j1 ran 2.192G instructions with a
/// search from scratch for each skipped range and each subprogram's
/// ranges, 2.101G with this.
template <typename T, typename Pred>
static size_t seek(ArrayRef<T> A, size_t &Hint, Pred Before) {
  size_t I = std::min(Hint, A.size());
  if (I > 0 && !Before(A[I - 1])) {
    I = size_t(std::partition_point(A.begin(), A.begin() + I, Before) -
               A.begin());
  } else {
    size_t Near = std::min(A.size(), I + 4);
    while (I < Near && Before(A[I]))
      ++I;
    if (I == Near)
      I = size_t(std::partition_point(A.begin() + I, A.end(), Before) -
                 A.begin());
  }
  Hint = I;
  return I;
}

bool UnitSubroutines::scan(DWARFUnit &Unit, ArrayRef<uint64_t> Wanted,
                           Scratch &Tmp) {
  Entries.clear();
  Hint = 0;
  if (!scanDies(Unit, Wanted, Tmp))
    return false;
  Entries.reserve(AddrMap.size());
  for (const auto &[Low, HighSub] : AddrMap)
    Entries.push_back({Low, HighSub.first, HighSub.second});
  AddrMap.clear();
  MapNodes.reset();
  return true;
}

bool UnitSubroutines::scanDies(DWARFUnit &Unit, ArrayRef<uint64_t> Wanted,
                               Scratch &Tmp) {
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
  const SkipPlans Plans(*Abbrevs, Params);
  RangeReader Fast(Unit);
  const uint8_t *Bytes = reinterpret_cast<const uint8_t *>(Data.getData().data());
  if (End - Begin > UINT32_MAX)
    return false;
  SubStarts.clear();

  uint64_t Off = Begin + Unit.getHeaderSize();
  SmallVector<int32_t, 16> Open; // the Current of each DIE with children
  int32_t Current = -1;          // the nearest subroutine being read
  bool Seen = false;
  // With Wanted, an outermost subroutine none of whose ranges holds a
  // wanted address is passed over with everything inside it: its ranges
  // (and theirs) go to Skipped instead of the map. While Skipping, Open
  // is deeper than SkipLevel.
  bool Skipping = false, Inverted = false;
  size_t SkipLevel = 0;
  std::vector<std::pair<uint64_t, uint64_t>> &Skipped = Tmp.Skipped,
                                            &Kept = Tmp.Kept;
  Skipped.clear();
  Kept.clear();
  DWARFAddressRangesVector Rs; // each subroutine's ranges
  size_t WantedHint = 0;
  auto holdsWanted = [&](const DWARFAddressRange &R) {
    size_t W = seek(Wanted, WantedHint,
                    [Low = R.LowPC](uint64_t A) { return A < Low; });
    return W < Wanted.size() && Wanted[W] < R.HighPC;
  };
  while (Off < End) {
    uint64_t DieOff = Off;
    uint64_t Code;
    if (Bytes[Off] < 0x80) { // most codes fit one byte
      Code = Bytes[Off++];
    } else {
      DataExtractor::Cursor C(Off);
      Code = Data.getULEB128(C);
      if (!C) {
        consumeError(C.takeError());
        return false;
      }
      Off = C.tell();
    }
    if (Code == 0) {
      if (Open.empty())
        return false; // a null entry where no DIE has children
      Current = Open.pop_back_val();
      if (Skipping && Open.size() < SkipLevel)
        Skipping = false;
      if (Open.empty())
        break; // the unit DIE's children are done
      continue;
    }
    if (Seen)
      if (const SkipPlans::Plan *P = Plans.skipOnly(Code)) {
        if (!Plans.skip(*P, Bytes, Data, Params, Off, End))
          return false;
        if (P->Children)
          Open.push_back(Current);
        continue;
      }
    if (Code > UINT32_MAX)
      return false;
    const DWARFAbbreviationDeclaration *Decl = Plans.decl(Code, *Abbrevs);
    if (!Decl)
      return false;
    dwarf::Tag Tag = Decl->getTag();
    if (!Seen) {
      Seen = true;
      if (!Decl->hasChildren())
        return true; // a unit DIE alone: no subroutines
    }
    if (!isSubroutine(Tag)) {
      if (!Plans.read(Code, *Decl, Data, Params, Unit, Off, End))
        return false;
      if (Decl->hasChildren())
        Open.push_back(Current);
      continue;
    }
    SubStarts.push_back(uint32_t(DieOff - Begin));
    // A subroutine's ranges come from its plan; a code without one (far
    // from the unit's first) is left to LLVM with the unit.
    RangeAttrs A;
    if (!Plans.planned(Code) ||
        !Plans.read(Code, *Decl, Data, Params, Unit, Off, End, &A, &Fast))
      return false;
    const std::optional<DWARFFormValue> &Low = A.Low, &High = A.High,
                                        &Ranges = A.Ranges;
    // DWARFDie::getAddressRanges.
    Rs.clear();
    std::optional<object::SectionedAddress> LowPC;
    if (A.HaveLow)
      LowPC = object::SectionedAddress{A.LowPC, A.LowSection};
    else if (Low)
      LowPC = Low->getAsSectionedAddress();
    if (LowPC && LowPC->Address == Tombstone)
      return false;
    std::optional<uint64_t> HighPC;
    if (LowPC && A.HaveHigh) {
      HighPC = A.HighIsOffset ? LowPC->Address + A.HighPC : A.HighPC;
    } else if (LowPC && High) {
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
    if (!Wanted.empty() && !Skipping && Current < 0 &&
        llvm::none_of(Rs, holdsWanted)) {
      Skipping = true;
      SkipLevel = Open.size() + 1; // inside this DIE's children, if any
    }
    for (const DWARFAddressRange &R : Rs)
      Inverted |= R.LowPC > R.HighPC;
    if (Skipping) {
      for (const DWARFAddressRange &R : Rs)
        if (R.LowPC < R.HighPC)
          Skipped.push_back({R.LowPC, R.HighPC});
      if (Decl->hasChildren())
        Open.push_back(Current);
      else if (Open.size() < SkipLevel)
        Skipping = false; // the outermost one, without children
      continue;
    }
    uint32_t Index = uint32_t(Subs.size());
    Subs.push_back({DieOff, Current, Tag == dwarf::DW_TAG_subprogram});
    // DWARFUnit::updateAddressDieMap, range by range.
    for (const DWARFAddressRange &R : Rs) {
      if (R.LowPC == R.HighPC)
        continue;
      if (!Wanted.empty())
        Kept.push_back({R.LowPC, R.HighPC});
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
  if (!Seen || !Open.empty())
    return false;
  // (An inverted range's entry in the map lies outside it, which the
  // argument of passedOverSafely does not cover.)
  if (Skipped.empty() || (!Inverted && passedOverSafely(Wanted, Skipped, Kept)))
    return true;
  return scanDies(Unit, {}, Tmp); // the whole unit after all
}

/// True if leaving the Skipped ranges out of the address map changes no
/// wanted address's chain: none holds a wanted address, and none overlaps
/// a range in the map. Then every entry of the map lies within a range of
/// one kind, a skipped range's entries never split a kept one (nor the
/// reverse), and the entry found for a wanted address is the same kept
/// entry, or none, with or without them.
bool UnitSubroutines::passedOverSafely(
    ArrayRef<uint64_t> Wanted, ArrayRef<std::pair<uint64_t, uint64_t>> Skipped,
    std::vector<std::pair<uint64_t, uint64_t>> &Kept) {
  llvm::sort(Kept);
  // MaxEnd[K]: the largest end among the first K + 1 kept ranges.
  std::vector<uint64_t> MaxEnd(Kept.size());
  for (size_t K = 0; K < Kept.size(); ++K)
    MaxEnd[K] = std::max(K ? MaxEnd[K - 1] : 0, Kept[K].second);
  ArrayRef<std::pair<uint64_t, uint64_t>> KeptRanges(Kept);
  size_t WHint = 0, KHint = 0;
  for (const auto &[Low, High] : Skipped) {
    size_t W = seek(Wanted, WHint, [Low = Low](uint64_t A) { return A < Low; });
    if (W < Wanted.size() && Wanted[W] < High)
      return false;
    // The kept ranges that start before High: does one end after Low?
    size_t N = seek(KeptRanges, KHint,
                    [High = High](const std::pair<uint64_t, uint64_t> &R) {
                      return R.first < High;
                    });
    if (N > 0 && MaxEnd[N - 1] > Low)
      return false;
  }
  return true;
}

int32_t UnitSubroutines::innermost(uint64_t Addr) const {
  // DWARFUnit::getSubroutineForAddress: the last entry starting at or
  // before Addr, if Addr is before its end.
  // Entry K exists and starts at or before Addr.
  auto startsBy = [&](size_t K) {
    return K < Entries.size() && Entries[K].Low <= Addr;
  };
  size_t K;
  if (startsBy(Hint) && !startsBy(Hint + 1))
    K = Hint;
  else if (startsBy(Hint + 1) && !startsBy(Hint + 2))
    K = Hint + 1;
  else {
    auto It = llvm::upper_bound(
        Entries, Addr, [](uint64_t A, const Entry &E) { return A < E.Low; });
    if (It == Entries.begin())
      return -1;
    K = size_t(It - Entries.begin()) - 1;
  }
  Hint = K;
  return Addr < Entries[K].High ? int32_t(Entries[K].Sub) : -1;
}

void UnitSubroutines::chain(int32_t Innermost,
                            SmallVectorImpl<uint64_t> &Offsets) const {
  // Up through the parents: the inlined subroutines, up to and with the
  // first subprogram.
  for (int32_t K = Innermost; K >= 0; K = Subs[K].Parent) {
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

bool UnitSubroutines::isSubroutineStart(uint64_t Offset) const {
  const uint64_t Begin = U->getOffset();
  return Offset >= Begin && Offset - Begin <= UINT32_MAX &&
         std::binary_search(SubStarts.begin(), SubStarts.end(),
                            uint32_t(Offset - Begin));
}

bool UnitSubroutines::read(uint64_t Offset, Attrs &A) const {
  if (!isSubroutineStart(Offset))
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
    if (!extractInto(*Keep, Spec, Data, Off, Params, *U))
      return false;
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
  // A reference to a subroutine DIE of this unit; an offset past the
  // unit's end is no DIE (as LLVM finds none there); one inside it where
  // no subroutine starts (another kind of DIE, or none), another unit's,
  // or a type signature declines.
  auto target = [&](const std::optional<DWARFFormValue> &V,
                    std::optional<uint64_t> &To) -> bool {
    To.reset();
    if (!V)
      return true;
    if (std::optional<uint64_t> Rel = V->getAsRelativeReference()) {
      uint64_t T = U->getOffset() + *Rel;
      if (T >= U->getNextUnitOffset())
        return true;
      if (!isSubroutineStart(T))
        return false;
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
