//===- PreInliner.h - which call contexts stay contexts ---------*- C++ -*-===//
//
// Private to lib/Profile. The budget pre-inliner decides, caller by caller
// from the top of the call graph down, which call contexts of the flat
// context profiles stay contexts (nested at their call site and marked for
// clang to inline), and which move to the callee's base profile.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_LIB_PROFILE_PREINLINER_H
#define LBR2PROF_LIB_PROFILE_PREINLINER_H

#include "FlatProfiles.h"
#include "llvm/ADT/StringMap.h"

namespace lbr2prof {

/// Keeps, in each function, its hottest call contexts whose callee is
/// small enough for the call's hotness and whose call is not on a rare path
/// of its caller, until the code they add reaches the function's growth
/// budget (ContextProfileOptions::PreInliner == Budget, the default). Size: bytes of each function's outlined code. Returns how many
/// call contexts moved to base profiles; St gets the summary counts used.
uint64_t preInlineWithBudget(FlatProfiles &Flat,
                             const llvm::StringMap<uint64_t> &Size,
                             const ContextProfileOptions &Opts,
                             ContextProfileStats &St);

} // namespace lbr2prof

#endif
