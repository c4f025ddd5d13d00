//===- TextReport.cpp - the report as aligned text tables -----------------===//
//
// One section per view, each opening with a line that says what is counted
// and over how many items; rows are cut to --top. Percentages have two
// decimals so that tests can pin them.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Report/Report.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace lbr2prof {

static std::string pct(uint64_t N, uint64_t Of) {
  if (!Of)
    return "-";
  return formatv("{0:f2}%", 100.0 * double(N) / double(Of)).str();
}

static const char *sortName(ReportSort S) {
  switch (S) {
  case ReportSort::Count:
    return "count";
  case ReportSort::Mispred:
    return "mispredictions";
  case ReportSort::MispredRate:
    return "mispredict rate";
  case ReportSort::Cycles:
    return "average cycles";
  }
  return "";
}

/// "f+0x2..f+0x8" for a block, or the addresses when it has no function.
static std::string blockName(const ReportLoc &S, const ReportLoc &E) {
  auto One = [](const ReportLoc &L) {
    if (L.Function.empty())
      return formatv("{0:x}", L.Addr).str();
    return formatv("{0}+{1:x}", L.Function, L.FuncOffset).str();
  };
  return One(S) + ".." + One(E);
}

static void printHistogram(const BlockRow &R, raw_ostream &OS) {
  OS << "\nCycles histogram of block " << formatLoc(R.Start) << " .. "
     << formatLoc(R.End) << " (" << R.Count << " measurements):\n";
  OS << "  cycles        count    share\n";
  unsigned Lo = CycleBins, Hi = 0;
  uint64_t Peak = 0;
  for (unsigned B = 0; B < CycleBins; ++B)
    if (R.Bins[B]) {
      Lo = std::min(Lo, B);
      Hi = B;
      Peak = std::max(Peak, R.Bins[B]);
    }
  for (unsigned B = Lo; B <= Hi && Lo < CycleBins; ++B) {
    unsigned Bar = Peak ? unsigned((R.Bins[B] * 40 + Peak - 1) / Peak) : 0;
    OS << formatv("  {0,-11} {1,7} {2,8}", cycleBinLabel(B), R.Bins[B],
                  pct(R.Bins[B], R.Count));
    if (Bar)
      OS << "  " << std::string(Bar, '#');
    OS << '\n';
  }
  if (R.Values.size() <= 16) {
    OS << "  exact values:";
    for (auto &[C, N] : R.Values)
      OS << ' ' << C << 'x' << N;
    OS << '\n';
  }
}

/// The function table: where sample IPs fell, taken branches and
/// mispredictions by source, their estimated cost, and block latency.
static void printFunctions(const ReportData &D, bool HasCycles,
                           raw_ostream &OS) {
  OS << "\nFunctions (" << D.FunctionRowsAll
     << " with samples or taken branches; by samples; share of all "
     << D.Samples << " samples; cycles lost = mispredictions x "
     << D.MispredictPenalty << " cycles):\n";
  OS << " samples    share    taken  mispred     rate  cyc-lost  cyc/block  "
        "function\n";
  for (const FunctionRow &R : D.Functions) {
    std::string PerBlock =
        HasCycles && R.BlockCount
            ? formatv("{0:f2}", double(R.BlockCycles) / double(R.BlockCount))
                  .str()
            : "-";
    OS << formatv("{0,8} {1,8} {2,8} {3,8} {4,8} {5,9} {6,10}  {7}\n",
                  R.Samples, pct(R.Samples, D.Samples), R.Taken, R.Mispred,
                  pct(R.Mispred, R.Taken),
                  R.Mispred * uint64_t(D.MispredictPenalty), PerBlock, R.Name);
  }
  if (D.Functions.empty())
    OS << "  (none)\n";
  OS << "note: samples = sample IPs in the function (self, as perf report "
        "without -g); taken and mispred count entries whose source is in "
        "it; cycles lost only counts taken branches' mispredictions (a "
        "not-taken one leaves no entry)";
  if (HasCycles)
    OS << "; cyc/block = mean cycles of the blocks starting in it";
  OS << "\n";

  OS << "\nFiles (" << D.DsoRowsAll << " mapped files; share of all "
     << D.Samples << " samples):\n";
  OS << " samples    share    taken  mispred  file\n";
  for (const DsoRow &R : D.Dsos)
    OS << formatv("{0,8} {1,8} {2,8} {3,8}  {4}\n", R.Samples,
                  pct(R.Samples, D.Samples), R.Taken, R.Mispred, R.Path);
  if (D.Dsos.empty())
    OS << "  (none)\n";
}

