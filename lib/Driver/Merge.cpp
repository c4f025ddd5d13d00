//===- Merge.cpp - lbr2prof merge -----------------------------------------===//
#include "lbr2prof/Driver/Merge.h"
#include "lbr2prof/Aggregate/RawProfileFile.h"
#include "lbr2prof/Driver/Generate.h"
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Writers/Fdata.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <cmath>
#include <ctime>

using namespace llvm;

namespace lbr2prof {

Expected<double> parseDuration(StringRef S, StringRef Option) {
  StringRef Num = S.take_while([](char C) { return isDigit(C) || C == '.'; });
  StringRef Unit = S.drop_front(Num.size());
  double Scale = Unit.empty() || Unit == "s" ? 1
                 : Unit == "m"               ? 60
                 : Unit == "h"               ? 3600
                 : Unit == "d"               ? 86400
                 : Unit == "w"               ? 604800
                                             : 0;
  double V;
  if (Scale == 0 || Num.empty() || Num.getAsDouble(V) || !(V > 0) ||
      !std::isfinite(V))
    return makeError("{0} {1}: expected a positive duration: seconds, or a "
                     "number with a unit s, m, h, d or w (e.g. 7d)",
                     Option, S);
  return V * Scale;
}

/// --decay-to: seconds since 1970, or a UTC date YYYY-MM-DD.
static Expected<int64_t> parseTime(StringRef S) {
  int64_t T;
  if (!S.getAsInteger(10, T) && T > 0)
    return T;
  unsigned Y, M, D;
  char Rest;
  std::string Str = S.str();
  if (std::sscanf(Str.c_str(), "%4u-%2u-%2u%c", &Y, &M, &D, &Rest) == 3 &&
      Y >= 1970 && M >= 1 && M <= 12 && D >= 1 && D <= 31) {
    std::tm Tm = {};
    Tm.tm_year = int(Y) - 1900;
    Tm.tm_mon = int(M) - 1;
    Tm.tm_mday = int(D);
    return int64_t(timegm(&Tm));
  }
  return makeError("--decay-to {0}: expected seconds since 1970 or a date "
                   "YYYY-MM-DD (UTC)",
                   S);
}

/// --weight FILE=W, for each FILE an input.
static Expected<std::map<std::string, double>>
parseWeights(ArrayRef<std::string> Specs, ArrayRef<std::string> Inputs) {
  std::map<std::string, double> W;
  for (StringRef Spec : Specs) {
    size_t Eq = Spec.rfind('=');
    double V;
    if (Eq == StringRef::npos || Spec.drop_front(Eq + 1).getAsDouble(V) ||
        !(V > 0) || !std::isfinite(V))
      return makeError("--weight {0}: expected FILE=W with W a positive "
                       "number (e.g. host1.lbrraw=0.5)",
                       Spec);
    StringRef File = Spec.take_front(Eq);
    if (!llvm::is_contained(Inputs, File))
      return makeError("--weight {0}: {1} is not one of the inputs (give it "
                       "as it is given to merge)",
                       Spec, File);
    if (!W.emplace(File.str(), V).second)
      return makeError("--weight {0}: {1} has a weight already", Spec, File);
  }
  return W;
}

static bool startsWith(StringRef Path, StringRef Magic) {
  auto Buf = MemoryBuffer::getFileSlice(Path, Magic.size(), 0,
                                        /*IsVolatile=*/false);
  return Buf && (*Buf)->getBuffer() == Magic;
}

/// fdata files into one: every input must be fdata, and the options about
/// recordings and weights do not apply.
static Error mergeFdata(const MergeOptions &Opts) {
  auto Refuse = [](StringRef What) {
    return makeError("{0} does not apply to an fdata merge (-o x.fdata): it "
                     "is for raw profiles and recordings (-o x.lbrraw)",
                     What);
  };
  if (!Opts.Weights.empty())
    return Refuse("--weight");
  if (!Opts.Decay.empty() || !Opts.DecayTo.empty())
    return Refuse("--decay");
  if (!Opts.Pids.empty())
    return Refuse("--pid");
  if (!Opts.WindowWeighting)
    return Refuse("--no-window-weighting");
  if (Opts.WithReport)
    return Refuse("--with-report");
  for (const std::string &In : Opts.Inputs) {
    bool Raw = In != "-" && isRawProfileFile(In);
    if (Raw || In == "-" || startsWith(In, "PERFILE2"))
      return makeError("{0}: {1}; an fdata merge (-o x.fdata) sums fdata "
                       "files: merge into a .lbrraw, then write fdata from "
                       "it (lbr2prof all.lbrraw --binary app -o app.fdata)",
                       In,
                       Raw ? "a raw profile" : In == "-" ? "stdin" : "a perf.data");
  }
  return mergeFdataFiles(Opts.Inputs, Opts.Output);
}

Error runMerge(const MergeOptions &Opts, raw_ostream &Out, raw_ostream &Err) {
  StringRef Ext = sys::path::extension(Opts.Output);
  if (Ext == ".fdata")
    return mergeFdata(Opts);
  // A merge writes a raw profile; a name that says otherwise would hold
  // something its readers cannot read.
  if (Ext != ".lbrraw")
    return makeError("{0}: merge writes a raw profile (.lbrraw) or fdata "
                     "(.fdata): name it so (then, e.g., lbr2prof all.lbrraw "
                     "--binary app -o app.prof)",
                     Opts.Output);
  GenerateOptions G;
  G.Inputs = Opts.Inputs;
  G.Output = Opts.Output;
  G.Format = OutputFormat::Raw;
  G.Pids = Opts.Pids;
  G.WindowWeighting = Opts.WindowWeighting;
  G.Threads = Opts.Threads;
  G.WithReport = Opts.WithReport;
  Expected<std::map<std::string, double>> W =
      parseWeights(Opts.Weights, Opts.Inputs);
  if (!W)
    return W.takeError();
  G.Weights = std::move(*W);
  if (!Opts.Decay.empty()) {
    Expected<double> H = parseDuration(Opts.Decay, "--decay");
    if (!H)
      return H.takeError();
    G.DecayHalfLife = *H;
  }
  if (!Opts.DecayTo.empty()) {
    if (Opts.Decay.empty())
      return makeError("--decay-to needs --decay (the half-life)");
    Expected<int64_t> T = parseTime(Opts.DecayTo);
    if (!T)
      return T.takeError();
    G.DecayTo = *T;
  }
  return runGenerate(G, Out, Err);
}

} // namespace lbr2prof
