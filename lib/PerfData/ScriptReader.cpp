//===- ScriptReader.cpp - `perf script` text as an event source -----------===//
//
// Reads the text that llvm-profgen and perf2bolt consume, produced by
//   perf script -F ip,brstack --show-mmap-events        (llvm-profgen)
//   perf script -F pid,ip,brstack --show-mmap-events    (perf2bolt)
// and turns it into the same events the perf.data reader yields. Lines:
//
//   [PID] PERF_RECORD_MMAP2 1234/1234: [0x400000(0x1000) @ 0 08:01 99 0]: r-xp /bin/app
//   [PID] PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1276508) @ 0xffffffff81000000]: x [kernel.kallsyms]_text
//   [PID] PERF_RECORD_COMM[ exec]: app:1234/1234
//   [PID] PERF_RECORD_FORK(1235:1235):(1234:1234)
//   [PID] PERF_RECORD_EXIT(1235:1235):(1234:1234)
//   [PID] IP 0x401136/0x401120/P/-/-/3[/TYPE[/SPEC]] 0x.../...   (newest first)
//
// The text is read in chunks and split into lines in place; branch entries
// are built into one reused array, so a sample allocates nothing.
//
//===----------------------------------------------------------------------===//
#include "ByteSource.h"
#include "lbr2prof/PerfData/PerfReader.h"
#include "lbr2prof/Support/Error.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace lbr2prof::perfabi;

namespace lbr2prof {
namespace {

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
  Error run(PerfEventHandler &H) override;

private:
  Error line(StringRef L, PerfEventHandler &H);
  Error mmapLine(StringRef Rest, bool Is2, int64_t SamplePid,
                 PerfEventHandler &H);
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
  RecordInfo R;
  R.Type = Is2 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP;
  R.Index = RecordNo++;
  R.FileOffset = LineNo;
  if (Error Err = H.onRecord(R))
    return Err;
  return H.onMmap(E, R);
}

Error ScriptReader::line(StringRef L, PerfEventHandler &H) {
  L = L.trim();
  if (L.empty() || L.starts_with("#"))
    return Error::success();
  SmallVector<StringRef, 80> Tok;
  L.split(Tok, ' ', -1, false);
  // Tabs also separate fields in some perf versions.
  int64_t SamplePid = -1;
  size_t I = 0;
  if (Tok.size() > 1 && Tok[1].starts_with("PERF_RECORD_")) {
    if (Tok[0].getAsInteger(10, SamplePid))
      return err("expected a pid before " + Tok[1]);
    I = 1;
  }
  if (Tok[I].starts_with("PERF_RECORD_")) {
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
  // A sample: [pid] ip brstack...
  size_t FirstBranch = 0;
  while (FirstBranch < Tok.size() && !Tok[FirstBranch].contains('/'))
    ++FirstBranch;
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
  RecordInfo R;
  R.Type = PERF_RECORD_SAMPLE;
  R.Index = RecordNo++;
  R.FileOffset = LineNo;
  if (Error Err = H.onRecord(R))
    return Err;
  return H.onSample(S, R);
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
  return Error::success();
}

} // namespace

Expected<std::unique_ptr<EventSource>>
openScriptSource(std::unique_ptr<ByteSource> Src) {
  return std::unique_ptr<EventSource>(new ScriptReader(std::move(Src)));
}

} // namespace lbr2prof
