//===- ScriptReader.cpp - `perf script` text as an event source -----------===//
//
// Reads the text that llvm-profgen and perf2bolt consume and turns it into
// the same events the perf.data reader yields. The dialects, each with a
// sample line above the code that reads it (docs/formats.md has them all):
//   perf script -F ip,brstack --show-mmap-events        (llvm-profgen)
//   perf script -F pid,ip,brstack --show-mmap-events    (perf2bolt)
//   perf script -F event,ip,brstack                     (event name first)
//   perf record -b -g, then perf script -F ip,brstack   (hybrid: call stack
//                                                        lines, then the LBR)
//   llvm-profgen's pre-aggregated text: a count line, then a sample
// and the side-band lines perf prints with --show-mmap-events and
// --show-task-events:
//
//   [PID] PERF_RECORD_MMAP2 1234/1234: [0x400000(0x1000) @ 0 08:01 99 0]: r-xp /bin/app
//   [PID] PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1276508) @ 0xffffffff81000000]: x [kernel.kallsyms]_text
//   [PID] PERF_RECORD_COMM[ exec]: app:1234/1234
//   [PID] PERF_RECORD_FORK(1235:1235):(1234:1234)
//   [PID] PERF_RECORD_EXIT(1235:1235):(1234:1234)
//
// Comment lines (`#`, `//`, `;`, as llvm-profgen's test inputs have) are
// skipped. Samples without a pid belong to the process of the last MMAP
// line (llvm-profgen ignores pids: one process is all it knows); when no
// line maps the profiled binary, the driver's AssumedMapping places it at
// its preferred address, as llvm-profgen does.
//
// The text is read in chunks and split into lines in place; branch entries
// are built into one reused array, so a sample allocates nothing.
//
//===----------------------------------------------------------------------===//
#include "ByteSource.h"
#include "lbr2prof/PerfData/PerfReader.h"
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Support/Path.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace lbr2prof::perfabi;

namespace lbr2prof {
namespace {

/// The largest count a pre-aggregated line may give: the sample is
/// delivered that many times, so a corrupt count must not run for hours.
constexpr uint64_t MaxAggregatedCount = 10000000;

class ScriptReader : public EventSource {
public:
  explicit ScriptReader(std::unique_ptr<ByteSource> S) : Src(std::move(S)) {
    Info.Attrs.emplace_back();
    Info.Attrs[0].SampleType = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                               PERF_SAMPLE_BRANCH_STACK;
    Info.Attrs[0].Name = "perf script";
  }
  const PerfFileInfo &info() const override { return Info; }
  uint64_t bytesRead() const override { return Consumed; }
  StringRef formatName() const override { return "perf script text"; }
  bool mayLackMappings() const override { return true; }
  void assumeMapping(AssumedMapping M) override {
    Assumed = std::move(M);
    HasAssumed = !Assumed.Segments.empty();
  }
  Error run(PerfEventHandler &H) override;

private:
  Error line(StringRef Raw, PerfEventHandler &H);
  Error sideBand(StringRef L, ArrayRef<StringRef> Tok, size_t I,
                 int64_t SamplePid, PerfEventHandler &H);
  Error mmapLine(StringRef Rest, bool Is2, int64_t SamplePid,
                 PerfEventHandler &H);
  Error sampleLine(ArrayRef<StringRef> Tok, size_t FirstBranch,
                   PerfEventHandler &H);
  /// Ends the call stack read so far: as one sample with that stack and no
  /// branches (AsStack: a blank line closed it, as perf prints a stack
  /// sample), or as one IP-only sample per line (`perf script -F ip`).
  Error flushFrames(PerfEventHandler &H, bool AsStack);
  /// Makes the call stack read so far S's call chain (PERF_CONTEXT_USER,
  /// then the frames), its innermost frame S's IP.
  void takeFrames(Sample &S);
  /// Delivers S (Count times for a pre-aggregated sample), first mapping
  /// the profiled binary if nothing has.
  Error deliver(Sample &S, PerfEventHandler &H);
  Error assumeIn(uint32_t Pid, PerfEventHandler &H);
  Error err(const Twine &Msg) const {
    InputLocation Loc;
    Loc.File = Src->name();
    Loc.Line = LineNo;
    // Nothing read so far: the file may well not be perf script output at
    // all, so say how it came to be read as such.
    if (!LinesRead)
      return inputError(Loc, Msg + " (the file has no perf.data magic, so it "
                                   "was read as `perf script` text)");
    return inputError(Loc, Msg);
  }
  bool parseBranch(StringRef Tok, BranchEntry &B) const;

