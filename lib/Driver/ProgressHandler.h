//===- ProgressHandler.h - progress while reading an input ------*- C++ -*-===//
//
// Private to lib/Driver: forwards every event to the real handler and, on a
// terminal, updates a progress line from the source's bytes read.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_LIB_DRIVER_PROGRESSHANDLER_H
#define LBR2PROF_LIB_DRIVER_PROGRESSHANDLER_H

#include "lbr2prof/PerfData/PerfReader.h"
#include "lbr2prof/Support/Progress.h"

namespace lbr2prof {

class ProgressHandler : public PerfEventHandler {
public:
  ProgressHandler(PerfEventHandler &Inner, const EventSource &Src,
                  llvm::StringRef Name)
      : Inner(Inner), Src(Src), P(Name, Src.info().FileSize) {}
  ~ProgressHandler() override { P.finish(); }
  llvm::Error onRecord(const RecordInfo &R) override {
    P.update(Src.bytesRead());
    return Inner.onRecord(R);
  }
  llvm::Error onSample(const Sample &S, const RecordInfo &R) override {
    return Inner.onSample(S, R);
  }
  llvm::Error onMmap(const MmapEvent &E, const RecordInfo &R) override {
    return Inner.onMmap(E, R);
  }
  llvm::Error onComm(const CommEvent &E, const RecordInfo &R) override {
    return Inner.onComm(E, R);
  }
  llvm::Error onTask(const TaskEvent &E, const RecordInfo &R) override {
    return Inner.onTask(E, R);
  }
  llvm::Error onLost(const LostEvent &E, const RecordInfo &R) override {
    return Inner.onLost(E, R);
  }
  bool wantsRawSamples() const override { return Inner.wantsRawSamples(); }
  llvm::Error onRawSample(const RecordInfo &R, unsigned AttrIndex,
                          const SampleDecoder &D) override {
    return Inner.onRawSample(R, AttrIndex, D);
  }

private:
  PerfEventHandler &Inner;
  const EventSource &Src;
  Progress P;
};

} // namespace lbr2prof

#endif
