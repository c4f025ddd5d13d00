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
/// budget (ContextProfileOptions::PreInliner == Budget, the default).
/// Size: bytes of each function (see preInline()); CopySize: where inline
/// frames are decided (FlatProfiles::splitInlineFrames()), the bytes of
/// each inlined copy's own code by the suffix that named it. Cutoffs: the
/// counts at the 10 % and 99.9999 % cutoffs, if taken before the split
/// (else taken from Flat). Returns how many call contexts moved to base
/// profiles; St gets the summary counts used.
uint64_t preInlineWithBudget(FlatProfiles &Flat,
                             const llvm::StringMap<uint64_t> &Size,
                             const llvm::DenseMap<uint32_t, uint64_t> &CopySize,
                             const ContextProfileOptions &Opts,
                             ContextProfileStats &St,
                             llvm::ArrayRef<uint64_t> Cutoffs = {});

/// Where inline frames are decided (after FlatProfiles::
/// splitInlineFrames()): gives each inlined copy's caller a call at the
/// inline site, as many calls as the copy is estimated to be entered (How)
/// and as many samples at that location, so that a copy moved out leaves
/// its call behind, as llvm-profgen infers a call for every context
/// without head samples.
void inferInlinedCalls(FlatProfiles &Flat,
                       ContextProfileOptions::EntryKind How);

} // namespace lbr2prof

#endif
