//===- RecordCommon.h - helpers shared by the record encoders ---*- C++ -*-===//
//
// Internal to text2perfdata: the pieces every record encoder uses (record
// header with its u16 size check, attr= lookup, cpumode, the sample_id
// trailer) and the two encoders Records.cpp dispatches to.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_UTILS_TEXT2PERFDATA_RECORDCOMMON_H
#define LBR2PROF_UTILS_TEXT2PERFDATA_RECORDCOMMON_H

#include "ByteWriter.h"
#include "Model.h"
#include "Text.h"

#include <optional>

namespace lbr2prof {
namespace t2p {
namespace rec {

/// Starts a record: type, misc placeholder, size placeholder. Returns the
/// offset of the header in \p W.
size_t beginRecord(ByteWriter &W, uint32_t Type);

/// Patches misc and size of the record at \p At; errors when it outgrows
/// header.size. \p MiscOverride (a `misc=` key) replaces \p Misc.
bool endRecord(ArgReader &A, ByteWriter &W, size_t At, uint16_t Misc,
               const std::optional<uint16_t> &MiscOverride);

/// Resolves `attr=N` (default 0); null with an error when out of range.
const AttrDesc *pickAttr(ArgReader &A, const Description &Desc, unsigned &Idx);

/// `cpumode=` (user, kernel, hv, guest_kernel, guest_user, unknown or a
/// number); by default kernel for addresses in the upper half, else user.
uint16_t cpumode(ArgReader &A, uint64_t Addr);

/// Appends the sample_id trailer of attr \p AttrIdx from the line's keys.
void trailer(ArgReader &A, const Description &Desc, unsigned AttrIdx,
             ByteWriter &W);

/// Encodes a `sample` line (SampleRecord.cpp).
bool encodeSample(ArgReader &A, const Description &Desc,
                  const std::optional<uint16_t> &MiscOv,
                  std::vector<uint8_t> &Out);

/// Encodes every other record line (Records.cpp).
bool encodeOther(ArgReader &A, const Description &Desc,
                 const std::optional<uint16_t> &MiscOv,
                 std::vector<uint8_t> &Out);

} // namespace rec
} // namespace t2p
} // namespace lbr2prof

#endif
