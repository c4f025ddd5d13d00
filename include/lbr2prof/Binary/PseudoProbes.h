//===- PseudoProbes.h - a binary's pseudo probes as plain values -*- C++ -*-===//
//
// A binary built with clang -fpseudo-probe-for-profiling carries two
// non-allocated sections that let a profile name IR blocks instead of
// source lines:
//   .pseudo_probe_desc  per function: GUID (MD5 of its name), CFG checksum,
//                       name;
//   .pseudo_probe       per outlined function, the address of each probe
//                       (block probes, direct and indirect call probes),
//                       nested under the call sites of inlined callees.
// readPseudoProbes() decodes both (as LLVM MC's MCPseudoProbeDecoder does;
// its descriptor reader is used) into the value below: probes sorted by
// binary (link-time) address, each with its function, index, kind and
// inline context, and the descriptors by GUID. Nothing else in lbr2prof
// touches MC's probe classes.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_BINARY_PSEUDOPROBES_H
#define LBR2PROF_BINARY_PSEUDOPROBES_H

#include "lbr2prof/Binary/BinaryImage.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <string>
#include <vector>

namespace lbr2prof {

enum class ProbeKind : uint8_t { Block, DirectCall, IndirectCall };

/// One step of an inline context: the probe sits in a copy of a function
/// inlined at call-site probe SiteIndex of function CallerGuid.
struct InlineFrame {
  uint64_t CallerGuid = 0;
  uint32_t SiteIndex = 0;
  bool operator==(const InlineFrame &O) const {
    return CallerGuid == O.CallerGuid && SiteIndex == O.SiteIndex;
  }
};

/// A probe instance at one binary address. One IR probe may have several
/// instances (a block duplicated by tail duplication or unrolling).
struct Probe {
  /// Binary (link-time) address of the first instruction after the probe.
  uint64_t Addr = 0;
  /// GUID of the function the probe belongs to (the innermost inline frame).
  uint64_t Guid = 0;
  /// Probe index in that function (1 = the entry block).
  uint32_t Index = 0;
  /// Probe discriminator (0 unless the compiler assigned one).
  uint32_t Discriminator = 0;
  ProbeKind Kind = ProbeKind::Block;
  /// Index into PseudoProbes::contexts(); 0 = not inlined.
  uint32_t Context = 0;

  bool isCall() const { return Kind != ProbeKind::Block; }
};

/// A .pseudo_probe_desc record.
struct ProbeFunctionDesc {
  uint64_t Guid = 0;
  /// The CFG checksum clang compares with its own (FunctionSamples hash).
  uint64_t Hash = 0;
  /// The function's IR name (mangled, with any .__uniq. suffix).
  std::string Name;
};

class PseudoProbes {
public:
  /// True if the binary has both probe sections (a probe-based profile
  /// is possible).
  bool present() const { return HasSections; }
  /// Every probe instance, sorted by address (then by inline depth, GUID,
  /// index).
  llvm::ArrayRef<Probe> probes() const { return Probes; }
  /// Probes at addresses in [Begin, End).
  llvm::ArrayRef<Probe> probesIn(uint64_t Begin, uint64_t End) const;
  /// Probes at exactly Addr.
  llvm::ArrayRef<Probe> probesAt(uint64_t Addr) const {
    return probesIn(Addr, Addr + 1);
  }
  /// Inline contexts, outermost caller first; contexts()[0] is empty.
  llvm::ArrayRef<std::vector<InlineFrame>> contexts() const {
    return Contexts;
  }
  /// The descriptor of GUID, or null.
  const ProbeFunctionDesc *desc(uint64_t Guid) const;
  /// Every descriptor, sorted by GUID.
  llvm::ArrayRef<ProbeFunctionDesc> descs() const { return Descs; }
  /// The functions probe Q's code is in, outermost first, each with the
  /// call-site probe index at which it calls the next (0 for the last,
  /// Q's own function). A frame whose site index is 0 (an inlined call
  /// that had no call probe: a call made by an optimization) has no site
  /// in its caller's IR to hang the inlinee on, so the chain restarts
  /// after it, as llvm-profgen does; Restarted tells. False if a function
  /// on the way has no descriptor.
  bool inlineChain(const Probe &Q,
                   std::vector<std::pair<const ProbeFunctionDesc *, uint32_t>>
                       &Out,
                   bool *Restarted = nullptr) const;
  /// The profile name of the outlined function F: the descriptor name of
  /// its own (not inlined) probes; "" if it has none.
  llvm::StringRef nameOf(const FunctionSym &F) const;
  /// The name a call to F's entry gives as call target: nameOf(F), or F's
  /// symbol if it has no probes (still useful for call promotion).
  llvm::StringRef calleeName(const FunctionSym &F) const {
    llvm::StringRef N = nameOf(F);
    return N.empty() ? llvm::StringRef(F.Name) : N;
  }
  /// The call probe of the call at Addr: the innermost, if inlining left
  /// several there; null if none.
  const Probe *callProbeAt(uint64_t Addr) const;
  /// The outermost function of probe P (P's own GUID when not inlined).
  uint64_t topGuid(const Probe &P) const {
    return P.Context ? Contexts[P.Context].front().CallerGuid : P.Guid;
  }

  /// Deterministic text dump, one line per descriptor then per probe:
  ///   desc GUID HASH NAME
  ///   0xADDR NAME INDEX KIND[ disc D][ @ CALLER:SITE @ ...]
  /// with the context from the outermost caller inwards (the order of
  /// llvm-profgen --show-pseudo-probe's "Inlined: @ f:4 @ h:2").
  void print(llvm::raw_ostream &OS) const;

  // Filled by readPseudoProbes().
  bool HasSections = false;
  std::vector<Probe> Probes;
  std::vector<std::vector<InlineFrame>> Contexts;
  std::vector<ProbeFunctionDesc> Descs;
  llvm::DenseMap<uint64_t, uint32_t> DescIndex;
};

/// Reads the probe sections of the ELF file Path. A binary without both
/// sections gives an empty value (line-based profiles then); a malformed
/// section is an error naming the file, the section and the byte offset.
/// Functions (from BinaryImage) give start addresses for the GUIDs of
/// their names, which the encoding of split functions refers to. With
/// Wanted, only the functions (with what was inlined into them) that have
/// a probe at an address Wanted accepts are decoded: the others' probes
/// are left out (every descriptor is kept).
llvm::Expected<PseudoProbes>
readPseudoProbes(llvm::StringRef Path, llvm::ArrayRef<FunctionSym> Functions,
                 llvm::function_ref<bool(uint64_t)> Wanted = nullptr);

} // namespace lbr2prof

#endif
