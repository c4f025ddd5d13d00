//===- LineRows.h - line-table rows of many addresses in one pass ---------===//
//
// LLVM's DWARFDebugLine::LineTable::parse builds a unit's whole row matrix
// (about 40 bytes a row, in a vector grown one row at a time) before the
// first lookup: on a binary whose units each hold thousands of functions,
// growing that vector was a quarter of the DWARF children's time
// (bench/scale, 20 MB narrow: 38% of all CPU in LineTable::parse, 24% in
// the vector's reallocation). lookupLineRows() runs the unit's line
// program once, keeping in a reused buffer of 32-byte rows only those that
// answer an address asked for, and answers a sorted batch of addresses
// with the row LineTable::lookupAddress (LLVM 19) gives each: the same
// sequences (valid ones only, stably sorted by section and end address),
// the same search within a sequence. Anything the fast path does not
// reproduce exactly (a warning while reading, a tombstone address,
// DW_LNE_define_file, VLIW op indexes, rows that go back in a sequence
// holding an address asked for) makes it decline, and the caller asks
// LLVM's table instead.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_LIB_BINARY_LINEROWS_H
#define LBR2PROF_LIB_BINARY_LINEROWS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/DebugInfo/DWARF/DWARFDebugLine.h"
#include <cstdint>
#include <vector>

namespace llvm {
class DWARFUnit;
}

namespace lbr2prof {

/// The fields of the row an address is in.
struct LineRow {
  uint32_t Line = 0;
  uint32_t Discriminator = 0;
  uint16_t File = 0;
  bool Found = false;
};

enum class LineRowsResult {
  /// The unit names no line table (no DW_AT_stmt_list): no rows, as
  /// DWARFContext::getLineTableForUnit gives none.
  NoTable,
  /// Out holds each address's row (Found false where no sequence holds
  /// it), and Prologue the table's prologue (its file names).
  Done,
  /// Not answered: ask LLVM's own line table.
  Declined,
};

/// Reused between calls, so a child's many units share one buffer.
class LineRowReader {
public:
  /// Answers Addrs (sorted ascending) from Unit's line table into Out
  /// (Addrs.size() rows) and Prologue.
  LineRowsResult lookup(llvm::DWARFUnit &Unit, llvm::ArrayRef<uint64_t> Addrs,
                        llvm::MutableArrayRef<LineRow> Out,
                        llvm::DWARFDebugLine::Prologue &Prologue);

  struct Row {
    uint64_t Address;
    uint64_t SectionIndex;
    uint32_t Line;
    uint32_t Discriminator;
    uint16_t File;
  };
  struct Sequence {
    uint64_t LowPC, HighPC, SectionIndex;
    uint32_t FirstRow, LastRow; ///< LastRow: one past the end row
  };

private:
  /// Runs the line program into Rows and Sequences, keeping only the rows
  /// that answer one of Wanted (sorted): none of a sequence that holds
  /// none of them, and within one, the last row at or before each. A
  /// sequence kept whole held sqlite's 7 MB of rows in each DWARF child
  /// (its one unit is one sequence): the line profile's peak, 23.9 MB of
  /// the children's against the parent's 24.3, is now the parent's.
  bool run(llvm::DWARFUnit &Unit, const llvm::DWARFDebugLine::Prologue &P,
           uint64_t Start, uint64_t End, llvm::ArrayRef<uint64_t> Wanted);
  std::vector<Row> Rows;
  std::vector<Sequence> Sequences;
};

} // namespace lbr2prof

#endif
