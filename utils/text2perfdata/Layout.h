//===- Layout.h - a Description to the bytes of perf.data -----------------===//
//
// Lays out a file-mode perf.data (PERFILE2 header, sample ids, attrs, data,
// feature section table and bodies, as `perf record` writes them) or a
// pipe-mode stream (16-byte header, HEADER_ATTR, HEADER_FEATURE, build-id
// and FINISHED_INIT records, then the data), compressing the records of
// each `compress` group into PERF_RECORD_COMPRESSED records.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_UTILS_TEXT2PERFDATA_LAYOUT_H
#define LBR2PROF_UTILS_TEXT2PERFDATA_LAYOUT_H

#include "Model.h"
#include "Text.h"

#include <vector>

namespace lbr2prof {
namespace t2p {

/// Produces the complete output for \p Desc in \p Out. Errors (a record
/// too large for its u16 size, a zstd failure) go to \p D.
bool layoutPerfData(const Description &Desc, std::vector<uint8_t> &Out,
                    Diag &D);

} // namespace t2p
} // namespace lbr2prof

#endif
