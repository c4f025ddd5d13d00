//===- ScriptFuzzer.cpp - fuzz the perf script text reader ----------------===//
//
// Feeds the input to openEventSourceBuffer. Inputs without the perf.data
// magic reach the `perf script` text reader; the events go to a handler
// that reads every field and then into an LbrAggregator.
//
//===----------------------------------------------------------------------===//
#include "FuzzHandler.h"
#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "llvm/Support/raw_ostream.h"

using namespace lbr2prof;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::ArrayRef<uint8_t> Bytes(Data, Size);
  // perf.data has its own fuzzer.
  if (hasPerfMagic(Bytes.take_front(8)) ||
      (Size >= 8 && memcmp(Data, "PERFFILE", 8) == 0))
    return -1;
  {
    auto S = openEventSourceBuffer(Bytes, "fuzz.txt");
    if (!S) {
      llvm::consumeError(S.takeError());
      return 0;
    }
    fuzz::TouchAllHandler H;
    llvm::consumeError((*S)->run(H));
    H.touchInfo((*S)->info());
    H.mix((*S)->bytesRead());
    H.mix((*S)->formatName());
    volatile uint64_t Sink = H.Sum;
    (void)Sink;
  }
  auto S = openEventSourceBuffer(Bytes, "fuzz.txt");
  if (!S) {
    llvm::consumeError(S.takeError());
    return 0;
  }
  AggregateOptions AO;
  LbrAggregator Agg(AO);
  llvm::Error E = (*S)->run(Agg);
  llvm::Error F = Agg.finish();
  if (!E && !F)
    printRawProfile(Agg.profile(), Agg.maps(), llvm::nulls());
  llvm::consumeError(std::move(E));
  llvm::consumeError(std::move(F));
  return 0;
}
