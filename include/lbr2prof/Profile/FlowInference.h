//===- FlowInference.h - consistent counts on a function's CFG --*- C++ -*-===//
//
// Makes a FunctionCfg's block, edge and entry counts consistent (what flows
// into a block flows out of it) while changing the sampled counts as little
// as possible: a minimum-cost flow, either ours (FlowInference.cpp) or
// LLVM's profi (SampleProfileInference.h, which clang and BOLT use).
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_PROFILE_FLOWINFERENCE_H
#define LBR2PROF_PROFILE_FLOWINFERENCE_H

#include "lbr2prof/Binary/BinaryImage.h"
#include "lbr2prof/Profile/BinaryProfile.h"
#include <cstdint>

namespace lbr2prof {

/// Cost per unit of changing an observed count. Raising a count the
/// samples saw as 0 (a cold block, an edge never taken) costs more than
/// moving a count that was seen; entering or leaving the function anywhere
/// but at its entry and its exits costs most.
struct FlowInferenceCosts {
  int64_t IncBlock = 10, IncColdBlock = 30, DecBlock = 10;
  int64_t IncEdge = 10, IncUnseenEdge = 30, DecEdge = 10;
  int64_t IncEntry = 10, DecEntry = 10;
  int64_t IncExit = 10, DecExit = 10;
  int64_t Elsewhere = 100;
};

/// Replaces Cfg's counts (blocks, intra-function edges, fall-throughs, the
/// entry count, and the instruction counts, which become their block's) by
/// the nearest consistent ones. Calls and branches out of the function keep
/// their counts. False (Cfg unchanged) if Cfg has no blocks.
bool inferConsistentCounts(FunctionCfg &Cfg, const BinaryImage &Image,
                           const FlowInferenceCosts &Costs = {});

/// The same with LLVM's profi (llvm::applyFlowInference) as the solver, on
/// the same CFG and the same costs: a dummy entry block feeds the function's
/// entry (its jump carries the entry count), a dummy sink collects the
/// returns and jumps out (their jumps carry the exit counts), edges no
/// sample saw have an unknown weight, and blocks that nothing enters or that
/// reach no exit are joined to the dummies by unlikely jumps.
bool inferConsistentCountsProfi(FunctionCfg &Cfg, const BinaryImage &Image,
                                const FlowInferenceCosts &Costs = {});

/// Dispatches on Method; false if None or Cfg has no blocks.
bool inferConsistentCounts(FunctionCfg &Cfg, const BinaryImage &Image,
                           FlowInferenceMethod Method);

} // namespace lbr2prof

#endif
