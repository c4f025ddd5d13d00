//===- text2perfdata.cpp - readable text to a real perf.data --------------===//
//
// The command line of text2perfdata, in the spirit of LLVM's yaml2obj:
//   text2perfdata INPUT.txt -o OUT.data [--symbols ELF]... [--bias HEX]
// INPUT `-` reads stdin; `-o -` writes stdout (handy for pipe mode). The
// output is written to a temporary file beside OUT and renamed on success.
// Errors print one line `text2perfdata: error: FILE:LINE: ...` and exit 1.
// The text format is documented in docs/text2perfdata.md.
//
//===----------------------------------------------------------------------===//
#include "Builder.h"
#include "ElfSymbols.h"
#include "Layout.h"
#include "Model.h"
#include "Text.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace lbr2prof::t2p;

namespace {

const char *const Usage =
    "usage: text2perfdata INPUT -o OUTPUT [--symbols ELF]... [--bias HEX]\n"
    "  INPUT    text description ('-' = stdin); see docs/text2perfdata.md\n"
    "  -o FILE  perf.data to write ('-' = stdout)\n"
    "  --symbols ELF  resolve @name@ / @name+OFF@ to ELF symbol values\n"
    "                 (repeatable; the first file defining a name wins)\n"
    "  --bias HEX     added to every --symbols value (e.g. a PIE load base)\n";

int fail(const std::string &Msg) {
  std::fprintf(stderr, "text2perfdata: error: %s\n", Msg.c_str());
  return 1;
}

bool writeAll(int Fd, const std::vector<uint8_t> &B) {
  size_t Done = 0;
  while (Done < B.size()) {
    ssize_t N = ::write(Fd, B.data() + Done, B.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Done += (size_t)N;
  }
  return true;
}

/// Writes \p B to \p Path through a temporary file and rename().
bool writeAtomically(const std::string &Path, const std::vector<uint8_t> &B,
                     std::string &Err) {
  std::string Tmp = Path + ".tmp-XXXXXX";
  std::vector<char> Name(Tmp.begin(), Tmp.end());
  Name.push_back(0);
  int Fd = mkstemp(Name.data());
  if (Fd < 0) {
    Err = Path + ": cannot create a temporary file: " + std::strerror(errno);
    return false;
  }
  bool Ok = writeAll(Fd, B);
  Ok = (::close(Fd) == 0) && Ok;
  if (Ok && std::rename(Name.data(), Path.c_str()) != 0)
    Ok = false;
  if (!Ok) {
    Err = Path + ": cannot write: " + std::strerror(errno);
    std::remove(Name.data());
  }
  return Ok;
}

} // namespace

int main(int Argc, char **Argv) {
  std::string Input, Output;
  std::vector<std::string> SymbolFiles;
  uint64_t Bias = 0;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Value = [&](const std::string &Opt, std::string &Dst) {
      if (A.compare(0, Opt.size() + 1, Opt + "=") == 0) {
        Dst = A.substr(Opt.size() + 1);
        return true;
      }
      if (A == Opt && I + 1 < Argc) {
        Dst = Argv[++I];
        return true;
      }
      return false;
    };
    std::string V;
    if (A == "-h" || A == "--help") {
      std::fputs(Usage, stdout);
      return 0;
    } else if (Value("-o", V) || Value("--output", V)) {
      Output = V;
    } else if (Value("--symbols", V)) {
      SymbolFiles.push_back(V);
    } else if (Value("--bias", V)) {
      std::string Why;
      if (!parseNumber(V, {}, Bias, Why))
        return fail("--bias: " + Why);
    } else if (A == "-" || A.empty() || A[0] != '-') {
      if (!Input.empty())
        return fail("more than one input given ('" + Input + "', '" + A +
                    "'); see --help");
      Input = A;
    } else {
      return fail("unknown option '" + A + "'; see --help");
    }
  }
  if (Input.empty() || Output.empty())
    return fail("expected an input and -o OUTPUT; see --help");

  LabelMap Labels;
  for (const std::string &S : SymbolFiles) {
    std::string Err;
    if (!readElfSymbols(S, Bias, Labels, Err))
      return fail(Err);
  }

  std::string Text;
  std::string Shown = Input == "-" ? "<stdin>" : Input;
  if (Input == "-") {
    Text.assign(std::istreambuf_iterator<char>(std::cin),
                std::istreambuf_iterator<char>());
  } else {
    std::ifstream F(Input, std::ios::binary);
    if (!F)
      return fail(Input + ": cannot open: " + std::strerror(errno));
    Text.assign(std::istreambuf_iterator<char>(F),
                std::istreambuf_iterator<char>());
  }

  Diag D;
  Description Desc;
  Builder B(Desc, D, Labels);
  unsigned LineNo = 0;
  std::istringstream Lines(Text);
  std::string Line;
  while (std::getline(Lines, Line)) {
    ++LineNo;
    Directive Dir;
    if (!lexLine(Line, LineNo, Dir, D))
      break;
    if (Dir.Keyword.empty())
      continue;
    if (!B.add(Dir))
      break;
  }
  std::vector<uint8_t> Out;
  if (!D.failed())
    B.finish(LineNo);
  if (!D.failed())
    layoutPerfData(Desc, Out, D);
  if (D.failed()) {
    if (D.line())
      return fail(Shown + ":" + std::to_string(D.line()) + ": " + D.message());
    return fail(Shown + ": " + D.message());
  }

  if (Output == "-") {
    if (!writeAll(1, Out))
      return fail("<stdout>: write failed");
    return 0;
  }
  std::string Err;
  if (!writeAtomically(Output, Out, Err))
    return fail(Err);
  return 0;
}
