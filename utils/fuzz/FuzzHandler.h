//===- FuzzHandler.h - a handler that reads every event field ---*- C++ -*-===//
//
// Shared by the perf.data and perf script fuzzers: a PerfEventHandler that
// reads every field of every decoded event, every element of every view and
// every header fact, and folds them into a checksum, so that AddressSanitizer
// sees any view that points outside the reader's buffers and UBSan sees any
// bad value the decoders let through.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_UTILS_FUZZ_FUZZHANDLER_H
#define LBR2PROF_UTILS_FUZZ_FUZZHANDLER_H

#include "lbr2prof/PerfData/PerfReader.h"

namespace lbr2prof {
namespace fuzz {

class TouchAllHandler : public PerfEventHandler {
public:
  uint64_t Sum = 0;

  void mix(uint64_t V) { Sum = (Sum ^ V) * 0x100000001b3ULL; }
  void mix(llvm::StringRef S) {
    for (char C : S)
      mix(uint64_t(uint8_t(C)));
  }
  void mix(llvm::ArrayRef<uint8_t> A) {
    for (uint8_t B : A)
      mix(uint64_t(B));
  }
  void mix(llvm::ArrayRef<ulittle64> A) {
    for (uint64_t V : A)
      mix(V);
  }
  void mix(const SampleId &I) {
    mix(I.Has);
    mix(I.Pid);
    mix(I.Tid);
    mix(I.Time);
    mix(I.Id);
    mix(I.StreamId);
    mix(I.Cpu);
  }

  void touchInfo(const PerfFileInfo &F) {
    mix(F.PipeMode);
    mix(F.FileSize);
    mix(F.DataOffset);
    mix(F.DataSize);
    for (const EventAttr &A : F.Attrs) {
      mix(A.Type);
      mix(A.Size);
      mix(A.Config);
      mix(A.SamplePeriodOrFreq);
      mix(A.SampleType);
      mix(A.ReadFormat);
      mix(A.Flags);
      mix(A.BranchSampleType);
      mix(A.SampleRegsUser);
      mix(A.SampleStackUser);
      mix(A.SampleRegsIntr);
      mix(A.sampleIdAll() + 2 * A.freq() + 4 * A.hasBranchHwIndex());
      for (uint64_t Id : A.Ids)
        mix(uint64_t(F.attrForId(Id)));
      mix(A.Name);
    }
    mix(F.Features.count());
    for (llvm::StringRef S :
         {llvm::StringRef(F.Hostname), llvm::StringRef(F.OsRelease),
          llvm::StringRef(F.Version), llvm::StringRef(F.Arch),
          llvm::StringRef(F.CpuDesc), llvm::StringRef(F.CpuId),
          llvm::StringRef(F.ClockIdName)})
      mix(S);
    mix(F.NrCpusAvail);
    mix(F.NrCpusOnline);
    mix(F.TotalMemKb);
    for (const std::string &S : F.Cmdline)
      mix(llvm::StringRef(S));
    for (const BuildIdEntry &B : F.BuildIds) {
      mix(uint64_t(B.Pid));
      mix(B.Misc);
      mix(llvm::ArrayRef<uint8_t>(B.Id));
      mix(llvm::StringRef(B.Filename));
    }
    const CompressionInfo &C = F.Compression;
    mix(C.Version + C.Type + C.Level + C.Ratio + C.MmapLen);
    mix(F.SampleTimeFirst);
    mix(F.SampleTimeLast);
  }

  llvm::Error onRecord(const RecordInfo &R) override {
    mix(R.Type);
    mix(R.Misc);
    mix(R.Size);
    mix(R.FileOffset);
    mix(R.Index);
    mix(R.FromCompressed);
    mix(R.Bytes);
    if (R.Window && *R.Window)
      mix((*R.Window)->size());
    mix(recordTypeName(R.Type));
    return llvm::Error::success();
  }

  llvm::Error onSample(const Sample &S, const RecordInfo &R) override {
    mix(S.AttrIndex);
    mix(S.Misc);
    mix(S.cpumode());
    mix(S.Ident);
    mix(S.Ip);
    mix(S.Addr);
    mix(S.Period);
    mix(S.Read);
    mix(S.Callchain);
    mix(S.Raw);
    for (const BranchEntry &B : S.Branches) {
      mix(B.from());
      mix(B.to());
      mix(B.mispred() + 2 * B.predicted() + 4 * B.inTx() + 8 * B.abort());
      mix(B.cycles());
      mix(B.spec());
      mix(B.newType());
      mix(B.priv());
      mix(branchTypeName(B.type()));
    }
    mix(S.BranchCounters);
    mix(S.HasHwIdx);
    mix(S.HwIdx);
    mix(S.RegsUserAbi);
    mix(S.RegsUser);
    mix(S.StackUser);
    mix(S.StackUserDynSize);
    mix(S.Weight);
    mix(S.DataSrc);
    mix(S.Transaction);
    mix(S.RegsIntrAbi);
    mix(S.RegsIntr);
    mix(S.PhysAddr);
    mix(S.Cgroup);
    mix(S.DataPageSize);
    mix(S.CodePageSize);
    mix(S.Aux);
    return llvm::Error::success();
  }

  llvm::Error onMmap(const MmapEvent &E, const RecordInfo &R) override {
    mix(E.IsMmap2);
    mix(E.Misc);
    mix(E.Pid);
    mix(E.Tid);
    mix(E.Addr);
    mix(E.Len);
    mix(E.PgOff);
    mix(E.Maj);
    mix(E.Min);
    mix(E.Ino);
    mix(E.InoGeneration);
    mix(E.BuildId);
    mix(E.Prot);
    mix(E.Flags);
    mix(E.Filename);
    mix(E.Ident);
    mix(E.isExecutable() + 2 * E.hasBuildId());
    return llvm::Error::success();
  }

  llvm::Error onComm(const CommEvent &E, const RecordInfo &R) override {
    mix(E.Misc);
    mix(E.Pid);
    mix(E.Tid);
    mix(E.Comm);
    mix(E.Ident);
    mix(E.isExec());
    return llvm::Error::success();
  }

  llvm::Error onTask(const TaskEvent &E, const RecordInfo &R) override {
    mix(E.IsFork);
    mix(E.Pid);
    mix(E.PPid);
    mix(E.Tid);
    mix(E.PTid);
    mix(E.Time);
    mix(E.Ident);
    return llvm::Error::success();
  }

  llvm::Error onLost(const LostEvent &E, const RecordInfo &R) override {
    mix(E.Id);
    mix(E.Lost);
    mix(E.Ident);
    return llvm::Error::success();
  }
};

} // namespace fuzz
} // namespace lbr2prof

#endif
