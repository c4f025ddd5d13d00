//===- GcovAfdoReader.cpp - read a GCC AutoFDO (.afdo) file back ----------===//
//
// Reads what GcovAfdo.cpp writes (the layout is at the top of that file and
// in docs/formats.md) in the order gcc 12's auto-profile.cc reads it, and
// checks what gcc does not: every count against the bytes that remain
// before it is trusted, every name index against the string table, the
// nesting depth, and the module-grouping section gcc asserts to be empty.
// A fault is one InputError naming the file and the byte offset.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Writers/GcovAfdo.h"
#include "llvm/ProfileData/SampleProfWriter.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/StringSaver.h"
#include <vector>

using namespace llvm;
using namespace llvm::sampleprof;

namespace lbr2prof {

namespace {

/// Inline nesting deeper than this is taken for damage (gcc recurses
/// without a limit; a real inline stack is a few dozen frames).
constexpr unsigned MaxDepth = 256;

/// Reads little-endian words from the file, each checked against the end.
class Cursor {
public:
  explicit Cursor(MemoryBufferRef B)
      : Data(B.getBuffer()), File(B.getBufferIdentifier()) {}

  Error fail(const Twine &Msg, size_t At) const {
    InputLocation L;
    L.File = File.str();
    L.Offset = At;
    return inputError(L, Msg);
  }
  /// A little-endian T at the cursor, or an error naming What.
  template <class T> Expected<T> read(const char *What) {
    if (remaining() < sizeof(T))
      return fail(Twine(What) + ": the file ends (" + Twine(remaining()) +
                      " bytes remain, " + Twine(sizeof(T)) + " needed)",
                  Pos);
    T V = support::endian::read<T, llvm::endianness::little>(Data.data() +
                                                              Pos);
    Pos += sizeof(T);
    return V;
  }
  size_t pos() const { return Pos; }
  size_t remaining() const { return Data.size() - Pos; }
  Expected<uint32_t> u32(const char *What) { return read<uint32_t>(What); }
  Expected<uint64_t> u64(const char *What) { return read<uint64_t>(What); }
  /// A string: its byte length (with the NUL), then the bytes.
  Expected<StringRef> str() {
    size_t At = Pos;
    Expected<uint32_t> N = u32("string length");
    if (!N)
      return N.takeError();
    if (*N == 0 || *N > remaining())
      return fail("string length " + Twine(*N) + " (with its NUL) with " +
                      Twine(remaining()) + " bytes left",
                  At);
    StringRef S = Data.substr(Pos, *N);
    Pos += *N;
    if (S.back() != '\0')
      return fail("string does not end in a NUL", At);
    return S.drop_back();
  }
  /// A count of Elem-byte items: at most what the remaining bytes can hold.
  Expected<uint32_t> count(const char *What, size_t Elem) {
    size_t At = Pos;
    Expected<uint32_t> N = u32(What);
    if (N && uint64_t(*N) * Elem > remaining())
      return fail(Twine(What) + " " + Twine(*N) + " needs at least " +
                      Twine(uint64_t(*N) * Elem) + " bytes, " +
                      Twine(remaining()) + " remain",
                  At);
    return N;
  }

private:
  StringRef Data;
  StringRef File;
  size_t Pos = 0;
};

struct Reader {
  Cursor C;
  std::vector<StringRef> Names;