/// The call tree top-down: nodes with at least 0.5% of the samples, 32
/// levels deep at most.
static void printCallTree(const ReportData &D, raw_ostream &OS) {
  const char *From = D.Flame == FlameSource::CallStacks
                         ? "from the samples' call stacks (-g)"
                         : "from call/return pairs in the branch stacks; "
                           "a stack starts at the oldest entry";
  if (D.FlameNodes.empty()) {
    OS << "\nCall tree (no call stacks and no branch stacks kept: raw "
          "profiles do not keep them):\n  (none)\n";
    return;
  }
  uint64_t All = D.FlameNodes[0].Total;
  OS << "\nCall tree (" << From << "; " << All
     << " samples; total = in the function or its callees, self = in it; "
        "shown down to 0.5%):\n";
  OS << "   total    share     self  function\n";
  std::vector<std::pair<int, unsigned>> Work;
  for (size_t I = D.FlameNodes[0].Children.size(); I-- > 0;)
    Work.push_back({D.FlameNodes[0].Children[I], 0});
  bool Any = false;
  while (!Work.empty()) {
    auto [N, Depth] = Work.back();
    Work.pop_back();
    const FlameNode &F = D.FlameNodes[N];
    if (F.Total * 200 < All || Depth >= 32)
      continue;
    Any = true;
    OS << formatv("{0,8} {1,8} {2,8}  {3}{4}\n", F.Total, pct(F.Total, All),
                  F.Self, std::string(2 * Depth, ' '), F.Name);
    for (size_t I = F.Children.size(); I-- > 0;)
      Work.push_back({F.Children[I], Depth + 1});
  }
  if (!Any)
    OS << "  (none)\n";
}

/// "2-3:2 16-31:1": the used log2 bins of a cycles histogram.
static std::string binsText(const std::array<uint64_t, CycleBins> &Bins) {
  std::string S;
  for (unsigned B = 0; B < CycleBins; ++B)
    if (Bins[B])
      S += (S.empty() ? "" : " ") + cycleBinLabel(B) + ":" +
           std::to_string(Bins[B]);
  return S;
}

/// --annotate's functions: source lines, then each instruction with its
/// samples and executions; a branch adds taken / fall-through counts, the
/// mispredict rate and the cycles of the block it ends.
static void printAnnotated(const ReportData &D, raw_ostream &OS) {
  for (const AnnotatedFunction &A : D.Annotated) {
    OS << formatv("\nAnnotated {0} ({1:x}-{2:x}; {3} samples; count = "
                  "executions seen in the branch stacks' fall-through "
                  "ranges; '>' starts a block):\n",
                  A.Name, A.Start, A.End, A.Samples);
    OS << " samples    count  address   instruction\n";
    for (const AnnotatedInst &I : A.Insts) {
      if (I.NewLine)
        OS << "                           " << I.File << ":" << I.Line
           << (I.SourceText.empty() ? "" : "  " + I.SourceText) << "\n";
      OS << formatv("{0,8} {1,8} {2}{3,8:x-}  {4}", I.Samples, I.Count,
                    I.BlockStart ? '>' : ' ', I.Addr, I.Text);
      if (I.Branch && (I.Taken || I.FallThrough))
        OS << formatv("   [taken {0}, fall-through {1}, mispredicted {2} "
                      "({3})",
                      I.Taken, I.FallThrough, I.Mispred,
                      pct(I.Mispred, I.Taken));
      if (I.Branch && (I.Taken || I.FallThrough)) {
        if (I.Measurements)
          OS << ", cycles " << binsText(I.Bins);
        OS << "]";
      }
      OS << "\n";
    }
  }
}

