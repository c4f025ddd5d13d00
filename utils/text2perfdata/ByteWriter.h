//===- ByteWriter.h - little-endian append buffer -------------------------===//
//
// A growable byte vector with little-endian integer appends and in-place
// patching, used to build records, feature bodies and the file itself.
// perf.data written here is always little-endian (x86-64 / arm64 hosts).
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_UTILS_TEXT2PERFDATA_BYTEWRITER_H
#define LBR2PROF_UTILS_TEXT2PERFDATA_BYTEWRITER_H

#include <cstdint>
#include <string>
#include <vector>

namespace lbr2prof {
namespace t2p {

class ByteWriter {
public:
  std::vector<uint8_t> Buf;

  size_t size() const { return Buf.size(); }
  void u8(uint8_t V) { Buf.push_back(V); }
  void u16(uint16_t V) { le(V, 2); }
  void u32(uint32_t V) { le(V, 4); }
  void u64(uint64_t V) { le(V, 8); }
  void bytes(const std::vector<uint8_t> &B) {
    Buf.insert(Buf.end(), B.begin(), B.end());
  }
  void bytes(const uint8_t *P, size_t N) { Buf.insert(Buf.end(), P, P + N); }
  void zeros(size_t N) { Buf.insert(Buf.end(), N, 0); }
  /// Appends zeros until the size is a multiple of \p Align.
  void alignTo(size_t Align) {
    while (Buf.size() % Align)
      Buf.push_back(0);
  }
  /// Appends \p S, its NUL and zero padding up to a multiple of \p Align
  /// (at least one NUL), as perf stores file names and comm strings.
  void cstrPadded(const std::string &S, size_t Align) {
    Buf.insert(Buf.end(), S.begin(), S.end());
    Buf.push_back(0);
    alignTo(Align);
  }
  void patch16(size_t At, uint16_t V) { put(At, V, 2); }
  void patch32(size_t At, uint32_t V) { put(At, V, 4); }
  void patch64(size_t At, uint64_t V) { put(At, V, 8); }

private:
  void le(uint64_t V, unsigned N) {
    for (unsigned I = 0; I < N; ++I)
      Buf.push_back((uint8_t)(V >> (8 * I)));
  }
  void put(size_t At, uint64_t V, unsigned N) {
    for (unsigned I = 0; I < N; ++I)
      Buf[At + I] = (uint8_t)(V >> (8 * I));
  }
};

} // namespace t2p
} // namespace lbr2prof

#endif
