//===- Decode.h - bounded decoding of perf.data structures ------*- C++ -*-===//
//
// Private to lib/PerfData: a cursor that never reads past its end, and the
// decoders of attrs, feature sections, samples and side-band records. Each
// decoder returns false and says why in plain words when the bytes do not
// hold what the format requires; the reader adds the file, offset and
// record to make an InputError.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_LIB_PERFDATA_DECODE_H
#define LBR2PROF_LIB_PERFDATA_DECODE_H

#include "lbr2prof/PerfData/PerfReader.h"
#include "llvm/Support/Endian.h"
#include <cstring>
#include <string>

namespace lbr2prof {
namespace decode {

/// Reads little-endian values from [P, E) and refuses to run past E.
struct Cursor {
  const uint8_t *P;
  const uint8_t *E;
  Cursor(llvm::ArrayRef<uint8_t> B) : P(B.data()), E(B.data() + B.size()) {}
  Cursor(const uint8_t *P, const uint8_t *E) : P(P), E(E) {}
  size_t left() const { return size_t(E - P); }
  bool u64(uint64_t &V) {
    if (left() < 8)
      return false;
    V = llvm::support::endian::read64le(P);
    P += 8;
    return true;
  }
  bool u32(uint32_t &V) {
    if (left() < 4)
      return false;
    V = llvm::support::endian::read32le(P);
    P += 4;
    return true;
  }
  bool skip(uint64_t N) {
    if (left() < N)
      return false;
    P += N;
    return true;
  }
  /// Takes N bytes as a view.
  bool bytes(uint64_t N, llvm::ArrayRef<uint8_t> &Out) {
    if (left() < N)
      return false;
    Out = llvm::ArrayRef<uint8_t>(P, size_t(N));
    P += N;
    return true;
  }
  /// Takes N u64 values as a view.
  bool u64s(uint64_t N, llvm::ArrayRef<ulittle64> &Out) {
    if (N > left() / 8)
      return false;
    Out = llvm::ArrayRef<ulittle64>(reinterpret_cast<const ulittle64 *>(P),
                                    size_t(N));
    P += N * 8;
    return true;
  }
  /// perf's string: u32 length (padding included), then NUL-terminated
  /// bytes.
  bool perfString(std::string &Out) {
    uint32_t Len;
    if (!u32(Len) || left() < Len)
      return false;
    Out.assign(reinterpret_cast<const char *>(P), strnlen((const char *)P, Len));
    P += Len;
    return true;
  }
};

/// Decodes a perf_event_attr of Stride bytes (the attr alone, without the
/// file-mode ids section).
bool parseAttr(llvm::ArrayRef<uint8_t> Bytes, EventAttr &A, std::string &Why);

/// Decodes the data of feature Bit into Info. Unknown features are kept as
/// present and otherwise ignored.
bool parseFeature(unsigned Bit, llvm::ArrayRef<uint8_t> Data,
                  PerfFileInfo &Info, std::string &Why);

/// Decodes a build_id_event (feature section entry or HEADER_BUILD_ID
/// record) starting at its header.
bool parseBuildIdEvent(llvm::ArrayRef<uint8_t> Rec, BuildIdEntry &B,
                       std::string &Why);

/// Decoding facts derived once per attr.
struct Layout {
  uint64_t SampleType = 0;
  /// Bytes of the sample_id trailer of non-sample records (0 if none).
  unsigned TrailerSize = 0;
  /// Index (in u64 words) of the sample id from the start of a SAMPLE, or
  /// -1 if samples carry no id.
  int IdPosInSample = -1;
  /// Index (in u64 words) of the id counted back from the end of a
  /// non-sample record, or -1.
  int IdPosFromEnd = -1;
  /// Index (in u64 words) of TIME from the start of a SAMPLE body, or -1.
  int TimePosInSample = -1;
  /// Index (in u64 words) of TIME from the start of the trailer, or -1.
  int TimePosInTrailer = -1;
  unsigned RegsUserCount = 0, RegsIntrCount = 0;
  bool HwIdx = false, BranchCounters = false;
  uint64_t ReadFormat = 0;
};
Layout makeLayout(const EventAttr &A);

/// Decodes a SAMPLE body (record without its 8-byte header).
bool decodeSample(llvm::ArrayRef<uint8_t> Body, const Layout &L, Sample &S,
                  std::string &Why);

/// Decodes a sample_id trailer (the last L.TrailerSize bytes of Body).
void decodeTrailer(llvm::ArrayRef<uint8_t> Trailer, const Layout &L,
                   SampleId &Id);

} // namespace decode
} // namespace lbr2prof

#endif
