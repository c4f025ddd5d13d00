//===- Model.h - what a text2perfdata input describes ---------------------===//
//
// The parsed description of one perf.data file: header mode, event
// attributes, feature sections, and the data records already encoded to
// their on-disk bytes (in input order, each tagged with the compression
// group it belongs to). Builder.cpp fills it from directives; Layout.cpp
// turns it into a file or a pipe stream.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_UTILS_TEXT2PERFDATA_MODEL_H
#define LBR2PROF_UTILS_TEXT2PERFDATA_MODEL_H

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lbr2prof {
namespace t2p {

/// Size of the struct perf_event_attr image we build (PERF_ATTR_SIZE_VER8);
/// the file gets the first `attr.size` bytes of it.
constexpr unsigned AttrImageSize = 136;

/// One `attr` line: a perf_event_attr plus its sample ids and event name.
struct AttrDesc {
  unsigned Line = 0;
  std::string Name;
  /// The full attr image, little-endian, AttrImageSize bytes; `size` at
  /// offset 4 is patched at layout time.
  std::vector<uint8_t> Image = std::vector<uint8_t>(AttrImageSize, 0);
  uint64_t SampleType = 0;
  uint64_t ReadFormat = 0;
  uint64_t BranchSampleType = 0;
  uint64_t RegsUser = 0;
  uint64_t RegsIntr = 0;
  uint32_t StackUser = 0;
  bool SampleIdAll = true;
  std::vector<uint64_t> Ids;
};

/// One HEADER_BUILD_ID entry.
struct BuildIdDesc {
  int32_t Pid = -1;
  uint16_t Misc = 0;
  std::vector<uint8_t> Id;
  std::string File;
};

/// The feature sections, each present when set.
struct FeatureDesc {
  std::optional<std::string> Hostname, OsRelease, Version, Arch, CpuDesc, CpuId;
  /// {online, avail} as the text form gives them.
  std::optional<std::pair<uint32_t, uint32_t>> NrCpus;
  std::optional<uint64_t> TotalMem;
  std::optional<std::vector<std::string>> Cmdline;
  std::optional<std::pair<uint64_t, uint64_t>> SampleTime;
  /// -1: automatic (on when any attr samples BRANCH_STACK).
  int BranchStack = -1;
  bool EventDesc = true;
  std::vector<BuildIdDesc> BuildIds;
  /// Overrides of the COMPRESSED feature fields.
  std::optional<uint32_t> CompRatio, CompMmapLen;
};

/// A compression group: the records between `compress level=N` and
/// `compress off` (or the end of input).
struct CompressDesc {
  unsigned Line = 0;
  int Level = 1;
  /// Close a chunk after this many records (0 = no record limit).
  unsigned RecordsPerChunk = 0;
  /// Close a chunk every this many input bytes, cutting records if needed.
  unsigned SplitBytes = 0;
  /// Whether `compress off` ended the group (zstd frame is ended) or the
  /// input ended (the stream is only flushed, as perf record leaves it).
  bool Closed = false;
};

/// One data-section item: encoded record bytes, plus for AUXTRACE the
/// payload that follows outside header.size (already appended to Bytes).
struct DataItem {
  unsigned Line = 0;
  std::vector<uint8_t> Bytes;
  /// Index into Description::Groups, or -1 for an uncompressed record.
  int Group = -1;
};

/// The whole input.
struct Description {
  bool Pipe = false;
  /// perf_event_attr.size written to the file (64..136).
  uint32_t AttrSize = 128;
  /// Pipe mode: write FINISHED_INIT after the header records.
  bool FinishedInit = true;
  /// Check the rules perf enforces on several attrs.
  bool Validate = true;
  std::vector<AttrDesc> Attrs;
  FeatureDesc Features;
  std::vector<std::string> Omit;
  std::vector<CompressDesc> Groups;
  std::vector<DataItem> Data;
};

} // namespace t2p
} // namespace lbr2prof

#endif