void printTextReport(const ReportData &D, raw_ostream &OS) {
  OS << "lbr2prof report: ";
  for (size_t I = 0; I < D.Inputs.size(); ++I)
    OS << (I ? ", " : "") << D.Inputs[I];
  OS << "\nbinary: " << D.BinaryPath << '\n';
  OS << "samples: " << D.Samples << " (" << D.SamplesWithBranches
     << " with a branch stack); branch entries: " << D.Entries << " ("
     << D.EntriesInBinary << " with an end in this binary)\n";
  bool HasCycles = D.EntriesWithCycles > 0;
  if (HasCycles)
    OS << "cycles: " << D.EntriesWithCycles << " of " << D.Entries
       << " entries carry a cycles count\n";
  else
    OS << "cycles: not recorded (every entry's cycles field is 0, as on AMD "
          "LBRv2/BRS or with no_cycles): the latency view is skipped\n";
  printFunctions(D, HasCycles, OS);

  OS << "\nHot taken branches (" << D.BranchRowsAll
     << " distinct; by " << sortName(D.Sort) << "; share of all " << D.Entries
     << " entries):\n";
  OS << "   count    share  mispred     rate  cycles  from -> to\n";
  for (const BranchRow &R : D.Branches) {
    std::string Cyc =
        HasCycles ? formatv("{0:f1}", double(R.CyclesSum) / double(R.Count))
                        .str()
                  : "-";
    OS << formatv("{0,8} {1,8} {2,8} {3,8} {4,7}  {5} -> {6}\n", R.Count,
                  pct(R.Count, D.Entries), R.Mispred, pct(R.Mispred, R.Count),
                  Cyc, formatLoc(R.From), formatLoc(R.To));
  }
  if (D.Branches.empty())
    OS << "  (none)\n";
  OS << "note: mispredict rates count the M flag of sampled entries: none "
        "seen among N entries is no proof of perfect prediction (rates up to "
        "about 3/N go unseen at 95% confidence), and a not-taken conditional "
        "branch leaves no entry, so its mispredictions are never seen\n";
  if (HasCycles)
    OS << "note: cycles = average cycles field of the branch's entries: "
          "cycles since the previous branch in the stack, i.e. the latency "
          "of the block that ends with this branch\n";

  OS << "\nConditional branches (" << D.CondRowsAll
     << " seen; taken = entries, not taken = fall-through ranges that run "
        "over the branch):\n";
  OS << "   taken  not-taken  p(taken)  mispred(taken)  branch -> target\n";
  for (const CondRow &R : D.Conds)
    OS << formatv("{0,8} {1,10} {2,9} {3,7} {4,8}  {5} -> {6}\n", R.Taken,
                  R.NotTaken, pct(R.Taken, R.Taken + R.NotTaken),
                  R.MispredTaken, pct(R.MispredTaken, R.Taken),
                  formatLoc(R.Branch),
                  R.Target.Addr ? formatLoc(R.Target) : "?");
  if (D.Conds.empty())
    OS << "  (none)\n";

  OS << "\nIndirect jumps and calls (" << D.IndirectRowsAll
     << " sources, " << D.IndirectTotal << " entries): targets\n";
  for (const IndirectRow &R : D.Indirects) {
    OS << "  " << formatLoc(R.Source)
       << (R.IsCall ? " (indirect call): " : " (indirect jump): ") << R.Total
       << " taken, " << R.Targets.size() << " targets\n";
    for (auto &[T, N] : R.Targets)
      OS << formatv("  {0,8} {1,8}  -> {2}\n", N, pct(N, R.Total),
                    formatLoc(T));
  }
  if (D.Indirects.empty())
    OS << "  (none)\n";

  if (HasCycles) {
    OS << "\nBasic-block latency (" << D.BlockRowsAll << " blocks, "
       << D.BlockTotal
       << " measurements; a block runs from an entry's target to the next "
          "newer entry's source, its latency is that newer entry's cycles):\n";
    OS << "   count      avg    min    p50    p90    max  block\n";
    for (const BlockRow &R : D.Blocks)
      OS << formatv("{0,8} {1,8:f2} {2,6} {3,6} {4,6} {5,6}  {6} .. {7}\n",
                    R.Count, double(R.Sum) / double(R.Count), R.Min, R.P50,
                    R.P90, R.Max, formatLoc(R.Start), formatLoc(R.End));
    if (D.Blocks.empty())
      OS << "  (none)\n";
    for (const BlockRow &R : D.Detail)
      printHistogram(R, OS);
  }

  OS << "\nHot paths (chains of " << D.PathLength
     << " consecutive blocks in one branch stack; " << D.PathRowsAll
     << " distinct, " << D.PathTotal << " occurrences):\n";
  OS << "   count    share  blocks, oldest first\n";
  for (const PathRow &R : D.Paths) {
    OS << formatv("{0,8} {1,8}  ", R.Count, pct(R.Count, D.PathTotal));
    for (size_t J = 0; J < R.Blocks.size(); ++J)
      OS << (J ? " -> " : "")
         << blockName(R.Blocks[J].first, R.Blocks[J].second);
    OS << '\n';
  }
  if (D.Paths.empty())
    OS << "  (none)\n";

  OS << "\nCalls (" << D.CallRowsAll << " caller -> callee pairs, "
     << D.CallTotal << " call entries):\n";
  OS << "   count    share  caller -> callee\n";
  for (const CallRow &R : D.Calls)
    OS << formatv("{0,8} {1,8}  {2} -> {3}\n", R.Count,
                  pct(R.Count, D.CallTotal), R.Caller, R.Callee);
  if (D.Calls.empty())
    OS << "  (none)\n";
  printCallTree(D, OS);
  if (D.AnnotateChosen)
    printAnnotated(D, OS);
}

} // namespace lbr2prof
