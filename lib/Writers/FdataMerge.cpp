//===- FdataMerge.cpp - sum BOLT fdata files ------------------------------===//
//
// `lbr2prof merge a.fdata b.fdata -o all.fdata`, what BOLT's merge-fdata
// does, without its known faults (REFERENCE.md 2.3): the mispredictions
// are summed, not part of the key; no_lbr files merge (with the same
// events); any number of files, each read and closed in turn, with memory
// bounded by the distinct lines; and the output is sorted, so any order
// and grouping of the inputs gives the same bytes.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Writers/Fdata.h"
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Support/OutputFile.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include <algorithm>
#include <optional>

using namespace llvm;

namespace lbr2prof {

namespace {

/// What a file's header says; every input must say the same.
struct FdataHeader {
  bool Bolted = false;   ///< "boltedcollection": collected on a BOLTed binary
  std::optional<std::string> NoLbr; ///< "no_lbr EVENTS": IP samples
  bool operator==(const FdataHeader &O) const {
    return Bolted == O.Bolted && NoLbr == O.NoLbr;
  }
  std::string describe() const {
    std::string S = NoLbr ? "IP samples (" + *NoLbr + ")" : "branches (LBR)";
    if (Bolted)
      S += ", collected on a BOLTed binary";
    return S;
  }
};

/// The summed lines: the key is the line without its counts (the
/// locations), the value the counts (mispredictions and count for a branch,
/// count alone for an IP sample or a memory access).
struct FdataSums {
  StringMap<SmallVector<uint64_t, 2>> Lines;
};

/// How many trailing numbers a line of this shape has: LBR branch lines
/// are 6 location fields then mispredictions and count, memory lines
/// (kinds 3-5) 6 then a count, no_lbr lines 3 then a count.
std::optional<unsigned> countFields(size_t Tokens, bool NoLbr,
                                    StringRef Kind) {
  if (NoLbr)
    return Tokens == 4 ? std::optional<unsigned>(1) : std::nullopt;
  if (Tokens == 8 && (Kind == "0" || Kind == "1" || Kind == "2"))
    return 2;
  if (Tokens == 7 && (Kind == "3" || Kind == "4" || Kind == "5"))
    return 1;
  return std::nullopt;
}

/// Line's space-separated fields; a backslash keeps the next character in
/// the field (BOLT escapes spaces in names so).
void splitFields(StringRef Line, SmallVectorImpl<StringRef> &Out) {
  size_t Start = StringRef::npos;
  for (size_t K = 0; K <= Line.size(); ++K) {
    bool End = K == Line.size() || Line[K] == ' ';
    if (!End && Line[K] == '\\' && K + 1 < Line.size()) {
      if (Start == StringRef::npos)
        Start = K;
      ++K;
      continue;
    }
    if (End) {
      if (Start != StringRef::npos)
        Out.push_back(Line.slice(Start, K));
      Start = StringRef::npos;
    } else if (Start == StringRef::npos) {
      Start = K;
    }
  }
}

Error readFdataFile(StringRef Path, std::optional<FdataHeader> &Want,
                    FdataSums &Sums) {
  auto Buf = MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/true);
  if (!Buf)
    return makeError("{0}: cannot open: {1}", Path, Buf.getError().message());
  StringRef Text = (*Buf)->getBuffer();
  InputLocation At;
  At.File = Path.str();
  FdataHeader H;
  SmallVector<StringRef, 8> Tok;
  bool Body = false;
  for (uint64_t LineNo = 1; !Text.empty(); ++LineNo) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    At.Line = LineNo;
    Line = Line.rtrim("\r");
    if (Line.trim().empty())
      continue;
    if (!Body && Line == "boltedcollection") {
      H.Bolted = true;
      continue;
    }
    if (!Body && Line.starts_with("no_lbr")) {
      H.NoLbr = Line.drop_front(6).trim().str();
      continue;
    }
    if (!Body) {
      Body = true;
      if (!Want)
        Want = H;
      else if (!(*Want == H))
        return inputError(At, "its lines are " + H.describe() +
                                  ", the inputs before it " +
                                  Want->describe() + ": they cannot be added");
    }
    Tok.clear();
    splitFields(Line, Tok);
    std::optional<unsigned> N =
        countFields(Tok.size(), H.NoLbr.has_value(), Tok[0]);
    if (!N)
      return inputError(
          At, "expected an fdata line (" +
                  Twine(H.NoLbr ? "KIND NAME OFFSET COUNT"
                                : "KIND NAME OFFSET KIND NAME OFFSET "
                                  "MISPREDS COUNT") +
                  "), got " + Twine(Tok.size()) + " fields");
    SmallVector<uint64_t, 2> Counts;
    for (size_t K = Tok.size() - *N; K < Tok.size(); ++K) {
      uint64_t V;
      if (Tok[K].getAsInteger(10, V))
        return inputError(At, "expected a count, got '" + Tok[K] + "'");
      Counts.push_back(V);
    }
    // The key is the location fields as written (names escaped by the
    // writer), one space apart.
    std::string Key;
    for (size_t K = 0; K + *N < Tok.size(); ++K) {
      if (K)
        Key += ' ';
      Key += Tok[K];
    }
    auto [It, New] = Sums.Lines.try_emplace(Key, Counts);
    if (!New)
      for (size_t K = 0; K < Counts.size(); ++K)
        It->second[K] = SaturatingAdd(It->second[K], Counts[K]);
  }
  // A file with a header and no lines still says what it is.
  if (!Body && !Want)
    Want = H;
  return Error::success();
}

} // namespace

Error mergeFdataFiles(ArrayRef<std::string> Inputs, StringRef Output) {
  std::optional<FdataHeader> Header;
  FdataSums Sums;
  for (const std::string &In : Inputs)
    if (Error E = readFdataFile(In, Header, Sums))
      return E;
  std::vector<std::pair<StringRef, const SmallVector<uint64_t, 2> *>> Rows;
  Rows.reserve(Sums.Lines.size());
  for (const auto &E : Sums.Lines)
    Rows.push_back({E.getKey(), &E.getValue()});
  std::sort(Rows.begin(), Rows.end(),
            [](const auto &A, const auto &B) { return A.first < B.first; });
  Expected<std::unique_ptr<AtomicOutputFile>> F =
      AtomicOutputFile::create(Output);
  if (!F)
    return F.takeError();
  raw_ostream &OS = (*F)->os();
  if (Header && Header->Bolted)
    OS << "boltedcollection\n";
  if (Header && Header->NoLbr)
    OS << "no_lbr" << (Header->NoLbr->empty() ? "" : " ") << *Header->NoLbr
       << "\n";
  for (const auto &[Key, Counts] : Rows) {
    OS << Key;
    for (uint64_t C : *Counts)
      OS << ' ' << C;
    OS << '\n';
  }
  return (*F)->commit();
}

} // namespace lbr2prof
