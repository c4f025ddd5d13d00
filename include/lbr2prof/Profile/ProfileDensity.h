//===- ProfileDensity.h - how densely the hot code was sampled -*- C++ -*-===//
//
// One figure for --stats of every sample-profile kind: the sample-weighted
// mean density (samples per instruction, or per probe) over the hottest
// functions that together hold 99% of the samples. A profile whose hot code
// has few samples per instruction is too sparse to guide the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_PROFILE_PROFILEDENSITY_H
#define LBR2PROF_PROFILE_PROFILEDENSITY_H

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace lbr2prof {

/// Funcs holds one (samples, density) pair per function, in any order.
inline double hotDensity(std::vector<std::pair<uint64_t, double>> Funcs) {
  std::sort(Funcs.rbegin(), Funcs.rend());
  uint64_t Sum = 0, Acc = 0;
  double W = 0;
  for (const auto &F : Funcs)
    Sum += F.first;
  for (const auto &[Samples, Density] : Funcs) {
    if (Sum && Acc >= Sum * 0.99)
      break;
    Acc += Samples;
    W += double(Samples) * Density;
  }
  return Acc ? W / Acc : 0;
}

} // namespace lbr2prof

#endif
