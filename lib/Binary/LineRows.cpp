//===- LineRows.cpp - line-table rows of many addresses in one pass -------===//
//
// The line program is read as DWARF 5 section 6.2.5 says and as
// LineTable::parse (LLVM 19) does it: registers reset at each sequence
// start (address 0, line 1, file 1), a row appended by DW_LNS_copy, a
// special opcode or DW_LNE_end_sequence, the discriminator cleared after
// each row, a sequence kept if it has rows and LowPC < HighPC. Every
// condition on which LLVM would report a problem, or would keep state this
// reader does not, declines instead (see LineRows.h).
//
//===----------------------------------------------------------------------===//
#include "LineRows.h"
#include "Leb128.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/DebugInfo/DWARF/DWARFDataExtractor.h"
#include "llvm/DebugInfo/DWARF/DWARFUnit.h"
#include "llvm/Object/ObjectFile.h"
#include <algorithm>
#include <cassert>

using namespace llvm;

namespace lbr2prof {

namespace {
constexpr uint64_t Undef = object::SectionedAddress::UndefSection;

} // namespace

bool LineRowReader::run(DWARFUnit &U, const DWARFDebugLine::Prologue &P,
                        uint64_t Start, uint64_t End,
                        ArrayRef<uint64_t> Wanted) {
  assert(llvm::is_sorted(Wanted) && "lookup() takes sorted addresses");
  Rows.clear();
  Sequences.clear();
  const DWARFSection &Sec = U.getLineSection();
  DWARFDataExtractor Data(U.getContext().getDWARFObj(), Sec,
                          U.isLittleEndian(), U.getAddressByteSize());
  DWARFDataExtractor Table(Data, End);
  const uint8_t *Base = reinterpret_cast<const uint8_t *>(Sec.Data.data());
  const uint8_t *Ptr = Base + Start, *Stop = Base + End;
  const uint8_t OpcodeBase = P.OpcodeBase;
  const uint64_t MinInst = P.MinInstLength;
  const uint8_t LineRange = P.LineRange;
  const int32_t LineBase = P.LineBase;
  const uint8_t AddrSize = U.getAddressByteSize();

  // The state machine's registers as scalars, not a Row: a row pushed
  // from a struct just written field by field was a 16-byte load that
  // store forwarding cannot serve, half of this loop's time.
  struct {
    uint64_t Address, SectionIndex;
    uint32_t Line, Discriminator;
    uint16_t File;
  } R;
  auto reset = [&] {
    R.Address = 0;
    R.SectionIndex = Undef;
    R.Line = 1;
    R.File = 1;
    R.Discriminator = 0;
  };
  reset();
  bool SeqEmpty = true, SeqBackwards = false, Backwards = false;
  uint64_t SeqLow = 0, PrevAddr = 0;
  uint32_t SeqFirst = 0;
  // The first wanted address at or after the sequence's last row (W), and
  // its value (all ones past the end); SeqWanted: NextWanted at the
  // sequence's first row.
  const uint64_t *W = Wanted.begin();
  uint64_t NextWanted = ~0ULL, SeqWanted = ~0ULL;
  auto emit = [&](bool EndSequence) {
    Row New{R.Address, R.SectionIndex, R.Line, R.Discriminator, R.File};
    if (SeqEmpty) {
      SeqEmpty = SeqBackwards = false;
      SeqLow = R.Address;
      SeqFirst = uint32_t(Rows.size());
      W = llvm::lower_bound(Wanted, R.Address);
      SeqWanted = NextWanted = W == Wanted.end() ? ~0ULL : *W;
      Rows.push_back(New);
    } else {
      // A row answers the wanted addresses from its own up to the next
      // row's: one that answers none gives its place to the next (the row
      // before a row at the same address never answers). Rows must then
      // ascend, as lookup's search assumes; a sequence that holds a
      // wanted address and goes back declines. Most rows answer none: one
      // comparison each.
      if (R.Address < PrevAddr)
        SeqBackwards = true;
      if (NextWanted >= R.Address) {
        Rows.back() = New;
      } else {
        while (W != Wanted.end() && *W < R.Address)
          ++W;
        NextWanted = W == Wanted.end() ? ~0ULL : *W;
        Rows.push_back(New);
      }
    }
    PrevAddr = R.Address;
    if (EndSequence) {
      if (SeqLow < R.Address) {
        // A sequence that holds no wanted address keeps its place among
        // the sequences (lookup takes the first one that ends after an
        // address, as LLVM does) but not its rows.
        uint32_t Last = uint32_t(Rows.size());
        if (SeqWanted >= R.Address) {
          Rows.resize(SeqFirst);
          Last = SeqFirst;
        } else {
          Backwards |= SeqBackwards;
        }
        Sequences.push_back({SeqLow, R.Address, R.SectionIndex, SeqFirst,
                             Last});
      }
      SeqEmpty = true;
    }
    R.Discriminator = 0;
  };
  // A special opcode's address and line advances, once per table rather
  // than two divisions by LineRange per row (most rows are special
  // opcodes).
  uint64_t AddrStep[256];
  uint32_t LineStep[256];
  for (unsigned Op = OpcodeBase; Op < 256; ++Op) {
    uint8_t Adjusted = uint8_t(Op - OpcodeBase);
    AddrStep[Op] = uint64_t(Adjusted / LineRange) * MinInst;
    LineStep[Op] = uint32_t(LineBase + int32_t(Adjusted % LineRange));
  }

  while (Ptr < Stop) {
    uint8_t Opcode = *Ptr++;
    if (Opcode >= OpcodeBase) {
      R.Address += AddrStep[Opcode];
      R.Line += LineStep[Opcode];
      // emit(false) for a row that answers no wanted address before it,
      // as most do, without the call: emit's prologue and epilogue were a
      // third of its instructions (8M rows of bench/scale's 300 MB
      // binary's fixed profile).
      if (!SeqEmpty && R.Address >= PrevAddr && NextWanted >= R.Address) {
        Rows.back() = Row{R.Address, R.SectionIndex, R.Line, R.Discriminator,
                          R.File};
        PrevAddr = R.Address;
        R.Discriminator = 0;
        continue;
      }
      emit(false);
      continue;
    }
    uint64_t V;
    if (Opcode == 0) {
      uint64_t Len;
      if (!uleb(Ptr, Stop, Len))
        return false;
      if (Len == 0)
        continue; // LLVM tolerates a zero-length op silently.
      if (Len > uint64_t(Stop - Ptr))
        return false;
      const uint8_t *OpEnd = Ptr + Len;
      uint8_t Sub = *Ptr++;
      switch (Sub) {
      case dwarf::DW_LNE_end_sequence:
        emit(true);
        reset();
        break;
      case dwarf::DW_LNE_set_address: {
        if (Len - 1 != AddrSize)
          return false;
        DataExtractor::Cursor C(uint64_t(Ptr - Base));
        uint64_t SecIx = Undef;
        uint64_t A = Table.getRelocatedAddress(C, &SecIx);
        if (!C) {
          consumeError(C.takeError());
          return false;
        }
        if (A == dwarf::computeTombstoneAddress(AddrSize))
          return false;
        R.Address = A;
        R.SectionIndex = SecIx;
        Ptr = Base + C.tell();
        break;
      }
      case dwarf::DW_LNE_set_discriminator:
        if (!uleb(Ptr, OpEnd, V))
          return false;
        R.Discriminator = uint32_t(V);
        break;
      case dwarf::DW_LNE_define_file:
        return false; // It adds to the prologue's file names.
      default:
        Ptr = OpEnd;
        break;
      }
      // A length that disagrees with the operands is reported by LLVM.
      if (Ptr != OpEnd)
        return false;
      continue;
    }
    switch (Opcode) {
    case dwarf::DW_LNS_copy:
      emit(false);
      break;
    case dwarf::DW_LNS_advance_pc:
      if (!uleb(Ptr, Stop, V))
        return false;
      R.Address += V * MinInst;
      break;
    case dwarf::DW_LNS_advance_line: {
      int64_t D;
      if (!sleb(Ptr, Stop, D))
        return false;
      R.Line = uint32_t(R.Line + D);
      break;
    }
    case dwarf::DW_LNS_set_file:
      if (!uleb(Ptr, Stop, V))
        return false;
      R.File = uint16_t(V);
      break;
    case dwarf::DW_LNS_set_column:
    case dwarf::DW_LNS_set_isa:
      if (!uleb(Ptr, Stop, V))
        return false;
      break;
    case dwarf::DW_LNS_negate_stmt:
    case dwarf::DW_LNS_set_basic_block:
    case dwarf::DW_LNS_set_prologue_end:
    case dwarf::DW_LNS_set_epilogue_begin:
      break;
    case dwarf::DW_LNS_const_add_pc:
      R.Address += AddrStep[255]; // special opcode 255's advance
      break;
    case dwarf::DW_LNS_fixed_advance_pc: {
      DataExtractor::Cursor C(uint64_t(Ptr - Base));
      uint16_t Delta = uint16_t(Table.getRelocatedValue(C, 2));
      if (!C) {
        consumeError(C.takeError());
        return false;
      }
      R.Address += Delta;
      Ptr = Base + C.tell();
      break;
    }
    default:
      // An opcode this version does not define: skip its operands, as
      // many as the prologue says.
      for (uint8_t K = 0; K < P.StandardOpcodeLengths[Opcode - 1]; ++K)
        if (!uleb(Ptr, Stop, V))
          return false;
      break;
    }
  }
  // An unterminated last sequence is reported by LLVM.
  return SeqEmpty && !Backwards;
}

LineRowsResult LineRowReader::lookup(DWARFUnit &U, ArrayRef<uint64_t> Addrs,
                                     MutableArrayRef<LineRow> Out,
                                     DWARFDebugLine::Prologue &P) {
  DWARFDie UnitDIE = U.getUnitDIE();
  if (!UnitDIE)
    return LineRowsResult::NoTable;
  std::optional<uint64_t> StmtList =
      dwarf::toSectionOffset(UnitDIE.find(dwarf::DW_AT_stmt_list));
  if (!StmtList)
    return LineRowsResult::NoTable;
  uint64_t Start = *StmtList + U.getLineTableOffset();
  const DWARFSection &Sec = U.getLineSection();
  if (Start >= Sec.Data.size())
    return LineRowsResult::NoTable;
  DWARFDataExtractor Data(U.getContext().getDWARFObj(), Sec,
                          U.isLittleEndian(), U.getAddressByteSize());
  uint64_t Offset = Start;
  bool Warned = false;
  Error E = P.parse(
      Data, &Offset,
      [&](Error W) {
        consumeError(std::move(W));
        Warned = true;
      },
      U.getContext(), &U);
  if (E) {
    consumeError(std::move(E));
    return LineRowsResult::Declined;
  }
  uint64_t Length = P.TotalLength + P.sizeofTotalLength();
  if (Warned || !Data.isValidOffsetForDataOfSize(Start, Length) ||
      P.MinInstLength == 0 || P.LineRange == 0 || P.OpcodeBase == 0 || P.MaxOpsPerInst > 1 ||
      (P.getVersion() >= 4 && P.MaxOpsPerInst == 0) ||
      U.getAddressByteSize() == 0 ||
      P.StandardOpcodeLengths.size() + 1 < P.OpcodeBase)
    return LineRowsResult::Declined;
  if (!run(U, P, Start + P.getLength(), Start + Length, Addrs))
    return LineRowsResult::Declined;

  // LineTable::lookupAddress for an address of no section: the first
  // sequence, by (section, end) stably sorted, that ends after it, and in
  // that sequence the last row at or before it.
  auto ByHighPC = [](const Sequence &L, const Sequence &R) {
    return std::tie(L.SectionIndex, L.HighPC) <
           std::tie(R.SectionIndex, R.HighPC);
  };
  // Stable: sequences are in program order, and so are their first rows.
  std::sort(Sequences.begin(), Sequences.end(),
            [](const Sequence &L, const Sequence &R) {
              return std::tie(L.SectionIndex, L.HighPC, L.FirstRow) <
                     std::tie(R.SectionIndex, R.HighPC, R.FirstRow);
            });
  auto ByAddress = [](const Row &L, const Row &R) {
    return std::tie(L.SectionIndex, L.Address) <
           std::tie(R.SectionIndex, R.Address);
  };
  // Addrs ascend, so both searches' answers do too: each starts where the
  // last one ended, and an address in the same sequence as the last, or
  // before the same row, is answered without a search (every earlier
  // element was already at or below the last address).
  auto Seq = Sequences.begin();
  const Row *UB = nullptr; // the last row search's answer, in LastSeq
  auto LastSeq = Sequences.end();
  for (size_t K = 0; K < Addrs.size(); ++K) {
    uint64_t A = Addrs[K];
    assert((K == 0 || Addrs[K - 1] <= A) && "addresses must ascend");
    Out[K] = LineRow();
    Sequence Key{0, A, Undef, 0, 0};
    if (Seq == Sequences.end() || !ByHighPC(Key, *Seq))
      Seq = std::upper_bound(Seq, Sequences.end(), Key, ByHighPC);
    auto It = Seq;
    if (It == Sequences.end() || It->SectionIndex != Undef ||
        !(It->LowPC <= A && A < It->HighPC))
      continue;
    if (It->FirstRow == It->LastRow)
      return LineRowsResult::Declined; // cannot be: its rows were kept
    Row Probe{A, Undef, 0, 0, 0};
    const Row *First = Rows.data() + It->FirstRow;
    const Row *Last = Rows.data() + It->LastRow;
    if (It != LastSeq) {
      UB = First + 1;
      LastSeq = It;
    }
    if (UB != Last - 1 && !ByAddress(Probe, *UB))
      UB = std::upper_bound(UB, Last - 1, Probe, ByAddress);
    const Row *At = UB - 1;
    Out[K] = {At->Line, At->Discriminator, At->File, true};
  }
  return LineRowsResult::Done;
}

} // namespace lbr2prof