  std::unique_ptr<ByteSource> Src;
  PerfFileInfo Info;
  uint64_t Consumed = 0;
  uint64_t LineNo = 0;
  /// Lines read without error.
  uint64_t LinesRead = 0;
  uint64_t RecordNo = 0;
  std::vector<BranchEntry> Branches;
  /// The call stack lines read so far (innermost first); the call chain handed out with a sample (PERF_CONTEXT_USER,
  /// then the frames).
  std::vector<uint64_t> Frames;
  std::vector<ulittle64> Chain;
  /// Count from a pre-aggregated count line, for the next sample (0: none).
  uint64_t PendingCount = 0;
  uint64_t PendingCountLine = 0;
  /// The first line skipped as prose, and the error it makes if the text
  /// holds nothing else.
  uint64_t FirstSkippedLine = 0;
  std::string FirstSkippedWhy;
  /// The process pid-less samples belong to: that of the last MMAP line.
  uint32_t TextPid = 0;
  AssumedMapping Assumed;
  bool HasAssumed = false;
  /// A line mapped a file named as the assumed binary: nothing is assumed.
  bool BinaryMapped = false;
  /// Processes the assumed mapping was given to.
  DenseSet<uint32_t> AssumedPids;
};

bool parseHex(StringRef S, uint64_t &V) {
  S.consume_front("0x") || S.consume_front("0X");
  return !S.empty() && !S.getAsInteger(16, V);
}

void setFlags(BranchEntry &B, uint64_t F) { B.Flags = F; }

bool ScriptReader::parseBranch(StringRef Tok, BranchEntry &B) const {
  SmallVector<StringRef, 8> Parts;
  Tok.split(Parts, '/');
  uint64_t From, To;
  if (Parts.size() < 2 || !parseHex(Parts[0], From) || !parseHex(Parts[1], To))
    return false;
  B.From = From;
  B.To = To;
  uint64_t F = 0;
  using namespace branchbits;
  if (Parts.size() > 2) {
    if (Parts[2] == "M")
      F |= 1ULL << MispredShift;
    else if (Parts[2] == "P")
      F |= 1ULL << PredictedShift;
    else if (Parts[2] != "-")
      return false;
  }
  if (Parts.size() > 3) {
    if (Parts[3] == "X")
      F |= 1ULL << InTxShift;
    else if (Parts[3] != "-")
      return false;
  }
  if (Parts.size() > 4) {
    if (Parts[4] == "A")
      F |= 1ULL << AbortShift;
    else if (Parts[4] != "-")
      return false;
  }
  if (Parts.size() > 5) {
    unsigned Cycles;
    if (Parts[5].getAsInteger(10, Cycles) || Cycles > 0xffff)
      return false;
    F |= uint64_t(Cycles) << CyclesShift;
  }
  if (Parts.size() > 6 && !Parts[6].empty() && Parts[6] != "-") {
    unsigned T = 0;
    for (; T < 16; ++T)
      if (branchTypeName(T) == Parts[6])
        break;
    if (T < 16)
      F |= uint64_t(T) << TypeShift;
  }
  setFlags(B, F);
  return true;
}

// [0x400000(0x1000) @ 0 08:01 99 0]: r-xp /bin/app      (MMAP2)
// [0x400000(0x1000) @ 0x1000 <BUILDID>]: r-xp /bin/app  (MMAP2 + build-id)
// [0xffffffff81000000(0x1276508) @ 0xffffffff81000000]: x [kernel.kallsyms]_text
Error ScriptReader::mmapLine(StringRef Rest, bool Is2, int64_t SamplePid,
                             PerfEventHandler &H) {
  MmapEvent E;
  E.IsMmap2 = Is2;
  Rest = Rest.ltrim();
  StringRef Ids = Rest.take_until([](char C) { return C == ':'; });
  Rest = Rest.drop_front(Ids.size());
  StringRef P, T;
  std::tie(P, T) = Ids.split('/');
  int64_t Pid, Tid;
  if (P.trim().getAsInteger(10, Pid) || T.trim().getAsInteger(10, Tid))
    return err("expected PID/TID after PERF_RECORD_MMAP");
  E.Pid = uint32_t(Pid);
  E.Tid = uint32_t(Tid);
  size_t Open = Rest.find('['), Close = Rest.find("]:");
  if (Open == StringRef::npos || Close == StringRef::npos || Close < Open)
    return err("expected [ADDR(LEN) @ PGOFF ...]: in mmap line");
  StringRef In = Rest.slice(Open + 1, Close);
  StringRef After = Rest.drop_front(Close + 2).ltrim();
  SmallVector<StringRef, 8> F;
  In.split(F, ' ', -1, false);
  // F[0] = ADDR(LEN), F[1] = "@", F[2] = PGOFF, then maj:min ino gen or
  // <buildid>.
  if (F.size() < 3 || F[1] != "@")
    return err("expected ADDR(LEN) @ PGOFF in mmap line");
  StringRef A, L;
  std::tie(A, L) = F[0].split('(');
  L.consume_back(")");
  uint64_t PgOff;
  if (!parseHex(A, E.Addr) || !parseHex(L, E.Len))
    return err("bad address or length in mmap line");
  if (F[2] == "0")
    PgOff = 0;
  else if (!parseHex(F[2], PgOff))
    return err("bad page offset in mmap line");
  E.PgOff = PgOff;
  StringRef Prot;
  std::tie(Prot, E.Filename) = After.split(' ');
  if (Is2) {
    if (Prot.size() != 4)
      return err("expected protection like r-xp in mmap2 line");
    E.Prot = (Prot[0] == 'r' ? 1 : 0) | (Prot[1] == 'w' ? 2 : 0) |
             (Prot[2] == 'x' ? 4 : 0);
    E.Flags = Prot[3] == 's' ? 1 : 2;
    if (F.size() >= 4 && F[3].starts_with("<")) {
      // Build-id form; the hex text is not kept as bytes here.
    } else if (F.size() >= 5) {
      StringRef Maj, Min;
      std::tie(Maj, Min) = F[3].split(':');
      Maj.getAsInteger(16, E.Maj);
      Min.getAsInteger(16, E.Min);
      F[4].getAsInteger(10, E.Ino);
      if (F.size() >= 6)
        F[5].getAsInteger(10, E.InoGeneration);
    }
  } else {
    E.Misc = Prot == "r" ? PERF_RECORD_MISC_MMAP_DATA : 0;
  }
  if (SamplePid >= 0) {
    E.Ident.Has = PERF_SAMPLE_TID;
    E.Ident.Pid = uint32_t(SamplePid);
  }
  // The process samples without a pid belong to (the kernel's -1 is no
  // process), and whether the profiled binary is mapped by some line: a
  // file of the same name, as llvm-profgen matches mappings.
  if (Pid >= 0)
    TextPid = uint32_t(Pid);
  if (HasAssumed && E.isExecutable() &&
      recordedFileName(E.Filename) == sys::path::filename(Assumed.Path))
    BinaryMapped = true;
  RecordInfo R;
  R.Type = Is2 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP;
  R.Index = RecordNo++;
  R.FileOffset = LineNo;
  if (Error Err = H.onRecord(R))
    return Err;
  return H.onMmap(E, R);
}

Error ScriptReader::sideBand(StringRef L, ArrayRef<StringRef> Tok, size_t I,
                             int64_t SamplePid, PerfEventHandler &H) {
  size_t At = L.find(Tok[I]) + Tok[I].size();
  StringRef Rest = L.drop_front(At);
  StringRef Kind = Tok[I];
  if (Kind == "PERF_RECORD_MMAP2")
    return mmapLine(Rest, true, SamplePid, H);
  if (Kind == "PERF_RECORD_MMAP")
    return mmapLine(Rest, false, SamplePid, H);
  RecordInfo R;
  R.Index = RecordNo++;
  R.FileOffset = LineNo;
  if (Kind.starts_with("PERF_RECORD_COMM")) {
    // PERF_RECORD_COMM[ exec]: name:pid/tid
    CommEvent E;
    R.Type = PERF_RECORD_COMM;
    if (Rest.ltrim().starts_with("exec"))
      E.Misc = PERF_RECORD_MISC_COMM_EXEC;
    // "PERF_RECORD_COMM: name:pid/tid" or "PERF_RECORD_COMM exec: ...".
    StringRef Body = Rest;
    if (!Kind.ends_with(":"))
      Body = Rest.drop_until([](char C) { return C == ':'; }).drop_front();
    Body = Body.trim();
    size_t Colon = Body.rfind(':');
    if (Colon == StringRef::npos)
      return err("expected name:pid/tid in COMM line");
    E.Comm = Body.take_front(Colon);
    StringRef P, T;
    std::tie(P, T) = Body.drop_front(Colon + 1).split('/');
    if (P.getAsInteger(10, E.Pid) || T.getAsInteger(10, E.Tid))
      return err("expected name:pid/tid in COMM line");
    if (Error Err = H.onRecord(R))
      return Err;
    return H.onComm(E, R);
  }
  if (Kind.starts_with("PERF_RECORD_FORK") ||
      Kind.starts_with("PERF_RECORD_EXIT")) {
    // PERF_RECORD_FORK(pid:tid):(ppid:ptid)
    TaskEvent E;
    E.IsFork = Kind.starts_with("PERF_RECORD_FORK");
    R.Type = E.IsFork ? PERF_RECORD_FORK : PERF_RECORD_EXIT;
    unsigned V[4];
    StringRef S = L.drop_front(L.find(Kind) + 16);
    if (sscanf(S.str().c_str(), "(%u:%u):(%u:%u)", &V[0], &V[1], &V[2],
               &V[3]) != 4)
      return err("expected (pid:tid):(ppid:ptid) in " + Kind + " line");
    E.Pid = V[0], E.Tid = V[1], E.PPid = V[2], E.PTid = V[3];
    if (Error Err = H.onRecord(R))
      return Err;
    return H.onTask(E, R);
  }
  return Error::success(); // Other side-band lines carry nothing we use.
}

// Before the first sample of a process, while no line has mapped the
// profiled binary: MMAP2 events for its executable segments at their
// preferred addresses, page-aligned as the loader maps them.
Error ScriptReader::assumeIn(uint32_t Pid, PerfEventHandler &H) {
  if (!HasAssumed || BinaryMapped || !AssumedPids.insert(Pid).second)
    return Error::success();
  constexpr uint64_t Page = 0x1000;
  for (const AssumedMapping::Segment &G : Assumed.Segments) {
    MmapEvent E;
    E.IsMmap2 = true;
    E.Pid = E.Tid = Pid;
    E.Addr = G.VAddr & ~(Page - 1);
    E.Len = alignTo(G.VAddr + G.MemSize, Page) - E.Addr;
    E.PgOff = G.Offset & ~(Page - 1);
    E.Prot = 5; // r-x
    E.Flags = 2; // private
    E.Filename = Assumed.Path;
    RecordInfo R;
    R.Type = PERF_RECORD_MMAP2;
    R.Index = RecordNo++;
    R.FileOffset = LineNo;
    if (Error Err = H.onRecord(R))
      return Err;
    if (Error Err = H.onMmap(E, R))
      return Err;
    if (!Info.AssumedLoadAddress)
      Info.AssumedLoadAddress = E.Addr;
  }
  return Error::success();
}

Error ScriptReader::deliver(Sample &S, PerfEventHandler &H) {
  if (!(S.Ident.Has & PERF_SAMPLE_TID))
    S.Ident.Pid = S.Ident.Tid = TextPid;
  if (Error Err = assumeIn(S.Ident.Pid, H))
    return Err;
  uint64_t Count = PendingCount ? PendingCount : 1;
  PendingCount = 0;
  RecordInfo R;
  R.Type = PERF_RECORD_SAMPLE;
  R.FileOffset = LineNo;
  for (uint64_t K = 0; K < Count; ++K) {
    R.Index = RecordNo++;
    if (Error Err = H.onRecord(R))
      return Err;
    if (Error Err = H.onSample(S, R))
      return Err;
  }
  return Error::success();
}

void ScriptReader::takeFrames(Sample &S) {
  Chain.clear();
  Chain.push_back(ulittle64(PERF_CONTEXT_USER));
  for (uint64_t F : Frames)
    Chain.push_back(ulittle64(F));
  Info.Attrs[0].SampleType |= PERF_SAMPLE_CALLCHAIN;
  S.Ip = Frames[0];
  S.Callchain = Chain;
  Frames.clear();
}

Error ScriptReader::flushFrames(PerfEventHandler &H, bool AsStack) {
  if (Frames.empty())
    return Error::success();
  Sample S;
  S.Misc = PERF_RECORD_MISC_USER;
  if (AsStack) {
    takeFrames(S);
    return deliver(S, H);
  }
  // Lines of `perf script -F ip`: one sample each.
  for (uint64_t Ip : Frames) {
    S.Ip = Ip;
    if (Error Err = deliver(S, H))
      return Err;
  }
  Frames.clear();
  return Error::success();
}

//   [PID] IP 0x401136/0x401120/P/-/-/3[/TYPE[/SPEC]] 0x.../...   (newest first)
//   EVENT: IP 0x401310/0x4012f0/P/-/-/22//- ...          (-F event,ip,brstack)
//    0x4005c8/0x4005dc/P/-/-/0  0x40062f/0x4005b0/P/-/-/0 ...   (after a stack)
Error ScriptReader::sampleLine(ArrayRef<StringRef> Tok, size_t FirstBranch,
                               PerfEventHandler &H) {
  Sample S;
  S.Misc = PERF_RECORD_MISC_USER;
  if (FirstBranch == 2) {
    int64_t Pid;
    if (Tok[0].getAsInteger(10, Pid))
      return err("expected a decimal pid, found '" + Tok[0] + "'");
    S.Ident.Has |= PERF_SAMPLE_TID;
    S.Ident.Pid = S.Ident.Tid = uint32_t(Pid);
  } else if (FirstBranch > 2) {
    return err("expected '[pid] ip brstack...' (perf script -F pid,ip,brstack)"
               ", found " + Twine(FirstBranch) + " fields before the branches");
  }
  if (FirstBranch >= 1 && !parseHex(Tok[FirstBranch - 1], S.Ip))
    return err("expected a hex ip, found '" + Tok[FirstBranch - 1] + "'");
  Branches.resize(Tok.size() - FirstBranch);
  for (size_t K = FirstBranch; K < Tok.size(); ++K)
    if (!parseBranch(Tok[K], Branches[K - FirstBranch]))
      return err("malformed branch entry '" + Tok[K] +
                 "', expected FROM/TO/M|P|-/X|-/A|-/CYCLES");
  S.Branches = Branches;
  // A branch stack with no IP of its own ends the call stack above it: a
  // hybrid sample (perf record -b -g), its IP the stack's innermost frame.
  if (FirstBranch == 0 && !Frames.empty()) {
    takeFrames(S);
    return deliver(S, H);
  }
  // Lines before a sample with its own IP were IP-only samples.
  if (Error Err = flushFrames(H, false))
    return Err;
  // A branch stack alone (`-F brstack`, llvm-profgen's coff-profile input):
  // the sample's IP is not printed; it lies in the run that starts at the
  // newest branch's target, which stands for it (the file it is in, and
  // the sample's place in IP counts).
  if (FirstBranch == 0 && !Branches.empty())
    S.Ip = Branches.front().to();
  return deliver(S, H);
}

Error ScriptReader::line(StringRef Raw, PerfEventHandler &H) {
  // llvm-profgen's pre-aggregated text: a count alone on a line, at its
  // very start, then the sample it counts (stack lines are indented, so a
  // frame is never read as a count):
  //   2
  //             4005dc
  //    0x4005c8/0x4005dc 0x40062f/0x4005b0 ...
  Raw = Raw.rtrim('\r');
  if (!Raw.empty() && all_of(Raw, isDigit)) {
    if (Error Err = flushFrames(H, false))
      return Err;
    if (PendingCount)
      return err(formatv("expected a sample after the count on line {0}, "
                         "found another count",
                         PendingCountLine));
    uint64_t N;
    if (Raw.getAsInteger(10, N) || N == 0 || N > MaxAggregatedCount)
      return err(formatv("sample count '{0}' out of range (1 to {1})", Raw,
                         MaxAggregatedCount));
    PendingCount = N;
    PendingCountLine = LineNo;
    return Error::success();
  }
  StringRef L = Raw.trim();
  // A blank line ends a call stack: perf prints one after a stack sample
  // that has no branch stack.
  if (L.empty())
    return flushFrames(H, true);
  if (L.starts_with("#") || L.starts_with("//") || L.starts_with(";"))
    return Error::success();
  SmallVector<StringRef, 80> Tok;
  L.split(Tok, ' ', -1, false);
  int64_t SamplePid = -1;
  size_t I = 0;
  if (Tok.size() > 1 && Tok[1].starts_with("PERF_RECORD_")) {
    if (Tok[0].getAsInteger(10, SamplePid))
      return err("expected a pid before " + Tok[1]);
    I = 1;
  }
  if (Tok[I].starts_with("PERF_RECORD_")) {
    if (Error Err = flushFrames(H, false))
      return Err;
    return sideBand(L, Tok, I, SamplePid, H);
  }
  // The event's name (`-F event,...`, "br_inst_retired.near_taken:upp:")
  // comes first; there is one event here, so it is dropped.
  size_t First = 0;
  while (First < Tok.size() && Tok[First].ends_with(":") &&
         !Tok[First].contains('/'))
    ++First;
  ArrayRef<StringRef> Fields = ArrayRef<StringRef>(Tok).drop_front(First);
  size_t FirstBranch = 0;
  while (FirstBranch < Fields.size() && !Fields[FirstBranch].contains('/'))
    ++FirstBranch;
  if (FirstBranch < Fields.size())
    return sampleLine(Fields, FirstBranch, H);
  // No branch stack. One hex number: a call stack frame (innermost first,
  // as `perf script` prints a call chain) or, if no branch stack follows,
  // the IP of a sample (`-F ip`):
  //             4005dc
  uint64_t A;
  if (Fields.size() == 1 && parseHex(Fields[0], A)) {
    Frames.push_back(A);
    return Error::success();
  }
  if (Error Err = flushFrames(H, false))
    return Err;
  // A line of prose from a tool around perf ("Using perf wrapper that
  // supports hot-text. ..."), or the event name alone: no data. If nothing
  // else comes, the file was not perf script text: that line is the error.
  if (Fields.empty() || isAlpha(Fields[0].front())) {
    if (!Info.TextLinesSkipped++ && !Fields.empty()) {
      FirstSkippedLine = LineNo;
      FirstSkippedWhy =
          Fields.size() == 2
              ? ("expected a decimal pid, found '" + Fields[0] + "'").str()
              : ("expected a sample ('[pid] ip brstack...'), found '" +
                 L.take_front(60) + "'")
                    .str();
    }
    return Error::success();
  }
  // `-F pid,ip`: a sample with no branches.
  if (Fields.size() == 2)
    return sampleLine(Fields, 2, H);
  return err("expected a sample ('[pid] ip brstack...', or call stack lines "
             "then a branch stack), found '" +
             L.take_front(60) + "'");
}

Error ScriptReader::run(PerfEventHandler &H) {
  std::vector<uint8_t> Buf(1 << 20);
  size_t Len = 0;
  bool Eof = false;
  while (!Eof || Len) {
    if (!Eof) {
      if (Len == Buf.size())
        Buf.resize(Buf.size() * 2); // One line longer than the buffer.
      Expected<size_t> Got = Src->read(Buf.data() + Len, Buf.size() - Len);
      if (!Got)
        return Got.takeError();
      if (*Got == 0)
        Eof = true;
      Len += *Got;
      Consumed += *Got;
    }
    StringRef Text(reinterpret_cast<const char *>(Buf.data()), Len);
    size_t Start = 0;
    while (true) {
      size_t NL = Text.find('\n', Start);
      if (NL == StringRef::npos) {
        if (!Eof)
          break;
        NL = Text.size();
        if (NL == Start)
          break;
      }
      ++LineNo;
      char *Chars = reinterpret_cast<char *>(Buf.data());
      for (size_t K = Start; K < NL; ++K)
        if (Chars[K] == '\t')
          Chars[K] = ' ';
      if (Error E = line(Text.slice(Start, NL), H))
        return E;
      ++LinesRead;
      Start = NL + 1;
      if (Start >= Text.size())
        break;
    }
    Start = std::min(Start, Len);
    memmove(Buf.data(), Buf.data() + Start, Len - Start);
    Len -= Start;
    if (Eof)
      break;
  }
  // The text ended after IP lines (`-F ip`) or a count.
  if (Error Err = flushFrames(H, false))
    return Err;
  if (!RecordNo && FirstSkippedLine) {
    LineNo = FirstSkippedLine;
    LinesRead = 0;
    return err(FirstSkippedWhy);
  }
  if (PendingCount) {
    LineNo = PendingCountLine;
    return err("a sample count at the end of the text, with no sample");
  }
  return Error::success();
}

} // namespace

Expected<std::unique_ptr<EventSource>>
openScriptSource(std::unique_ptr<ByteSource> Src) {
  return std::unique_ptr<EventSource>(new ScriptReader(std::move(Src)));
}

} // namespace lbr2prof
