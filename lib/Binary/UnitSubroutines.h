//===- UnitSubroutines.h - a unit's inline chains without its DIE tree ----===//
//
// DWARFUnit::getInlinedChainForAddress (LLVM 19) extracts every DIE of the
// unit into a vector and maps the ranges of every subprogram and inlined
// subroutine, before it answers the first address. With units of
// thousands of functions that extraction was 38% of all CPU of a narrow
// profile of a 300 MB binary (bench/scale, 480k functions, every 100th
// hot), growing the DIE vector a quarter of it. UnitSubroutines walks the
// unit's DIEs once, skipping each DIE's attributes by its abbreviation's
// sizes, and keeps only the subroutines: their offsets, their nearest
// subroutine ancestor, and LLVM's own address map built from their ranges
// in the same order with the same splitting rule, so a chain is the one
// LLVM gives. The attributes a frame needs (its linkage or short name
// through abstract origins and specifications, declaration line, call
// site) are read from the DIE itself when asked for.
//
// What it does not reproduce it declines (scan() or info() returns false)
// and the caller uses LLVM's DIEs for the unit: split units, references
// to other units or to type signatures, tombstone addresses, anything it
// cannot decode.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_LIB_BINARY_UNITSUBROUTINES_H
#define LBR2PROF_LIB_BINARY_UNITSUBROUTINES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "lbr2prof/Support/Arena.h"
#include <cstdint>
#include <map>
#include <vector>

namespace llvm {
class DWARFUnit;
}

namespace lbr2prof {

class UnitSubroutines {
public:
  /// What scan() needs only while it runs, kept by the caller for the
  /// next unit's: grown afresh in each of the 240 units of bench/scale's
  /// 300 MB binary, the ranges passed over and kept took 2.4k of a fixed
  /// profile's 16.7k page faults.
  struct Scratch {
    std::vector<std::pair<uint64_t, uint64_t>> Skipped, Kept;
  };
  /// Reads U's DIEs; false if the unit must be read by LLVM. With Wanted
  /// (sorted addresses), only the subprograms whose ranges hold one of them
  /// are kept, with the subroutines inlined into them: chain() is then
  /// exact for the wanted addresses only. The others' DIEs are still
  /// walked (DWARF has no index to a subprogram's end), but their ranges
  /// stay out of the address map: with every 1,500th function of a 300 MB
  /// binary's 480k hot (bench/scale), the map and its nodes were a quarter
  /// of the scan.
  bool scan(llvm::DWARFUnit &U, llvm::ArrayRef<uint64_t> Wanted,
            Scratch &Tmp);
  /// The innermost subroutine of Addr's inline chain (a number for
  /// chain()), -1 if none: DWARFUnit::getSubroutineForAddress. Fastest
  /// when asked in ascending order.
  int32_t innermost(uint64_t Addr) const;
  /// The offsets of the subroutine DIEs of the inline chain of Innermost
  /// (from innermost()), innermost first, as
  /// DWARFUnit::getInlinedChainForAddress gives them.
  void chain(int32_t Innermost, llvm::SmallVectorImpl<uint64_t> &Offsets) const;

  /// What Symbolizer keeps of a frame's DIE.
  struct Info {
    const char *Name = nullptr; ///< linkage name, else short name
    uint64_t DeclLine = 0;
    uint32_t CallFile = 0, CallLine = 0, CallColumn = 0, CallDisc = 0;
  };
  /// Info of the DIE at Offset as DWARFDie's getSubroutineName(LinkageName),
  /// getDeclLine() and getCallerFrame() give it; false if LLVM must answer.
  bool info(uint64_t Offset, Info &Out) const;

  /// True if no Skipped range [low, high) holds one of the Wanted
  /// addresses (sorted) or overlaps one of the Kept ranges (sorted here):
  /// then scan() may leave the skipped ranges out of the address map.
  static bool
  passedOverSafely(llvm::ArrayRef<uint64_t> Wanted,
                   llvm::ArrayRef<std::pair<uint64_t, uint64_t>> Skipped,
                   std::vector<std::pair<uint64_t, uint64_t>> &Kept);

private:
  struct Sub {
    uint64_t Offset;
    int32_t Parent; ///< nearest subroutine ancestor, -1 if none
    bool Subprogram;
  };
  struct Attrs;
  bool scanDies(llvm::DWARFUnit &U, llvm::ArrayRef<uint64_t> Wanted,
                Scratch &Tmp);
  bool read(uint64_t Offset, Attrs &A) const;
  bool findRecursively(uint64_t Offset, unsigned Which, const char *&Str,
                       uint64_t &Num) const;
  llvm::DWARFUnit *U = nullptr;
  std::vector<Sub> Subs;
  /// The map's nodes come from a bump allocator: the map only grows, and
  /// a node per range from malloc was half the scan's time.
  template <typename T> struct Bump {
    using value_type = T;
    Arena *A;
    explicit Bump(Arena *A) : A(A) {}
    template <typename U> Bump(const Bump<U> &O) : A(O.A) {}
    T *allocate(size_t N) { return A->make<T>(N); }
    void deallocate(T *, size_t) {}
    template <typename U> bool operator==(const Bump<U> &O) const {
      return A == O.A;
    }
    template <typename U> bool operator!=(const Bump<U> &O) const {
      return A != O.A;
    }
  };
  using MapValue = std::pair<const uint64_t, std::pair<uint64_t, uint32_t>>;
  Arena MapNodes;
  /// LowPC -> (HighPC, index in Subs), as DWARFUnit's AddrDieMap, while
  /// scan() builds it.
  std::map<uint64_t, std::pair<uint64_t, uint32_t>, std::less<uint64_t>,
           Bump<MapValue>>
      AddrMap{Bump<MapValue>(&MapNodes)};
  /// The map once built, as an array by LowPC, and where the last
  /// innermost() found its entry: addresses come in ascending order, so
  /// most are found there or at the next entry (a search of the map's
  /// nodes per address was 13% of the children's time on bench/scale's
  /// 20 MB broad line profile).
  struct Entry {
    uint64_t Low, High;
    uint32_t Sub;
  };
  std::vector<Entry> Entries;
  mutable size_t Hint = 0;
  /// Where each subroutine DIE starts (subprograms and inlined
  /// subroutines, kept or passed over), from the unit's offset, ascending:
  /// the DIEs read() reads and references may name. A bit for every byte
  /// of the unit (every DIE's start), allocated and cleared for each unit,
  /// was 2% of a fixed profile's CPU on bench/scale's 300 MB binary.
  std::vector<uint32_t> SubStarts;
  bool isSubroutineStart(uint64_t Offset) const;
};

} // namespace lbr2prof

#endif
