//===- GcovAfdo.cpp - GCC AutoFDO (.afdo) writer and reader ---------------===//
//
// The gcov-based profile GCC 12's auto-profile.cc reads (read_profile,
// string_table::read, autofdo_source_profile::read,
// function_instance::read_function_instance), written as AutoFDO's
// profile_writer.cc orders it. Every word is a little-endian u32 (gcc
// reads them in host order and does not check the byte order), every
// counter a u64 written as two such words, low first (so little-endian on
// the disk too):
//
//   u32 0x67636461 ("gcda")  u32 version = 2  u32 0
//   u32 0xaa000000 (file names)  u32 length  u32 N  STRING{N}
//     STRING = u32 bytes (strlen + 1), the bytes with their NUL, no padding
//   u32 0xac000000 (functions)  u32 length  u32 F  (u64 head  INSTANCE){F}
//     INSTANCE = u32 name  u32 P  u32 C  POS{P}  (u32 site  INSTANCE){C}
//     POS = u32 location  u32 T  u64 count  (u32 type  u64 name  u64 count){T}
//   u32 0xae000000 (module grouping)  u32 0  u32 0
//
// A location (and a call site) is (line - the function's DW_AT_decl_line)
// << 16 | discriminator. Names are string-table indices; gcc cuts each
// string at its first '.' and looks functions up by assembler name. gcc
// skips the section lengths; we write them in bytes, as gcov-io.cc's
// gcov_write_length counts them in the version that writes byte-length
// strings. gcc keeps no total count: an instance's total is the
// sum of its and its inlinees' location counts.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Writers/GcovAfdo.h"
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Support/OutputFile.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ProfileData/SampleProfWriter.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/StringSaver.h"
#include <map>
#include <set>

using namespace llvm;
using namespace llvm::sampleprof;

