//===- SampleRecord.cpp - encode PERF_RECORD_SAMPLE -----------------------===//
//
// The `sample` directive: every PERF_SAMPLE_* field in the kernel's order,
// written only when the attr selects it, plus the brstack token parser
// (perf script's own FROM/TO/EV/TX/AB/CYCLES/TYPE form) that builds the
// perf_branch_entry flags word bit by bit.
//
//===----------------------------------------------------------------------===//
#include "RecordCommon.h"
#include "Records.h"

#include "lbr2prof/PerfData/PerfABI.h"

namespace lbr2prof {
namespace t2p {
namespace rec {

using namespace perfabi;

namespace {

/// Names of the PERF_SAMPLE_* bits that carry a sample key, for messages.
struct SampleKey {
  const char *Key;
  uint64_t Bit;
  const char *BitName;
};

// Keys a `sample` line may carry and the sample_type bit that writes them.
// `id=` is written by ID or IDENTIFIER and is handled separately.
const SampleKey SampleKeys[] = {
    {"ip", PERF_SAMPLE_IP, "IP"},
    {"pid", PERF_SAMPLE_TID, "TID"},
    {"tid", PERF_SAMPLE_TID, "TID"},
    {"time", PERF_SAMPLE_TIME, "TIME"},
    {"addr", PERF_SAMPLE_ADDR, "ADDR"},
    {"stream_id", PERF_SAMPLE_STREAM_ID, "STREAM_ID"},
    {"cpu", PERF_SAMPLE_CPU, "CPU"},
    {"period", PERF_SAMPLE_PERIOD, "PERIOD"},
    {"read", PERF_SAMPLE_READ, "READ"},
    {"callchain", PERF_SAMPLE_CALLCHAIN, "CALLCHAIN"},
    {"raw", PERF_SAMPLE_RAW, "RAW"},
    {"brstack", PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK"},
    {"lbr", PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK"},
    {"hw_idx", PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK"},
    {"brcntr", PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK"},
    {"regs_user", PERF_SAMPLE_REGS_USER, "REGS_USER"},
    {"stack_user", PERF_SAMPLE_STACK_USER, "STACK_USER"},
    {"stack_dyn_size", PERF_SAMPLE_STACK_USER, "STACK_USER"},
    {"weight", PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT,
     "WEIGHT or WEIGHT_STRUCT"},
    {"weight_var1", PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT"},
    {"weight_var2", PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT"},
    {"weight_var3", PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT"},
    {"data_src", PERF_SAMPLE_DATA_SRC, "DATA_SRC"},
    {"transaction", PERF_SAMPLE_TRANSACTION, "TRANSACTION"},
    {"regs_intr", PERF_SAMPLE_REGS_INTR, "REGS_INTR"},
    {"phys_addr", PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR"},
    {"cgroup", PERF_SAMPLE_CGROUP, "CGROUP"},
    {"data_page_size", PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE"},
    {"code_page_size", PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE"},
    {"aux", PERF_SAMPLE_AUX, "AUX"},
    {"id", PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER, "ID or IDENTIFIER"},
};

// perf's branch type names (util/branch.c), index = PERF_BR_* value.
const char *const BranchTypeNames[] = {
    "UNKNOWN", "COND",    "UNCOND", "IND",       "CALL",     "IND_CALL",
    "RET",     "SYSCALL", "SYSRET", "COND_CALL", "COND_RET", "ERET",
    "IRQ",     "SERROR",  "NO_TX",  "EXTEND_ABI"};
// perf's names for new_type (type == EXTEND_ABI), generic spelling first,
// then the arm64 aliases perf prints on arm64.
const char *const BranchNewTypeNames[] = {
    "FAULT_ALGN", "FAULT_DATA", "FAULT_INST", "ARCH_1",
    "ARCH_2",     "ARCH_3",     "ARCH_4",     "ARCH_5"};
const char *const BranchNewTypeArm64[] = {
    nullptr,      nullptr,      nullptr,      "FIQ",
    "DEBUG_HALT", "DEBUG_EXIT", "DEBUG_INST", "DEBUG_DATA"};
const char *const BranchSpecNames[] = {
    "SPEC_NA", "SPEC_WRONG_PATH", "NON_SPEC_CORRECT_PATH", "SPEC_CORRECT_PATH"};
const char *const BranchPrivNames[] = {"PRIV_UNKNOWN", "PRIV_USER",
                                       "PRIV_KERNEL", "PRIV_HV"};

unsigned popcount(uint64_t V) {
  unsigned N = 0;
  for (; V; V &= V - 1)
    ++N;
  return N;
}

/// Parses one brstack token:
///   FROM/TO[/EV/TX/AB/CYCLES[/EXTRA...]]
/// EV is `-`, `M`, `P` (or `MP`), TX is `X` or `-`, AB is `A` or `-`,
/// CYCLES is 0..65535, and each EXTRA is `-`, a branch type name, a
/// speculation name or a PRIV_* name.
bool parseBranch(const std::string &Tok, const LabelMap &Labels, uint64_t &From,
                 uint64_t &To, uint64_t &Flags, std::string &Why) {
  std::vector<std::string> P;
  size_t Start = 0;
  while (true) {
    size_t S = Tok.find('/', Start);
    P.push_back(Tok.substr(Start, S - Start));
    if (S == std::string::npos)
      break;
    Start = S + 1;
  }
  if (P.size() < 2 || (P.size() > 2 && P.size() < 6)) {
    Why = "branch '" + Tok +
          "': expected FROM/TO or "
          "FROM/TO/{M|P|-}/{X|-}/{A|-}/CYCLES[/TYPE...]";
    return false;
  }
  if (!parseNumber(P[0], Labels, From, Why) ||
      !parseNumber(P[1], Labels, To, Why)) {
    Why = "branch '" + Tok + "': " + Why;
    return false;
  }
  Flags = 0;
  if (P.size() == 2)
    return true;
  using namespace branchbits;
  const std::string &Ev = P[2];
  if (Ev != "-") {
    for (char C : Ev) {
      if (C == 'M')
        Flags |= 1ULL << MispredShift;
      else if (C == 'P')
        Flags |= 1ULL << PredictedShift;
      else {
        Why = "branch '" + Tok + "': prediction field must be M, P or -";
        return false;
      }
    }
  }
  if (P[3] == "X")
    Flags |= 1ULL << InTxShift;
  else if (P[3] != "-") {
    Why = "branch '" + Tok + "': transaction field must be X or -";
    return false;
  }
  if (P[4] == "A")
    Flags |= 1ULL << AbortShift;
  else if (P[4] != "-") {
    Why = "branch '" + Tok + "': abort field must be A or -";
    return false;
  }
  uint64_t Cyc = 0;
  std::string W2;
  if (!parseNumber(P[5], {}, Cyc, W2) || Cyc > 0xffff) {
    Why = "branch '" + Tok + "': cycles must be 0..65535";
    return false;
  }
  Flags |= Cyc << CyclesShift;
  for (size_t I = 6; I < P.size(); ++I) {
    const std::string U = upper(P[I]);
    if (U == "-" || U.empty())
      continue;
    bool Found = false;
    for (unsigned T = 0; T < 16 && !Found; ++T)
      if (U == BranchTypeNames[T]) {
        Flags = (Flags & ~(0xfULL << TypeShift)) | ((uint64_t)T << TypeShift);
        Found = true;
      }
    for (unsigned T = 0; T < 8 && !Found; ++T)
      if (U == BranchNewTypeNames[T] ||
          (BranchNewTypeArm64[T] && U == BranchNewTypeArm64[T])) {
        Flags &= ~((0xfULL << TypeShift) | (0xfULL << NewTypeShift));
        Flags |= (uint64_t)PERF_BR_EXTEND_ABI << TypeShift;
        Flags |= (uint64_t)T << NewTypeShift;
        Found = true;
      }
    for (unsigned S = 0; S < 4 && !Found; ++S)
      if (U == BranchSpecNames[S]) {
        Flags = (Flags & ~(3ULL << SpecShift)) | ((uint64_t)S << SpecShift);
        Found = true;
      }
    for (unsigned S = 0; S < 4 && !Found; ++S)
      if (U == BranchPrivNames[S]) {
        Flags = (Flags & ~(7ULL << PrivShift)) | ((uint64_t)S << PrivShift);
        Found = true;
      }
    if (!Found) {
      Why = "branch '" + Tok +
            "': unknown branch type, speculation or "
            "privilege '" +
            P[I] + "'";
      return false;
    }
  }
  return true;
}

/// `regs_user=ABI:v1,v2,...` / `regs_intr=...`: abi word then one value per
/// bit of \p Mask (none when the abi is `none`).
void regs(ArgReader &A, const char *Key, uint64_t Mask, ByteWriter &W) {
  if (!A.has(Key)) {
    W.u64(PERF_SAMPLE_REGS_ABI_NONE);
    return;
  }
  std::string S = A.str(Key);
  size_t Colon = S.find(':');
  std::string AbiS = S.substr(0, Colon);
  uint64_t Abi;
  if (AbiS == "none")
    Abi = PERF_SAMPLE_REGS_ABI_NONE;
  else if (AbiS == "32")
    Abi = PERF_SAMPLE_REGS_ABI_32;
  else if (AbiS == "64")
    Abi = PERF_SAMPLE_REGS_ABI_64;
  else {
    A.error(std::string(Key) +
            ": expected ABI:v1,v2,... with ABI none, 32 "
            "or 64, found '" +
            S + "'");
    return;
  }
  W.u64(Abi);
  std::vector<uint64_t> Vals;
  if (Colon != std::string::npos) {
    for (const std::string &P : splitAny(S.substr(Colon + 1), ",")) {
      uint64_t V = 0;
      std::string Why;
      if (!parseNumber(P, A.labels(), V, Why)) {
        A.error(std::string(Key) + ": " + Why);
        return;
      }
      Vals.push_back(V);
    }
  }
  unsigned Want = Abi == PERF_SAMPLE_REGS_ABI_NONE ? 0 : popcount(Mask);
  if (Vals.size() != Want) {
    A.error(std::string(Key) + ": " + std::to_string(Vals.size()) +
            " value(s) given, the attr's register mask selects " +
            std::to_string(Want));
    return;
  }
  for (uint64_t V : Vals)
    W.u64(V);
}

uint64_t contextMarker(const std::string &S, bool &Ok) {
  Ok = true;
  if (S == "hv")
    return PERF_CONTEXT_HV;
  if (S == "kernel")
    return PERF_CONTEXT_KERNEL;
  if (S == "user")
    return PERF_CONTEXT_USER;
  if (S == "guest")
    return PERF_CONTEXT_GUEST;
  if (S == "guest_kernel")
    return PERF_CONTEXT_GUEST_KERNEL;
  if (S == "guest_user")
    return PERF_CONTEXT_GUEST_USER;
  Ok = false;
  return 0;
}

} // namespace

bool encodeSample(ArgReader &A, const Description &Desc,
                  const std::optional<uint16_t> &MiscOv,
                  std::vector<uint8_t> &Out) {
  unsigned Idx = 0;
  const AttrDesc *At = pickAttr(A, Desc, Idx);
  if (!At)
    return false;
  uint64_t T = At->SampleType;
  for (const SampleKey &K : SampleKeys)
    if (A.has(K.Key) && !(T & K.Bit))
      return A.error("'" + std::string(K.Key) + "=' needs " + K.BitName +
                     " in the sample_type of attr " + std::to_string(Idx));
  if (A.has("brstack") && A.has("lbr"))
    return A.error("give either brstack= or lbr=, not both");
  if (A.has("hw_idx") && !(At->BranchSampleType & PERF_SAMPLE_BRANCH_HW_INDEX))
    return A.error("'hw_idx=' needs HW_INDEX in the attr's "
                   "branch_sample_type");
  if (A.has("brcntr") && !(At->BranchSampleType & PERF_SAMPLE_BRANCH_COUNTERS))
    return A.error("'brcntr=' needs COUNTERS in the attr's "
                   "branch_sample_type");

  ByteWriter W;
  size_t Hdr = beginRecord(W, PERF_RECORD_SAMPLE);
  uint64_t Ip = A.u64("ip");
  uint16_t Misc = cpumode(A, Ip);
  if (A.flag("exact_ip"))
    Misc |= PERF_RECORD_MISC_EXACT_IP;
  uint64_t Id = A.u64("id", defaultId(Desc, Idx));
  if (Desc.Validate && Desc.Attrs.size() > 1 &&
      (T & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))) {
    bool Known = false;
    for (uint64_t V : At->Ids)
      Known |= V == Id;
    if (!Known)
      return A.error("id=" + std::to_string(Id) + " is not an id of attr " +
                     std::to_string(Idx) +
                     " (perf would not find the "
                     "event; 'header validate=0' to write it anyway)");
  }

  if (T & PERF_SAMPLE_IDENTIFIER)
    W.u64(Id);
  if (T & PERF_SAMPLE_IP)
    W.u64(Ip);
  if (T & PERF_SAMPLE_TID) {
    W.u32((uint32_t)A.uN("pid", 32));
    W.u32((uint32_t)A.uN("tid", 32));
  }
  if (T & PERF_SAMPLE_TIME)
    W.u64(A.u64("time"));
  if (T & PERF_SAMPLE_ADDR)
    W.u64(A.u64("addr"));
  if (T & PERF_SAMPLE_ID)
    W.u64(Id);
  if (T & PERF_SAMPLE_STREAM_ID)
    W.u64(A.u64("stream_id"));
  if (T & PERF_SAMPLE_CPU) {
    W.u32((uint32_t)A.uN("cpu", 32));
    W.u32(0);
  }
  if (T & PERF_SAMPLE_PERIOD)
    W.u64(A.u64("period", 1));
  if (T & PERF_SAMPLE_READ) {
    // Written verbatim; the count must match read_format.
    std::vector<uint64_t> R = A.list("read");
    uint64_t F = At->ReadFormat;
    unsigned Common = !!(F & PERF_FORMAT_TOTAL_TIME_ENABLED) +
                      !!(F & PERF_FORMAT_TOTAL_TIME_RUNNING);
    unsigned PerValue = 1 + !!(F & PERF_FORMAT_ID) + !!(F & PERF_FORMAT_LOST);
    size_t Want;
    if (F & PERF_FORMAT_GROUP)
      Want = R.empty() ? 1 + Common : 1 + Common + R[0] * PerValue;
    else
      Want = Common + PerValue;
    if (!A.has("read"))
      R.assign(Want, 0);
    if (F & PERF_FORMAT_GROUP && R.empty())
      R.assign(Want, 0);
    if (R.size() != Want)
      return A.error("read: " + std::to_string(R.size()) +
                     " value(s) given, read_format needs " +
                     std::to_string(Want) +
                     " (group: nr, [enabled], [running], then nr x {value, "
                     "[id], [lost]}; else value, [enabled], [running], [id], "
                     "[lost])");
    for (uint64_t V : R)
      W.u64(V);
  }
  if (T & PERF_SAMPLE_CALLCHAIN) {
    std::vector<uint64_t> Ips;
    for (const std::string &P : splitAny(A.str("callchain"), ", ")) {
      bool Ok;
      uint64_t V = contextMarker(P, Ok);
      std::string Why;
      if (!Ok && !parseNumber(P, A.labels(), V, Why))
        return A.error("callchain: " + Why);
      Ips.push_back(V);
    }
    W.u64(Ips.size());
    for (uint64_t V : Ips)
      W.u64(V);
  }
  if (T & PERF_SAMPLE_RAW) {
    // The kernel pads raw data so that u32 size + data ends 8-aligned, and
    // writes a u32 zero when there is none.
    std::vector<uint8_t> Raw = A.bytes("raw");
    if (!A.has("raw"))
      Raw.assign(4, 0);
    while ((Raw.size() + 4) % 8)
      Raw.push_back(0);
    W.u32((uint32_t)Raw.size());
    W.bytes(Raw);
  }
  if (T & PERF_SAMPLE_BRANCH_STACK) {
    std::vector<uint64_t> Ent; // from, to, flags triples
    if (A.has("brstack")) {
      for (const std::string &Tok : splitAny(A.str("brstack"), " \t")) {
        uint64_t F, To, Fl;
        std::string Why;
        if (!parseBranch(Tok, A.labels(), F, To, Fl, Why))
          return A.error("brstack: " + Why);
        Ent.insert(Ent.end(), {F, To, Fl});
      }
    } else if (A.has("lbr")) {
      for (const std::string &Tok : splitAny(A.str("lbr"), " \t")) {
        size_t Arrow = Tok.find("->");
        uint64_t F = 0, To = 0;
        std::string Why;
        if (Arrow == std::string::npos ||
            !parseNumber(Tok.substr(0, Arrow), A.labels(), F, Why) ||
            !parseNumber(Tok.substr(Arrow + 2), A.labels(), To, Why))
          return A.error("lbr: expected FROM->TO, found '" + Tok + "'" +
                         (Why.empty() ? "" : " (" + Why + ")"));
        Ent.insert(Ent.end(), {F, To, 0});
      }
    }
    size_t Nr = Ent.size() / 3;
    W.u64(Nr);
    if (At->BranchSampleType & PERF_SAMPLE_BRANCH_HW_INDEX)
      W.u64(A.u64("hw_idx", 0));
    for (uint64_t V : Ent)
      W.u64(V);
    if (At->BranchSampleType & PERF_SAMPLE_BRANCH_COUNTERS) {
      std::vector<uint64_t> C = A.list("brcntr");
      if (!A.has("brcntr"))
        C.assign(Nr, 0);
      if (C.size() != Nr)
        return A.error("brcntr: " + std::to_string(C.size()) +
                       " counter(s) for " + std::to_string(Nr) +
                       " branch entries");
      for (uint64_t V : C)
        W.u64(V);
    }
  }
  if (T & PERF_SAMPLE_REGS_USER)
    regs(A, "regs_user", At->RegsUser, W);
  if (T & PERF_SAMPLE_STACK_USER) {
    if (!A.has("stack_user")) {
      if (A.has("stack_dyn_size"))
        return A.error("stack_dyn_size= needs stack_user=");
      W.u64(0);
    } else {
      std::vector<uint8_t> S = A.bytes("stack_user");
      uint64_t Size = At->StackUser ? At->StackUser : (S.size() + 7) / 8 * 8;
      if (S.size() > Size)
        return A.error("stack_user: " + std::to_string(S.size()) +
                       " bytes exceed the attr's sample_stack_user=" +
                       std::to_string(Size));
      uint64_t Dyn = A.u64("stack_dyn_size", S.size());
      if (Dyn > Size)
        return A.error("stack_dyn_size exceeds the dumped size " +
                       std::to_string(Size) + " (perf rejects it)");
      S.resize(Size, 0);
      W.u64(Size);
      W.bytes(S);
      W.u64(Dyn);
    }
  }
  if (T & PERF_SAMPLE_WEIGHT)
    W.u64(A.u64("weight"));
  else if (T & PERF_SAMPLE_WEIGHT_STRUCT) {
    if (A.has("weight") &&
        (A.has("weight_var1") || A.has("weight_var2") || A.has("weight_var3")))
      return A.error("give weight= (the whole u64) or weight_var1/2/3=, not "
                     "both");
    uint64_t V = A.u64("weight");
    V |= A.uN("weight_var1", 32);
    V |= A.uN("weight_var2", 16) << 32;
    V |= A.uN("weight_var3", 16) << 48;
    W.u64(V);
  }
  if (T & PERF_SAMPLE_DATA_SRC)
    W.u64(A.u64("data_src"));
  if (T & PERF_SAMPLE_TRANSACTION)
    W.u64(A.u64("transaction"));
  if (T & PERF_SAMPLE_REGS_INTR)
    regs(A, "regs_intr", At->RegsIntr, W);
  if (T & PERF_SAMPLE_PHYS_ADDR)
    W.u64(A.u64("phys_addr"));
  if (T & PERF_SAMPLE_CGROUP)
    W.u64(A.u64("cgroup"));
  if (T & PERF_SAMPLE_DATA_PAGE_SIZE)
    W.u64(A.u64("data_page_size"));
  if (T & PERF_SAMPLE_CODE_PAGE_SIZE)
    W.u64(A.u64("code_page_size"));
  if (T & PERF_SAMPLE_AUX) {
    std::vector<uint8_t> Aux = A.bytes("aux");
    while (Aux.size() % 8)
      Aux.push_back(0);
    W.u64(Aux.size());
    W.bytes(Aux);
  }
  if (A.diag().failed() || !A.finish())
    return false;
  if (!endRecord(A, W, Hdr, Misc, MiscOv))
    return false;
  Out = std::move(W.Buf);
  return true;
}

} // namespace rec
} // namespace t2p
} // namespace lbr2prof
