//===- Hash.h - the one hash combiner of lbr2prof's hash tables -*- C++ -*-===//
//
// Keys of the counting tables are a few 64-bit words (Locs, counts): each
// word is folded in with hashMix, and hashFold makes the 32-bit value
// DenseMap asks for. The multipliers are odd 64-bit constants with good bit
// dispersion (the golden ratio's and MurmurHash3's finalizer's); Locs differ
// mostly in their low bits and DSO index, which the shifts spread over the
// whole word.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_SUPPORT_HASH_H
#define LBR2PROF_SUPPORT_HASH_H

#include <cstdint>

namespace lbr2prof {

/// Folds the word V into the running hash H.
inline uint64_t hashMix(uint64_t H, uint64_t V) {
  H ^= V + 0x9e3779b97f4a7c15ULL + (H << 6) + (H >> 2);
  return H * 0xff51afd7ed558ccdULL;
}

/// The 32-bit hash of a running hash.
inline unsigned hashFold(uint64_t H) { return unsigned(H ^ (H >> 32)); }

} // namespace lbr2prof

#endif