  Expected<StringRef> name(uint64_t Index, size_t At) {
    if (Index == 0 || Index >= Names.size())
      return C.fail("name index " + Twine(Index) + " is not in the string " +
                        "table (1.." + Twine(Names.size() - 1) + ")",
                    At);
    return Names[Index];
  }
  Error header();
  Error stringTable();
  /// Reads one instance into FS; returns its total (its and its inlinees'
  /// location counts, as gcc sums them).
  Expected<uint64_t> instance(FunctionSamples &FS, unsigned Depth);
  Error positions(FunctionSamples &FS, uint32_t N, uint64_t &Total);
};

Error Reader::header() {
  Expected<uint32_t> Magic = C.u32("magic");
  if (!Magic)
    return Magic.takeError();
  if (*Magic != 0x67636461)
    return C.fail("not a gcov file (magic " + utohexstr(*Magic, true) +
                      ", expected 67636461 'gcda')",
                  0);
  Expected<uint32_t> V = C.u32("version");
  if (!V)
    return V.takeError();
  if (*V != GcovAfdoVersion)
    return C.fail("AutoFDO profile version " + Twine(*V) + ", expected " +
                      Twine(GcovAfdoVersion) + " (gcc 12's)",
                  4);
  if (Expected<uint32_t> Z = C.u32("header"); !Z)
    return Z.takeError();
  return Error::success();
}

/// A section's tag (which must be Tag) and its length (skipped, as gcc
/// does, but no longer than the file).
Error section(Cursor &C, uint32_t Tag, const char *Name) {
  size_t At = C.pos();
  Expected<uint32_t> T = C.u32(Name);
  if (!T)
    return T.takeError();
  if (*T != Tag)
    return C.fail(Twine(Name) + ": tag " + utohexstr(*T, true) +
                      ", expected " + utohexstr(Tag, true),
                  At);
  Expected<uint32_t> Len = C.count("section length", 1);
  return Len ? Error::success() : Len.takeError();
}

Error Reader::stringTable() {
  if (Error E = section(C, 0xaa000000, "file names section"))
    return E;
  Expected<uint32_t> N = C.count("string count", 4);
  if (!N)
    return N.takeError();
  for (uint32_t K = 0; K < *N; ++K) {
    Expected<StringRef> S = C.str();
    if (!S)
      return S.takeError();
    // gcc keeps each name up to its first '.'.
    Names.push_back(S->take_until([](char Ch) { return Ch == '.'; }));
  }
  return Error::success();
}

Error Reader::positions(FunctionSamples &FS, uint32_t N, uint64_t &Total) {
  for (uint32_t K = 0; K < N; ++K) {
    Expected<uint32_t> Off = C.u32("location");
    if (!Off)
      return Off.takeError();
    Expected<uint32_t> NT = C.count("call target count", 20);
    if (!NT)
      return NT.takeError();
    Expected<uint64_t> Count = C.u64("count");
    if (!Count)
      return Count.takeError();
    uint32_t Line = *Off >> 16, Disc = *Off & 0xffff;
    FS.addBodySamples(Line, Disc, *Count);
    Total = SaturatingAdd(Total, *Count);
    for (uint32_t T = 0; T < *NT; ++T) {
      // The value-profile kind: gcc reads it and does not look at it.
      if (Expected<uint32_t> Kind = C.u32("call target kind"); !Kind)
        return Kind.takeError();
      size_t At = C.pos();
      Expected<uint64_t> Index = C.u64("call target");
      if (!Index)
        return Index.takeError();
      Expected<StringRef> Name = name(*Index, At);
      if (!Name)
        return Name.takeError();
      Expected<uint64_t> TC = C.u64("call target count");
      if (!TC)
        return TC.takeError();
      FS.addCalledTargetSamples(Line, Disc, FunctionId(*Name), *TC);
    }
  }
  return Error::success();
}

Expected<uint64_t> Reader::instance(FunctionSamples &FS, unsigned Depth) {
  size_t At = C.pos();
  if (Depth > MaxDepth)
    return C.fail("inline nesting deeper than " + Twine(MaxDepth), At);
  Expected<uint32_t> NameIx = C.u32("function name");
  if (!NameIx)
    return NameIx.takeError();
  Expected<StringRef> Name = name(*NameIx, At);
  if (!Name)
    return Name.takeError();
  // A location takes at least 16 bytes, an inlined call site 16.
  Expected<uint32_t> NP = C.count("location count", 16);
  if (!NP)
    return NP.takeError();
  Expected<uint32_t> NC = C.count("call site count", 16);
  if (!NC)
    return NC.takeError();
  FS.setFunction(FunctionId(*Name));
  uint64_t Total = 0;
  if (Error E = positions(FS, *NP, Total))
    return std::move(E);
  for (uint32_t K = 0; K < *NC; ++K) {
    Expected<uint32_t> Site = C.u32("call site");
    if (!Site)
      return Site.takeError();
    FunctionSamples Callee;
    Expected<uint64_t> Sub = instance(Callee, Depth + 1);
    if (!Sub)
      return Sub.takeError();
    Total = SaturatingAdd(Total, *Sub);
    LineLocation L(*Site >> 16, *Site & 0xffff);
    FS.functionSamplesAt(L)[Callee.getFunction()].merge(Callee);
  }
  FS.addTotalSamples(Total);
  return Total;
}

} // namespace

Expected<GcovAfdoProfile> readGcovAfdo(MemoryBufferRef Buffer) {
  Reader R{Cursor(Buffer), {}};
  GcovAfdoProfile P;
  UniqueStringSaver Saver(*P.Names);
  if (Error E = R.header())
    return std::move(E);
  if (Error E = R.stringTable())
    return std::move(E);
  for (StringRef &N : R.Names)
    N = Saver.save(N);
  if (Error E = section(R.C, 0xac000000, "function section"))
    return std::move(E);
  // A function takes at least 20 bytes: its head count and three words.
  Expected<uint32_t> NF = R.C.count("function count", 20);
  if (!NF)
    return NF.takeError();
  for (uint32_t K = 0; K < *NF; ++K) {
    Expected<uint64_t> Head = R.C.u64("head count");
    if (!Head)
      return Head.takeError();
    FunctionSamples FS;
    FS.addHeadSamples(*Head);
    if (Expected<uint64_t> T = R.instance(FS, 0); !T)
      return T.takeError();
    P.Profiles.create(FS.getContext()).merge(FS);
  }
  size_t At = R.C.pos();
  if (Error E = section(R.C, 0xae000000, "module grouping section"))
    return std::move(E);
  Expected<uint32_t> Modules = R.C.u32("module count");
  if (!Modules)
    return Modules.takeError();
  if (*Modules != 0)
    return R.C.fail("module grouping section lists " + Twine(*Modules) +
                        " modules; gcc accepts none (LIPO only)",
                    At);
  return std::move(P);
}

Error printGcovAfdo(GcovAfdoProfile &P, raw_ostream &OS) {
  std::string Text;
  {
    std::unique_ptr<raw_ostream> S = std::make_unique<raw_string_ostream>(Text);
    auto W = SampleProfileWriter::create(S, SPF_Text);
    if (!W)
      return makeError("cannot print the profile: {0}", W.getError().message());
    if (std::error_code EC = (*W)->write(P.Profiles))
      return makeError("cannot print the profile: {0}", EC.message());
  }
  OS << Text;
  return Error::success();
}

} // namespace lbr2prof
