//===- PerfDataFuzzer.cpp - fuzz the perf.data reader ---------------------===//
//
// Feeds the input to PerfReader::openBuffer and streams it twice: once to a
// handler that reads every field of every event, once into an LbrAggregator
// (then finish() and the raw profile's text form). The input's size picks the
// reader options, so both file-order and time-ordered delivery and both the
// default and the smallest read window get covered without changing what the
// bytes mean.
//
//===----------------------------------------------------------------------===//
#include "FuzzHandler.h"
#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "llvm/Support/raw_ostream.h"

using namespace lbr2prof;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::ArrayRef<uint8_t> Bytes(Data, Size);
  PerfReaderOptions Opts;
  Opts.TimeOrdered = Size & 1;
  if (Size & 2)
    Opts.WindowSize = 1; // Rounded up to the reader's minimum.

  {
    auto R = PerfReader::openBuffer(Bytes, "fuzz.data", Opts);
    if (!R) {
      llvm::consumeError(R.takeError());
      return 0;
    }
    fuzz::TouchAllHandler H;
    H.touchInfo((*R)->info());
    llvm::consumeError((*R)->run(H));
    H.touchInfo((*R)->info());
    H.mix((*R)->bytesRead());
    H.mix((*R)->unknownIdSamples());
    H.mix((*R)->formatName());
    volatile uint64_t Sink = H.Sum;
    (void)Sink;
  }

  auto R = PerfReader::openBuffer(Bytes, "fuzz.data", Opts);
  if (!R) {
    llvm::consumeError(R.takeError());
    return 0;
  }
  AggregateOptions AO;
  AO.WindowWeighting = Size & 4;
  LbrAggregator Agg(AO);
  Agg.setInputName("fuzz.data");
  llvm::Error E = (*R)->run(Agg);
  llvm::Error F = Agg.finish();
  if (!E && !F)
    printRawProfile(Agg.profile(), Agg.maps(), llvm::nulls());
  llvm::consumeError(std::move(E));
  llvm::consumeError(std::move(F));
  return 0;
}
