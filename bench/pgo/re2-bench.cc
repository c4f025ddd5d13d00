// re2-bench.cc: the workload driver for re2 in bench/pgo. It runs a list of
// regular-expression operations over a text and prints one count per
// operation, so every build's output can be compared with -O2's.
//
//   re2-bench PATTERNS TEXT
//
// PATTERNS holds one operation per line, "OP<TAB>REGEX":
//   match    lines where RE2::PartialMatch finds REGEX (first group captured)
//   icase    the same, case-insensitive
//   full     lines that RE2::FullMatch matches
//   find     matches in the whole text, by RE2::FindAndConsume
//   replace  RE2::GlobalReplace on each line with "<\0>": replacements made
//   set      REGEX joins one RE2::Set (unanchored); after the other
//            operations, each line is matched against the set and the
//            number of (line, pattern) hits is printed
// Lines starting with '#' are comments. The mix of operations is the
// workload: training and evaluation files use other ones in other
// proportions.
#include "re2/re2.h"
#include "re2/set.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string readFile(const char *Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    std::fprintf(stderr, "re2-bench: cannot read %s\n", Path);
    std::exit(1);
  }
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

std::vector<re2::StringPiece> splitLines(const std::string &Text) {
  std::vector<re2::StringPiece> Lines;
  size_t Start = 0;
  while (Start < Text.size()) {
    size_t End = Text.find('\n', Start);
    if (End == std::string::npos)
      End = Text.size();
    Lines.emplace_back(Text.data() + Start, End - Start);
    Start = End + 1;
  }
  return Lines;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc != 3) {
    std::fprintf(stderr, "usage: re2-bench PATTERNS TEXT\n");
    return 2;
  }
  const std::string Ops = readFile(Argv[1]);
  const std::string Text = readFile(Argv[2]);
  const std::vector<re2::StringPiece> Lines = splitLines(Text);
  re2::RE2::Options SetOpts;
  re2::RE2::Set Set(SetOpts, re2::RE2::UNANCHORED);
  int SetSize = 0;

  std::istringstream OpStream(Ops);
  std::string Line;
  while (std::getline(OpStream, Line)) {
    if (Line.empty() || Line[0] == '#')
      continue;
    size_t Tab = Line.find('\t');
    if (Tab == std::string::npos) {
      std::fprintf(stderr, "re2-bench: no tab in '%s'\n", Line.c_str());
      return 2;
    }
    const std::string Op = Line.substr(0, Tab), Pat = Line.substr(Tab + 1);
    if (Op == "set") {
      if (Set.Add(Pat, nullptr) < 0) {
        std::fprintf(stderr, "re2-bench: bad set pattern '%s'\n", Pat.c_str());
        return 2;
      }
      ++SetSize;
      continue;
    }
    re2::RE2::Options Opts;
    Opts.set_case_sensitive(Op != "icase");
    re2::RE2 Re(Pat, Opts);
    if (!Re.ok()) {
      std::fprintf(stderr, "re2-bench: bad pattern '%s': %s\n", Pat.c_str(),
                   Re.error().c_str());
      return 2;
    }
    long Count = 0;
    size_t Bytes = 0;
    if (Op == "match" || Op == "icase") {
      std::string Group;
      for (const re2::StringPiece &L : Lines)
        if (Re.NumberOfCapturingGroups() > 0
                ? re2::RE2::PartialMatch(L, Re, &Group)
                : re2::RE2::PartialMatch(L, Re)) {
          ++Count;
          Bytes += Group.size();
        }
    } else if (Op == "full") {
      for (const re2::StringPiece &L : Lines)
        Count += re2::RE2::FullMatch(L, Re);
    } else if (Op == "find") {
      re2::StringPiece Input(Text);
      re2::StringPiece Whole;
      // The whole match, then as many groups as the pattern has (up to 1).
      while (Re.NumberOfCapturingGroups() > 0
                 ? re2::RE2::FindAndConsume(&Input, Re, &Whole)
                 : re2::RE2::FindAndConsume(&Input, Re)) {
        ++Count;
        Bytes += Whole.size();
        if (Input.empty())
          break;
      }
    } else if (Op == "replace") {
      for (const re2::StringPiece &L : Lines) {
        std::string Copy(L.data(), L.size());
        Count += re2::RE2::GlobalReplace(&Copy, Re, "<\\0>");
        Bytes += Copy.size();
      }
    } else {
      std::fprintf(stderr, "re2-bench: unknown operation '%s'\n", Op.c_str());
      return 2;
    }
    std::printf("%-8s %8ld %10zu  %s\n", Op.c_str(), Count, Bytes, Pat.c_str());
  }
  if (SetSize > 0) {
    if (!Set.Compile()) {
      std::fprintf(stderr, "re2-bench: the set does not compile\n");
      return 2;
    }
    long Hits = 0, Lines1 = 0;
    std::vector<int> Which;
    for (const re2::StringPiece &L : Lines) {
      if (Set.Match(L, &Which)) {
        ++Lines1;
        Hits += static_cast<long>(Which.size());
      }
    }
    std::printf("set      %8ld %10ld  (%d patterns)\n", Lines1, Hits, SetSize);
  }
  return 0;
}
