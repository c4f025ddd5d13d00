//===- Leb128.h - bounded LEB128 reads from bytes ---------------*- C++ -*-===//
//
// Private to lib/Binary: the LEB128 reads of the readers that walk DWARF
// bytes themselves (LineRows, UnitIndex, UnitSubroutines), bounded by the
// end of the data and declining what LLVM's DataExtractor would refuse.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_LIB_BINARY_LEB128_H
#define LBR2PROF_LIB_BINARY_LEB128_H

#include <cstdint>

namespace lbr2prof {

/// Bounded LEB128 reads; false when the number runs past End or does not
/// fit 64 bits (LLVM's extractor fails on both).
inline bool uleb(const uint8_t *&P, const uint8_t *End, uint64_t &V) {
  // One byte, as most are (a line program's columns and advances), or two
  // (a unit's address indexes).
  if (P < End && *P < 0x80) {
    V = *P++;
    return true;
  }
  if (End - P >= 2 && P[1] < 0x80) {
    V = uint64_t(P[0] & 0x7f) | uint64_t(P[1]) << 7;
    P += 2;
    return true;
  }
  V = 0;
  for (unsigned Shift = 0; P < End; Shift += 7) {
    uint8_t B = *P++;
    uint64_t Slice = B & 0x7f;
    if (Shift >= 64 ? Slice != 0 : (Slice << Shift) >> Shift != Slice)
      return false;
    if (Shift < 64)
      V |= Slice << Shift;
    if (!(B & 0x80))
      return true;
  }
  return false;
}

inline bool sleb(const uint8_t *&P, const uint8_t *End, int64_t &V) {
  if (P < End && *P < 0x80) { // one byte, bit 6 the sign
    uint8_t B = *P++;
    V = B & 0x40 ? int64_t(B) - 0x80 : int64_t(B);
    return true;
  }
  if (End - P >= 2 && P[1] < 0x80) { // two (line advances between functions)
    uint64_t U = uint64_t(P[0] & 0x7f) | uint64_t(P[1]) << 7;
    if (P[1] & 0x40)
      U |= ~uint64_t(0) << 14;
    V = int64_t(U);
    P += 2;
    return true;
  }
  if (End - P >= 3 && P[2] < 0x80) { // three (back to an inlined callee's line)
    uint64_t U = uint64_t(P[0] & 0x7f) | uint64_t(P[1] & 0x7f) << 7 |
                 uint64_t(P[2]) << 14;
    if (P[2] & 0x40)
      U |= ~uint64_t(0) << 21;
    V = int64_t(U);
    P += 3;
    return true;
  }
  // Anything longer than 10 bytes is declined rather than matched to
  // LLVM's overflow rules.
  uint64_t U = 0;
  unsigned Shift = 0;
  uint8_t B;
  do {
    if (P >= End || Shift >= 63 + 7)
      return false;
    B = *P++;
    if (Shift == 63 && (B & 0x7f) != 0 && (B & 0x7f) != 0x7f)
      return false;
    U |= uint64_t(B & 0x7f) << Shift;
    Shift += 7;
  } while (B & 0x80);
  if (Shift < 64 && (B & 0x40))
    U |= ~uint64_t(0) << Shift;
  V = int64_t(U);
  return true;
}

} // namespace lbr2prof

#endif