namespace lbr2prof {

namespace {

constexpr uint32_t GcovDataMagic = 0x67636461; // "gcda"
constexpr uint32_t TagFileNames = 0xaa000000;
constexpr uint32_t TagFunction = 0xac000000;
constexpr uint32_t TagModuleGrouping = 0xae000000;
/// The value-profile kind AutoFDO writes before each call target
/// (HIST_TYPE_INDIR_CALL_TOPN); gcc reads and ignores it.
constexpr uint32_t TargetKind = 7;

/// The name gcc keeps of a string it reads: up to the first '.'.
StringRef gccName(StringRef N) {
  return N.take_until([](char C) { return C == '.'; });
}

/// One function instance as gcc holds it.
struct Instance {
  StringRef Name;
  uint64_t Head = 0;
  struct Pos {
    uint64_t Count = 0;
    std::map<StringRef, uint64_t> Targets;
  };
  std::map<uint32_t, Pos> Positions;
  std::map<std::pair<uint32_t, StringRef>, Instance> Callsites;
};

uint64_t addSat(uint64_t A, uint64_t B) { return A + B < A ? ~0ULL : A + B; }

/// Adds FS (under the name I already has) to I.
void addTo(Instance &I, const FunctionSamples &FS, GcovAfdoStats &S) {
  I.Head = addSat(I.Head, FS.getHeadSamples());
  auto Loc = [&](const LineLocation &L) -> std::optional<uint32_t> {
    if (L.Discriminator > 0xffff) {
      ++S.WideDiscriminators;
      return std::nullopt;
    }
    return (L.LineOffset & 0xffff) << 16 | L.Discriminator;
  };
  for (const auto &[L, Rec] : FS.getBodySamples()) {
    std::optional<uint32_t> Off = Loc(L);
    if (!Off)
      continue;
    Instance::Pos &P = I.Positions[*Off];
    P.Count = addSat(P.Count, Rec.getSamples());
    for (const auto &[F, C] : Rec.getCallTargets()) {
      uint64_t &T = P.Targets[gccName(F.stringRef())];
      T = addSat(T, C);
    }
  }
  for (const auto &[L, Callees] : FS.getCallsiteSamples()) {
    std::optional<uint32_t> Off = Loc(L);
    if (!Off)
      continue;
    for (const auto &[N, Callee] : Callees) {
      StringRef Name = gccName(N.stringRef());
      auto [It, New] = I.Callsites.try_emplace({*Off, Name});
      It->second.Name = Name;
      if (!New)
        ++S.Merged;
      addTo(It->second, Callee, S);
    }
  }
}

bool hasSamples(const Instance &I) {
  for (const auto &[Off, P] : I.Positions)
    if (P.Count)
      return true;
  for (const auto &[Site, Callee] : I.Callsites)
    if (hasSamples(Callee))
      return true;
  return false;
}

void collectNames(const Instance &I, std::set<StringRef> &Names) {
  Names.insert(I.Name);
  for (const auto &[Off, P] : I.Positions)
    for (const auto &[T, C] : P.Targets)
      Names.insert(T);
  for (const auto &[Site, Callee] : I.Callsites)
    collectNames(Callee, Names);
}

/// The file's bytes, little-endian.
class Out {
public:
  void u32(uint32_t V) {
    char B[4];
    support::endian::write32le(B, V);
    Bytes.append(B, B + 4);
  }
  void u64(uint64_t V) {
    u32(uint32_t(V));
    u32(uint32_t(V >> 32));
  }
  void str(StringRef S) {
    u32(S.size() + 1);
    Bytes.append(S.begin(), S.end());
    Bytes.push_back('\0');
  }
  /// Starts a section: its tag and a length to patch in end().
  size_t begin(uint32_t Tag) {
    u32(Tag);
    u32(0);
    return Bytes.size();
  }
  void end(size_t Start) {
    support::endian::write32le(&Bytes[Start - 4], Bytes.size() - Start);
  }
  SmallVector<char, 0> Bytes;
};

/// A location gcc is told nothing about: no count and no call target.
/// AutoFDO's create_gcov writes only locations that have samples; gcc
/// starts every block of a profiled function at 0 anyway, but a written 0
/// marks the block as annotated, and gcc's flow propagation then keeps it
/// at 0 instead of giving it the count the blocks around it imply.
bool isEmpty(const Instance::Pos &P) { return P.Count == 0 && P.Targets.empty(); }

void writeInstance(Out &O, const Instance &I,
                   const std::map<StringRef, uint32_t> &Index,
                   GcovAfdoStats &S) {
  size_t Written = 0;
  for (const auto &[Off, P] : I.Positions)
    Written += !isEmpty(P);
  S.ZeroLocations += I.Positions.size() - Written;
  O.u32(Index.at(I.Name));
  O.u32(Written);
  O.u32(I.Callsites.size());
  for (const auto &[Off, P] : I.Positions) {
    if (isEmpty(P))
      continue;
    O.u32(Off);
    O.u32(P.Targets.size());
    O.u64(P.Count);
    for (const auto &[T, C] : P.Targets) {
      O.u32(TargetKind);
      O.u64(Index.at(T));
      O.u64(C);
    }
  }
  for (const auto &[Site, Callee] : I.Callsites) {
    O.u32(Site.first);
    writeInstance(O, Callee, Index, S);
  }
}

} // namespace

bool isGcovAfdo(StringRef Bytes) { return Bytes.starts_with("adcg"); }

Expected<GcovAfdoStats> writeGcovAfdo(const SampleProfileMap &Profiles,
                                      StringRef Path) {
  GcovAfdoStats S;
  std::map<StringRef, Instance> Top;
  for (const auto &[Ctx, FS] : Profiles) {
    StringRef Name = gccName(FS.getFunction().stringRef());
    auto [It, New] = Top.try_emplace(Name);
    It->second.Name = Name;
    if (!New)
      ++S.Merged;
    addTo(It->second, FS, S);
  }
  S.Functions = Top.size();
  // Index 0 is the empty string, as AutoFDO writes it: gcc asserts that a
  // call target's index is above 0.
  std::set<StringRef> Names{StringRef()};
  for (const auto &[N, I] : Top)
    collectNames(I, Names);
  std::map<StringRef, uint32_t> Index;
  Out O;
  O.u32(GcovDataMagic);
  O.u32(GcovAfdoVersion);
  O.u32(0);
  size_t Sec = O.begin(TagFileNames);
  O.u32(Names.size());
  for (StringRef N : Names) {
    Index.emplace(N, Index.size());
    O.str(N);
  }
  O.end(Sec);
  Sec = O.begin(TagFunction);
  O.u32(Top.size());
  for (const auto &[N, I] : Top) {
    // A function with samples ran, so it was entered at least once, even
    // when no sampled branch caught the entry (one call through a pointer,
    // as gawk's main calls its interpreter). gcc 12 takes a head count of 0
    // as an entry count of 0 and leaves blocks that only flow from the
    // entry at 0: an outer loop, or all of gawk's r_interpret, whose hot
    // loop was then compiled as never run (test/GccAfdo/gcc12-zero-head.test).
    if (I.Head == 0 && hasSamples(I)) {
      O.u64(1);
      ++S.RaisedHeads;
    } else {
      O.u64(I.Head);
    }
    writeInstance(O, I, Index, S);
  }
  O.end(Sec);
  // No modules (LIPO's; gcc asserts there are none), length 0.
  O.u32(TagModuleGrouping);
  O.u32(0);
  O.u32(0);
  Expected<std::unique_ptr<AtomicOutputFile>> F =
      AtomicOutputFile::create(Path);
  if (!F)
    return F.takeError();
  (*F)->os().write(O.Bytes.data(), O.Bytes.size());
  if (Error E = (*F)->commit())
    return std::move(E);
  return S;
}

} // namespace lbr2prof
