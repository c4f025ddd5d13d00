//===- UnitIndex.h - which compile unit covers an address -------*- C++ -*-===//
//
// Private to lib/Binary. DWARFContext::getCompileUnitForCodeAddress (LLVM
// 19) answers from DWARFDebugAranges, which it builds, without a
// .debug_aranges section (clang writes none), by extracting every unit's
// first DIE: that parses each unit's whole abbreviation table into a
// std::map of vectors. With 9,600 units of 50 functions (bench/scale, a
// 300 MB binary) that was 100 ms of CPU in each of the two symbolizer
// children, a fifth of the run, for a profile whose code is in 320 of them.
//
// UnitIndex reads the same ranges once, in the parent, from each unit's
// header and first DIE only: the one abbreviation declaration that DIE
// uses, its low/high PC or its range list (through LLVM's own range-list
// readers, with the unit's base address and address pool), and resolves
// them as DWARFDebugAranges does. It declines (build() gives nothing, and
// LLVM builds its table as before) whatever it would not read exactly as
// LLVM does: a .debug_aranges section, compressed sections, a relocatable
// file, split or partial units, DWARF 64 range-list indexes, ranges of two
// units that overlap, and anything it cannot decode.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_LIB_BINARY_UNITINDEX_H
#define LBR2PROF_LIB_BINARY_UNITINDEX_H

#include <cstdint>
#include <optional>
#include <vector>

namespace llvm::object {
class ObjectFile;
}

namespace lbr2prof {

class UnitIndex {
public:
  /// The index of Obj's compile units, or nothing if LLVM must build it.
  static std::optional<UnitIndex> build(const llvm::object::ObjectFile &Obj);
  /// The .debug_info offset of the unit whose ranges hold Addr.
  std::optional<uint64_t> find(uint64_t Addr) const {
    const Range *R = rangeAt(Addr);
    return R ? std::optional<uint64_t>(R->Unit) : std::nullopt;
  }
  /// [Lo, Hi): addresses of the unit at .debug_info offset Unit.
  struct Range {
    uint64_t Lo, Hi, Unit;
    bool holds(uint64_t A) const { return A >= Lo && A < Hi; }
  };
  /// The range holding Addr, or nullptr. Callers asking in address order
  /// check the last range first (a search per address was 6% of the
  /// symbolizer children's time on bench/scale's 100 MB broad profile).
  const Range *rangeAt(uint64_t Addr) const;
  size_t ranges() const { return Ranges.size(); }

private:
  /// Sorted by address, disjoint; adjacent ranges of one unit merged.
  std::vector<Range> Ranges;
};

} // namespace lbr2prof

#endif
