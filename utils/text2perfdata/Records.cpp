//===- Records.cpp - record dispatch and the non-sample encoders ----------===//
//
// One branch per record directive (samples are in SampleRecord.cpp). Each
// reads its keys through an ArgReader (which rejects unknown keys), writes
// the body in the kernel's field order, then the sample_id trailer when the
// attr asks for it, and finally patches header.size. Sizes that cannot fit
// the u16 header.size are errors, not silent truncation.
//
//===----------------------------------------------------------------------===//
#include "Records.h"

#include "ByteWriter.h"
#include "RecordCommon.h"
#include "lbr2prof/PerfData/PerfABI.h"

#include <optional>

namespace lbr2prof {
namespace t2p {
namespace rec {

using namespace perfabi;

/// Starts a record: type, misc placeholder, size placeholder.
size_t beginRecord(ByteWriter &W, uint32_t Type) {
  size_t At = W.size();
  W.u32(Type);
  W.u16(0);
  W.u16(0);
  return At;
}

/// Patches misc and size; errors when the record outgrows header.size.
/// A `misc=` key, read before finish(), replaces the computed misc.
bool endRecord(ArgReader &A, ByteWriter &W, size_t At, uint16_t Misc,
               const std::optional<uint16_t> &MiscOverride) {
  size_t Size = W.size() - At;
  if (Size > 0xffff)
    return A.error("record is " + std::to_string(Size) +
                   " bytes; perf_event_header.size holds at most 65535");
  if (MiscOverride)
    Misc = *MiscOverride;
  W.patch16(At + 4, Misc);
  W.patch16(At + 6, (uint16_t)Size);
  return !A.diag().failed();
}

/// Resolves `attr=N` (default 0).
const AttrDesc *pickAttr(ArgReader &A, const Description &Desc, unsigned &Idx) {
  uint64_t I = A.u64("attr", 0);
  if (A.diag().failed())
    return nullptr;
  if (Desc.Attrs.empty()) {
    A.error("no 'attr' line before the first record");
    return nullptr;
  }
  if (I >= Desc.Attrs.size()) {
    A.error("attr=" + std::to_string(I) + " but only " +
            std::to_string(Desc.Attrs.size()) + " attr line(s) exist");
    return nullptr;
  }
  Idx = (unsigned)I;
  return &Desc.Attrs[Idx];
}

/// cpumode= (user, kernel, hv, guest_kernel, guest_user, unknown or a
/// number); by default kernel for addresses in the upper half, else user.
uint16_t cpumode(ArgReader &A, uint64_t Addr) {
  if (!A.has("cpumode"))
    return Addr >= 0xffff800000000000ULL ? PERF_RECORD_MISC_KERNEL
                                         : PERF_RECORD_MISC_USER;
  std::string S = A.str("cpumode");
  static const char *const Names[] = {"unknown", "kernel",       "user",
                                      "hv",      "guest_kernel", "guest_user"};
  for (unsigned I = 0; I < 6; ++I)
    if (S == Names[I])
      return (uint16_t)I;
  uint64_t V = 0;
  std::string Why;
  if (!parseNumber(S, A.labels(), V, Why) || V > 7) {
    A.error("cpumode: expected user, kernel, hv, guest_kernel, guest_user, "
            "unknown or 0..7, found '" +
            S + "'");
    return 0;
  }
  return (uint16_t)V;
}

/// The sample_id trailer of kernel records, from the line's own keys.
void trailer(ArgReader &A, const Description &Desc, unsigned AttrIdx,
             ByteWriter &W) {
  const AttrDesc &At = Desc.Attrs[AttrIdx];
  if (!At.SampleIdAll)
    return;
  uint64_t T = At.SampleType;
  // Read id= only when the trailer holds it, so a stray id= is reported.
  uint64_t Id = (T & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
                    ? A.u64("id", defaultId(Desc, AttrIdx))
                    : 0;
  if (T & PERF_SAMPLE_TID) {
    W.u32((uint32_t)A.uN("pid", 32));
    W.u32((uint32_t)A.uN("tid", 32));
  }
  if (T & PERF_SAMPLE_TIME)
    W.u64(A.u64("time"));
  if (T & PERF_SAMPLE_ID)
    W.u64(Id);
  if (T & PERF_SAMPLE_STREAM_ID)
    W.u64(A.u64("stream_id"));
  if (T & PERF_SAMPLE_CPU) {
    W.u32((uint32_t)A.uN("cpu", 32));
    W.u32(0);
  }
  if (T & PERF_SAMPLE_IDENTIFIER)
    W.u64(Id);
}

namespace {

/// prot= as `r-x` style or a number.
uint32_t protValue(ArgReader &A) {
  if (!A.has("prot"))
    return 5; // PROT_READ | PROT_EXEC
  std::string S = A.str("prot");
  if (S.size() == 3 && (S[0] == 'r' || S[0] == '-') &&
      (S[1] == 'w' || S[1] == '-') && (S[2] == 'x' || S[2] == '-'))
    return (S[0] == 'r' ? 1 : 0) | (S[1] == 'w' ? 2 : 0) |
           (S[2] == 'x' ? 4 : 0);
  return (uint32_t)A.uN("prot", 32);
}

/// flags= as `p` (MAP_PRIVATE), `s` (MAP_SHARED) or a number.
uint32_t mapFlags(ArgReader &A) {
  if (!A.has("flags"))
    return 2; // MAP_PRIVATE
  std::string S = A.str("flags");
  if (S == "p")
    return 2;
  if (S == "s")
    return 1;
  return (uint32_t)A.uN("flags", 32);
}

} // namespace

bool encodeOther(ArgReader &A, const Description &Desc,
                 const std::optional<uint16_t> &MiscOv,
                 std::vector<uint8_t> &Out) {
  const std::string &K = A.directive().Keyword;
  ByteWriter W;
  uint16_t Misc = 0;
  size_t Hdr = 0;

  // User records carry no attr and no trailer.
  if (K == "finished_round" || K == "finished_init") {
    Hdr = beginRecord(W, K == "finished_round" ? PERF_RECORD_FINISHED_ROUND
                                               : PERF_RECORD_FINISHED_INIT);
  } else if (K == "raw_record") {
    Hdr = beginRecord(W, (uint32_t)A.uN("type", 32));
    W.bytes(A.bytes("payload"));
    Misc = MiscOv ? *MiscOv : 0;
    if (A.has("size")) {
      uint64_t Size = A.uN("size", 16);
      if (!A.finish())
        return false;
      W.patch16(Hdr + 4, Misc);
      W.patch16(Hdr + 6, (uint16_t)Size);
      if (W.size() > 0xffff)
        return A.error("raw_record payload too long");
      Out = std::move(W.Buf);
      return true;
    }
  } else if (K == "auxtrace") {
    // header.size covers only the fixed part; the payload follows it.
    std::vector<uint8_t> Data = A.bytes("data");
    uint64_t Size = A.u64("size", Data.size());
    if (Data.size() > Size)
      return A.error("auxtrace: data= is longer than size=");
    if (Size > (1ULL << 30))
      return A.error("auxtrace: size= too large");
    Data.resize(Size, 0);
    Hdr = beginRecord(W, PERF_RECORD_AUXTRACE);
    W.u64(Size);
    W.u64(A.u64("offset"));
    W.u64(A.u64("reference"));
    W.u32((uint32_t)A.uN("idx", 32));
    W.u32((uint32_t)A.uN("tid", 32));
    W.u32((uint32_t)A.uN("cpu", 32));
    W.u32(0);
    if (!A.finish() || !endRecord(A, W, Hdr, 0, MiscOv))
      return false;
    W.bytes(Data);
    Out = std::move(W.Buf);
    return true;
  } else if (K == "auxtrace_info") {
    Hdr = beginRecord(W, PERF_RECORD_AUXTRACE_INFO);
    W.u32((uint32_t)A.uN("type", 32));
    W.u32(0);
    for (uint64_t V : A.list("priv"))
      W.u64(V);
  } else {
    // Kernel records: body, then the sample_id trailer.
    unsigned Idx = 0;
    if (!pickAttr(A, Desc, Idx))
      return false;
    if (K == "mmap" || K == "mmap2") {
      bool Two = K == "mmap2";
      Hdr = beginRecord(W, Two ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP);
      uint64_t Addr = A.u64("addr");
      Misc = cpumode(A, Addr);
      if (A.flag("data"))
        Misc |= PERF_RECORD_MISC_MMAP_DATA;
      if (!A.has("file"))
        return A.error("'" + K + "' needs file=");
      W.u32((uint32_t)A.uN("pid", 32));
      W.u32((uint32_t)A.uN("tid", 32));
      W.u64(Addr);
      W.u64(A.u64("len"));
      W.u64(A.u64("pgoff"));
      if (Two) {
        if (A.has("buildid")) {
          for (const char *Key : {"maj", "min", "ino", "ino_generation"})
            if (A.has(Key))
              return A.error(std::string(Key) +
                             "= and buildid= exclude each "
                             "other (they share the same bytes)");
          std::vector<uint8_t> B = A.bytes("buildid");
          if (B.size() > 20)
            return A.error("buildid: at most 20 bytes");
          Misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
          W.u8((uint8_t)B.size());
          W.zeros(3);
          B.resize(20, 0);
          W.bytes(B);
        } else {
          W.u32((uint32_t)A.uN("maj", 32));
          W.u32((uint32_t)A.uN("min", 32));
          W.u64(A.u64("ino"));
          W.u64(A.u64("ino_generation"));
        }
        W.u32(protValue(A));
        W.u32(mapFlags(A));
      }
      W.cstrPadded(A.str("file"), 8);
    } else if (K == "comm") {
      Hdr = beginRecord(W, PERF_RECORD_COMM);
      if (A.flag("exec"))
        Misc |= PERF_RECORD_MISC_COMM_EXEC;
      W.u32((uint32_t)A.uN("pid", 32));
      W.u32((uint32_t)A.uN("tid", 32));
      W.cstrPadded(A.str("name"), 8);
    } else if (K == "fork" || K == "exit") {
      Hdr = beginRecord(W, K == "fork" ? PERF_RECORD_FORK : PERF_RECORD_EXIT);
      W.u32((uint32_t)A.uN("pid", 32));
      W.u32((uint32_t)A.uN("ppid", 32));
      W.u32((uint32_t)A.uN("tid", 32));
      W.u32((uint32_t)A.uN("ptid", 32));
      W.u64(A.u64("time"));
    } else if (K == "lost") {
      Hdr = beginRecord(W, PERF_RECORD_LOST);
      W.u64(A.u64("id", defaultId(Desc, Idx)));
      W.u64(A.u64("lost"));
    } else if (K == "lost_samples") {
      Hdr = beginRecord(W, PERF_RECORD_LOST_SAMPLES);
      W.u64(A.u64("lost"));
    } else if (K == "throttle" || K == "unthrottle") {
      Hdr = beginRecord(W, K == "throttle" ? PERF_RECORD_THROTTLE
                                           : PERF_RECORD_UNTHROTTLE);
      W.u64(A.u64("time"));
      W.u64(A.u64("id", defaultId(Desc, Idx)));
      W.u64(A.u64("stream_id"));
    } else if (K == "aux") {
      Hdr = beginRecord(W, PERF_RECORD_AUX);
      static const char *const AuxFlags[] = {"TRUNCATED", "OVERWRITE",
                                             "PARTIAL", "COLLISION"};
      W.u64(A.u64("aux_offset"));
      W.u64(A.u64("aux_size"));
      W.u64(A.bits("flags", AuxFlags, 4));
    } else if (K == "itrace_start") {
      Hdr = beginRecord(W, PERF_RECORD_ITRACE_START);
      W.u32((uint32_t)A.uN("pid", 32));
      W.u32((uint32_t)A.uN("tid", 32));
    } else if (K == "switch") {
      bool Wide = A.flag("cpu_wide");
      Hdr = beginRecord(W, Wide ? PERF_RECORD_SWITCH_CPU_WIDE
                                : PERF_RECORD_SWITCH);
      if (A.flag("out"))
        Misc |= PERF_RECORD_MISC_SWITCH_OUT;
      if (A.flag("preempt"))
        Misc |= PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
      if (Wide) {
        W.u32((uint32_t)A.uN("next_prev_pid", 32));
        W.u32((uint32_t)A.uN("next_prev_tid", 32));
      } else if (A.has("next_prev_pid") || A.has("next_prev_tid")) {
        return A.error("next_prev_pid/tid need cpu_wide=1");
      }
    } else {
      return A.error("unknown directive '" + K + "'");
    }
    trailer(A, Desc, Idx, W);
  }
  if (A.diag().failed() || !A.finish())
    return false;
  if (!endRecord(A, W, Hdr, Misc, MiscOv))
    return false;
  Out = std::move(W.Buf);
  return true;
}

} // namespace rec

uint64_t defaultId(const Description &Desc, unsigned Idx) {
  if (Idx < Desc.Attrs.size() && !Desc.Attrs[Idx].Ids.empty())
    return Desc.Attrs[Idx].Ids[0];
  return 0;
}

bool isRecordKeyword(const std::string &K) {
  static const char *const Names[] = {
      "sample",        "mmap",         "mmap2",  "comm",
      "fork",          "exit",         "lost",   "lost_samples",
      "throttle",      "unthrottle",   "aux",    "auxtrace",
      "auxtrace_info", "itrace_start", "switch", "finished_round",
      "finished_init", "raw_record"};
  for (const char *N : Names)
    if (K == N)
      return true;
  return false;
}

bool encodeRecord(ArgReader &A, const Description &Desc,
                  std::vector<uint8_t> &Out) {
  std::optional<uint16_t> MiscOv;
  if (A.has("misc"))
    MiscOv = (uint16_t)A.uN("misc", 16);
  if (A.directive().Keyword == "sample")
    return rec::encodeSample(A, Desc, MiscOv, Out);
  return rec::encodeOther(A, Desc, MiscOv, Out);
}

} // namespace t2p
} // namespace lbr2prof