//===- NestedProfiles.h - flat context profiles to nested ones --*- C++ -*-===//
//
// Private to lib/Profile. The flat context profiles, once pruned, become
// the nested profiles llvm-profgen 19 writes by default: each context
// profile nested at its call site in its caller's profile, callers made
// for contexts whose caller has none, top-level profiles in name order.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_LIB_PROFILE_NESTEDPROFILES_H
#define LBR2PROF_LIB_PROFILE_NESTEDPROFILES_H

#include "FlatProfiles.h"

namespace lbr2prof {

/// What a flat node becomes, besides its counts: the attributes of its
/// profile (FunctionSamples context attributes) and its CFG checksum.
struct NodeMarks {
  uint32_t Attributes = 0;
  uint64_t FunctionHash = 0;
};

/// Puts Flat's nodes into R.Profiles as nested profiles, and frees them.
/// Marks(Base, Suffix, Node) gives each node's marks. The result is what
/// making each node a flat profile of its whole context, inferring the
/// callers that have none (as llvm-profgen's
/// populateInferredFunctionSamples), nesting with LLVM's
/// ProfileConverter::convertCSProfiles and remaking the map in name order
/// gave, byte for byte once written, without a profile keyed (and hashed,
/// an MD5 per frame) by its whole context. R.Stats.ContextProfiles: the
/// flat profiles made.
void nestProfiles(
    FlatProfiles &Flat, uint32_t Root,
    llvm::function_ref<NodeMarks(uint32_t Base, uint32_t Suffix,
                                 const FlatProfiles::Node &)>
        Marks,
    ContextProfileResult &R);

} // namespace lbr2prof

#endif
