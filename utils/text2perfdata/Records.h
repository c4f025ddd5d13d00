//===- Records.h - encode one data-record line to perf bytes --------------===//
//
// Turns a `sample`, `mmap`, `mmap2`, `comm`, ... line into the exact bytes
// of the perf_event record the kernel (or perf) would write: header, body
// and, for kernel record types, the sample_id trailer selected by the attr.
// The field order and sizes follow include/uapi/linux/perf_event.h.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_UTILS_TEXT2PERFDATA_RECORDS_H
#define LBR2PROF_UTILS_TEXT2PERFDATA_RECORDS_H

#include "Model.h"
#include "Text.h"

#include <string>
#include <vector>

namespace lbr2prof {
namespace t2p {

/// True when \p Keyword is a data-record directive handled here.
bool isRecordKeyword(const std::string &Keyword);

/// Encodes the record described by \p A into \p Out (header included; for
/// `auxtrace` the payload follows). The attrs of \p Desc must be final.
/// Returns false with the error in A's Diag.
bool encodeRecord(ArgReader &A, const Description &Desc,
                  std::vector<uint8_t> &Out);

/// The first sample id of attr \p Idx, or 0 when it has none.
uint64_t defaultId(const Description &Desc, unsigned Idx);

} // namespace t2p
} // namespace lbr2prof

#endif
