//===- HtmlReport.cpp - the report as one self-contained HTML page --------===//
//
// The same tables as the text report, plus plots drawn as inline SVG that
// we generate here: horizontal bars for the hot branches, stacked
// taken/not-taken bars for conditional branches, and a cycles histogram per
// detailed block. No script, no external style sheet or font: the page
// renders offline. Colours: taken/count bars #1f77b4, not-taken #ff7f0e,
// latency histograms #d62728 (tests look for that red in a screenshot).
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Report/Report.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include <algorithm>

using namespace llvm;

namespace lbr2prof {

static std::string esc(StringRef S) {
  std::string R;
  for (char C : S) {
    switch (C) {
    case '<': R += "&lt;"; break;
    case '>': R += "&gt;"; break;
    case '&': R += "&amp;"; break;
    case '"': R += "&quot;"; break;
    default: R += C;
    }
  }
  return R;
}

static std::string pct(uint64_t N, uint64_t Of) {
  if (!Of)
    return "-";
  return formatv("{0:f2}%", 100.0 * double(N) / double(Of)).str();
}

static std::string locHtml(const ReportLoc &L) {
  return "<code>" + esc(formatLoc(L)) + "</code>";
}

/// Horizontal bars, one per label, values scaled to the largest.
static void barChart(raw_ostream &OS, ArrayRef<std::string> Labels,
                     ArrayRef<uint64_t> A, ArrayRef<uint64_t> B,
                     StringRef Title) {
  const unsigned Row = 18, LabelW = 360, BarW = 420;
  uint64_t Peak = 1;
  for (size_t I = 0; I < A.size(); ++I)
    Peak = std::max(Peak, A[I] + (B.empty() ? 0 : B[I]));
  unsigned H = unsigned(Labels.size()) * Row + 30;
  OS << formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
                "height=\"{1}\" role=\"img\"><title>{2}</title>\n",
                LabelW + BarW + 80, H, esc(Title));
  for (size_t I = 0; I < Labels.size(); ++I) {
    unsigned Y = 20 + unsigned(I) * Row;
    double WA = double(BarW) * double(A[I]) / double(Peak);
    OS << formatv("<text x=\"{0}\" y=\"{1}\" font-size=\"11\" "
                  "text-anchor=\"end\" font-family=\"monospace\">{2}</text>",
                  LabelW - 6, Y + 12, esc(Labels[I]));
    OS << formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2:f1}\" height=\"{3}\" "
                  "fill=\"#1f77b4\"/>",
                  LabelW, Y + 2, WA, Row - 4);
    double WB = 0;
    if (!B.empty()) {
      WB = double(BarW) * double(B[I]) / double(Peak);
      OS << formatv("<rect x=\"{0:f1}\" y=\"{1}\" width=\"{2:f1}\" "
                    "height=\"{3}\" fill=\"#ff7f0e\"/>",
                    LabelW + WA, Y + 2, WB, Row - 4);
    }
    OS << formatv("<text x=\"{0:f1}\" y=\"{1}\" font-size=\"11\">{2}</text>\n",
                  LabelW + WA + WB + 4, Y + 12,
                  B.empty() ? std::to_string(A[I])
                            : formatv("{0} / {1}", A[I], B[I]).str());
  }
  OS << "</svg>\n";
}

/// The bars of a block's cycles histogram: log2 bins (1, 2-3, 4-7, ...)
/// from the lowest to the highest used one. When every value falls in one
/// log2 bin, that bin would be the whole plot, one full-height bar: the
/// values are drawn one bar each instead (up to 16 distinct ones), else in
/// 8 bins of equal width over [min, max]; a single value gets the empty
/// log2 bins either side of it for scale.
struct HistBar {
  std::string Label;
  uint64_t Count;
};
static std::vector<HistBar> histBars(const BlockRow &R) {
  std::vector<HistBar> V;
  unsigned Lo = CycleBins, Hi = 0;
  for (unsigned B = 0; B < CycleBins; ++B)
    if (R.Bins[B]) {
      Lo = std::min(Lo, B);
      Hi = B;
    }
  if (Lo == CycleBins)
    return V;
  if (Lo != Hi) {
    for (unsigned B = Lo; B <= Hi; ++B)
      V.push_back({cycleBinLabel(B), R.Bins[B]});
    return V;
  }
  if (R.Values.size() == 1) {
    if (Lo > 0)
      V.push_back({cycleBinLabel(Lo - 1), 0});
    V.push_back({cycleBinLabel(Lo), R.Bins[Lo]});
    if (Lo + 1 < CycleBins)
      V.push_back({cycleBinLabel(Lo + 1), 0});
    return V;
  }
  if (R.Values.size() <= 16) {
    for (auto &[C, N] : R.Values)
      V.push_back({std::to_string(C), N});
    return V;
  }
  const unsigned K = 8;
  uint64_t Min = R.Values.front().first, Max = R.Values.back().first;
  uint64_t Width = (Max - Min + K) / K; // ceil((Max - Min + 1) / K)
  for (unsigned I = 0; I < K; ++I) {
    uint64_t BLo = Min + I * Width, BHi = std::min(Max, BLo + Width - 1);
    if (BLo > Max)
      break;
    V.push_back({BLo == BHi ? std::to_string(BLo)
                            : formatv("{0}-{1}", BLo, BHi).str(),
                 0});
  }
  for (auto &[C, N] : R.Values)
    V[(C - Min) / Width].Count += N;
  return V;
}

/// A vertical-bar histogram of a block's cycles (histBars).
static void histogram(raw_ostream &OS, const BlockRow &R) {
  std::vector<HistBar> Bars = histBars(R);
  if (Bars.empty())
    return;
  uint64_t Peak = 1;
  for (const HistBar &B : Bars)
    Peak = std::max(Peak, B.Count);
  const unsigned BarW = 56, PlotH = 200, Left = 50, Top = 20;
  unsigned N = unsigned(Bars.size());
  OS << formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
                "height=\"{1}\" role=\"img\"><title>cycles histogram</title>\n",
                Left + N * BarW + 20, Top + PlotH + 40);
  OS << formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                "stroke=\"#333\"/>\n",
                Left, Top + PlotH, Left + N * BarW);
  for (unsigned I = 0; I < N; ++I) {
    unsigned X = Left + I * BarW;
    double H = double(PlotH) * double(Bars[I].Count) / double(Peak);
    OS << formatv("<rect x=\"{0}\" y=\"{1:f1}\" width=\"{2}\" height=\"{3:f1}\" "
                  "fill=\"#d62728\"><title>{4} cycles: {5}</title></rect>",
                  X + 4, Top + PlotH - H, BarW - 8, H, Bars[I].Label,
                  Bars[I].Count);
    OS << formatv("<text x=\"{0}\" y=\"{1}\" font-size=\"11\" "
                  "text-anchor=\"middle\">{2}</text>",
                  X + BarW / 2, Top + PlotH + 14, Bars[I].Label);
    OS << formatv("<text x=\"{0}\" y=\"{1:f1}\" font-size=\"11\" "
                  "text-anchor=\"middle\">{2}</text>\n",
                  X + BarW / 2, Top + PlotH - H - 3, Bars[I].Count);
  }
  OS << formatv("<text x=\"{0}\" y=\"{1}\" font-size=\"11\" "
                "text-anchor=\"middle\">cycles</text>\n",
                Left + N * BarW / 2, Top + PlotH + 32);
  OS << "</svg>\n";
}

/// The page's head and style, the title and the summary of the inputs.
static void writeHeader(const ReportData &D, bool HasCycles, raw_ostream &OS) {
  OS << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
        "<title>lbr2prof report: "
     << esc(D.BinaryPath) << "</title>\n<style>\n"
     << "body{font-family:sans-serif;margin:1em 2em;color:#222}\n"
        "table{border-collapse:collapse;margin:.5em 0}\n"
        "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}\n"
        "td.n{text-align:right}\nth{background:#eee}\n"
        ".note{color:#555;font-size:13px;max-width:60em}\n"
        "th{cursor:pointer}\nth[data-sort=desc]::after{content:' \\25BC'}\n"
        "th[data-sort=asc]::after{content:' \\25B2'}\n"
        "input.filter{display:block;margin-top:.5em}\n"
        "#flame{position:relative;width:100%;font-size:12px}\n"
        ".frame{position:absolute;height:17px;overflow:hidden;"
        "white-space:nowrap;box-sizing:border-box;border:1px solid #fff;"
        "padding:0 3px;cursor:pointer;font-family:monospace}\n"
        ".frame.match{background:#e377c2 !important}\n"
        "table.asm td{font-size:12px;padding:0 6px}\n"
        "tr.bb td{border-top:2px solid #888;font-weight:bold}\n"
        "tr.src td{background:#f4f4f4;color:#555}\n"
        ".hb{display:inline-block;width:6px;margin-right:1px;"
        "background:#d62728;vertical-align:bottom}\n"
        "</style></head><body>\n";
  OS << "<h1>lbr2prof report</h1>\n<p><input type=search id=search "
        "placeholder=\"search every table\" size=40></p>\n<p>Inputs: ";
  for (size_t I = 0; I < D.Inputs.size(); ++I)
    OS << (I ? ", " : "") << "<code>" << esc(D.Inputs[I]) << "</code>";
  OS << "<br>Binary: <code>" << esc(D.BinaryPath) << "</code><br>Samples: "
     << D.Samples << " (" << D.SamplesWithBranches
     << " with a branch stack); branch entries: " << D.Entries << " ("
     << D.EntriesInBinary << " with an end in this binary)<br>";
  if (HasCycles)
    OS << "Cycles: " << D.EntriesWithCycles << " of " << D.Entries
       << " entries carry a cycles count</p>\n";
  else
    OS << "Cycles: not recorded (every entry's cycles field is 0, as on AMD "
          "LBRv2/BRS): the latency view is skipped</p>\n";
}

/// "<tr><td colspan=N>(none)</td></tr>" when a table has no rows.
static void noneRow(raw_ostream &OS, bool Empty, unsigned Cols) {
  if (Empty)
    OS << "<tr class=none><td colspan=" << Cols << ">(none)</td></tr>\n";
}

/// The function table and the shares of the mapped files.
static void writeFunctions(const ReportData &D, bool HasCycles,
                           raw_ostream &OS) {
  OS << "<h2 id=functions>Functions</h2>\n<p class=note>" << D.FunctionRowsAll
     << " functions with samples or taken branches, by samples (sample IPs "
        "in the function, self). Taken and mispredicted: entries whose "
        "source is in it. Cycles lost: mispredictions &times; "
     << D.MispredictPenalty
     << " cycles (<code>--mispredict-penalty</code>); a not-taken "
        "branch's mispredictions leave no entry and are not counted.";
  if (HasCycles)
    OS << " Cycles per block: mean cycles of the blocks starting in it.";
  OS << "</p>\n<table class=data id=t-functions><tr><th>samples</th>"
        "<th>share</th><th>taken</th><th>mispred</th><th>rate</th>"
        "<th>cycles lost</th><th>cycles/block</th><th>function</th>"
        "<th>file</th></tr>\n";
  for (const FunctionRow &R : D.Functions) {
    OS << "<tr><td class=n>" << R.Samples << "</td><td class=n>"
       << pct(R.Samples, D.Samples) << "</td><td class=n>" << R.Taken
       << "</td><td class=n>" << R.Mispred << "</td><td class=n>"
       << pct(R.Mispred, R.Taken) << "</td><td class=n>"
       << R.Mispred * uint64_t(D.MispredictPenalty) << "</td><td class=n>"
       << (HasCycles && R.BlockCount
               ? formatv("{0:f2}", double(R.BlockCycles) / double(R.BlockCount))
                     .str()
               : "-")
       << "</td><td>";
    int Ann = -1;
    for (size_t F = 0; F < D.Annotated.size(); ++F)
      if (D.Annotated[F].Name == R.Name)
        Ann = int(F);
    if (Ann >= 0)
      OS << "<a class=annotate href=\"#annotate-" << Ann << "\"><code>"
         << esc(R.Name) << "</code></a>";
    else
      OS << "<code>" << esc(R.Name) << "</code>";
    OS << "</td><td>" << esc(R.Dso) << "</td></tr>\n";
  }
  noneRow(OS, D.Functions.empty(), 9);
  OS << "</table>\n";

  OS << "<h2 id=files>Files</h2>\n<table class=data id=t-files><tr>"
        "<th>samples</th><th>share</th><th>taken</th><th>mispred</th>"
        "<th>file</th></tr>\n";
  for (const DsoRow &R : D.Dsos)
    OS << "<tr><td class=n>" << R.Samples << "</td><td class=n>"
       << pct(R.Samples, D.Samples) << "</td><td class=n>" << R.Taken
       << "</td><td class=n>" << R.Mispred << "</td><td><code>" << esc(R.Path)
       << "</code></td></tr>\n";
  noneRow(OS, D.Dsos.empty(), 5);
  OS << "</table>\n";
}

/// The call tree as an interactive flame graph (drawn by FlameScript from
/// the nodes embedded as JSON): the root on top, a box's width its share
/// of the samples; a click zooms to a box, the search box marks matching
/// functions and says what share of the samples they hold.
static void writeFlame(const ReportData &D, raw_ostream &OS) {
  OS << "<h2 id=flamegraph>Call tree (flame graph)</h2>\n";
  if (D.FlameNodes.empty()) {
    OS << "<p>(none): raw profiles keep no call stacks or branch stacks"
          "</p>\n";
    return;
  }
  OS << "<p class=note>"
     << (D.Flame == FlameSource::CallStacks
             ? "From the samples' call stacks (-g)."
             : "From call/return pairs in the branch stacks: a stack starts "
               "at the function of the oldest entry, so roots are partial.")
     << " Width: samples in the function or its callees. Click a box to "
        "zoom to it, the top row to zoom out.</p>\n"
        "<p><input type=search id=flame-search placeholder=\"search "
        "functions\" size=30> <span id=flame-matched></span> "
        "<button id=flame-reset type=button>reset zoom</button></p>\n"
        "<div id=flame></div>\n<script type=\"application/json\" "
        "id=flame-data>";
  std::string Json;
  {
    raw_string_ostream JS(Json);
    json::OStream J(JS);
    J.array([&] {
      for (const FlameNode &N : D.FlameNodes)
        J.array([&] {
          J.value(N.Name);
          J.value(N.Parent);
          J.value(int64_t(N.Self));
          J.value(int64_t(N.Total));
        });
    });
  }
  // "</script>" inside a name would end the element.
  for (size_t I = 0; (I = Json.find("</", I)) != std::string::npos; I += 3)
    Json.replace(I, 2, "<\\/");
  OS << Json << "</script>\n";
}

/// The annotated functions, each in a <details> that a click on its name
/// in the function table opens.
static void writeAnnotated(const ReportData &D, raw_ostream &OS) {
  OS << "<h2 id=annotated>Annotated functions</h2>\n<p class=note>"
     << (D.AnnotateChosen ? "The function --annotate names."
                          : "The hottest functions of the binary (by "
                            "samples); click a function's name in the "
                            "function table to open it here.")
     << " Count: executions seen in the branch stacks' fall-through ranges; "
        "a branch shows its taken and fall-through counts, the share of "
        "its taken entries mispredicted and a histogram of the cycles of "
        "the block it ends. Bold rows start a block.</p>\n";
  if (D.Annotated.empty())
    OS << "<p>(none)</p>\n";
  for (size_t F = 0; F < D.Annotated.size(); ++F) {
    const AnnotatedFunction &A = D.Annotated[F];
    OS << "<details class=annotated id=\"annotate-" << F
       << "\" data-function=\"" << esc(A.Name) << "\"><summary><code>"
       << esc(A.Name) << "</code> (" << A.Samples
       << " samples)</summary>\n<table class=asm><tr><th>samples</th>"
          "<th>count</th><th>address</th><th>instruction</th><th>taken</th>"
          "<th>fall-through</th><th>mispredicted</th><th>block cycles</th>"
          "</tr>\n";
    for (const AnnotatedInst &I : A.Insts) {
      if (I.NewLine)
        OS << "<tr class=src><td colspan=8>" << esc(I.File) << ":" << I.Line
           << " <code>" << esc(I.SourceText) << "</code></td></tr>\n";
      bool Shown = I.Branch && (I.Taken || I.FallThrough);
      OS << "<tr" << (I.BlockStart ? " class=bb" : "") << "><td class=n>"
         << I.Samples << "</td><td class=n>" << I.Count << "</td><td><code>"
         << formatv("{0:x-}", I.Addr) << "</code></td><td><code>"
         << esc(I.Text) << "</code></td>";
      if (Shown) {
        OS << "<td class=n>" << I.Taken << "</td><td class=n>"
           << I.FallThrough << "</td><td class=n>" << I.Mispred << " ("
           << pct(I.Mispred, I.Taken) << ")</td><td>";
        // A small inline bar per used log2 bin.
        uint64_t Peak = 0;
        for (uint64_t B : I.Bins)
          Peak = std::max(Peak, B);
        for (unsigned B = 0; B < CycleBins && Peak; ++B)
          if (I.Bins[B])
            OS << formatv("<span class=hb title=\"{0} cycles: {1}\" "
                          "style=\"height:{2}px\"></span>",
                          cycleBinLabel(B), I.Bins[B],
                          1 + 15 * I.Bins[B] / Peak);
        OS << "</td>";
      } else {
        OS << "<td></td><td></td><td></td><td></td>";
      }
      OS << "</tr>\n";
    }
    OS << "</table></details>\n";
  }
}

/// Hot taken branches: a bar chart, then the table (average cycles only
/// when recorded).
static void writeBranches(const ReportData &D, bool HasCycles,
                          raw_ostream &OS) {
  OS << "<h2>Hot taken branches</h2>\n";
  {
    std::vector<std::string> L;
    std::vector<uint64_t> V;
    for (const BranchRow &R : D.Branches) {
      L.push_back(formatLoc(R.From).substr(0, 48));
      V.push_back(R.Count);
    }
    barChart(OS, L, V, {}, "entries per taken branch");
  }
  OS << "<table class=data><tr><th>count</th><th>share</th><th>mispred</th><th>rate</th>"
        "<th>cycles</th><th>from</th><th>to</th></tr>\n";
  for (const BranchRow &R : D.Branches)
    OS << "<tr><td class=n>" << R.Count << "</td><td class=n>"
       << pct(R.Count, D.Entries) << "</td><td class=n>" << R.Mispred
       << "</td><td class=n>" << pct(R.Mispred, R.Count) << "</td><td class=n>"
       << (HasCycles
               ? formatv("{0:f1}", double(R.CyclesSum) / double(R.Count)).str()
               : "-")
       << "</td><td>" << locHtml(R.From) << "</td><td>" << locHtml(R.To)
       << "</td></tr>\n";
  noneRow(OS, D.Branches.empty(), 7);
  OS << "</table>\n<p class=note>Mispredict rates count the M flag of "
        "sampled entries: none seen among N entries is no proof of perfect "
        "prediction (rates up to about 3/N go unseen at 95% confidence), and "
        "a not-taken conditional branch leaves no entry.</p>\n";
}

/// Conditional branches: stacked taken / not-taken bars, then the table.
static void writeConds(const ReportData &D, raw_ostream &OS) {
  OS << "<h2>Conditional branches: taken / not taken</h2>\n";
  {
    std::vector<std::string> L;
    std::vector<uint64_t> T, F;
    for (const CondRow &R : D.Conds) {
      L.push_back(formatLoc(R.Branch).substr(0, 48));
      T.push_back(R.Taken);
      F.push_back(R.NotTaken);
    }
    barChart(OS, L, T, F, "taken (blue) and not taken (orange)");
  }
  OS << "<p class=note><span style=\"color:#1f77b4\">&#9632;</span> taken "
        "(branch entries) &nbsp; <span style=\"color:#ff7f0e\">&#9632;"
        "</span> not taken (fall-through ranges that run over the branch)"
        "</p>\n";
  OS << "<table class=data><tr><th>taken</th><th>not taken</th><th>p(taken)</th>"
        "<th>mispred (taken)</th><th>branch</th><th>target</th></tr>\n";
  for (const CondRow &R : D.Conds)
    OS << "<tr><td class=n>" << R.Taken << "</td><td class=n>" << R.NotTaken
       << "</td><td class=n>" << pct(R.Taken, R.Taken + R.NotTaken)
       << "</td><td class=n>" << R.MispredTaken << " ("
       << pct(R.MispredTaken, R.Taken) << ")</td><td>" << locHtml(R.Branch)
       << "</td><td>" << (R.Target.Addr ? locHtml(R.Target) : "?")
       << "</td></tr>\n";
  noneRow(OS, D.Conds.empty(), 6);
  OS << "</table>\n";
}

/// Indirect jumps and calls: one row per target, the source on the first.
static void writeIndirects(const ReportData &D, raw_ostream &OS) {
  OS << "<h2>Indirect jumps and calls</h2>\n<table class=data><tr><th>source</th>"
        "<th>count</th><th>share</th><th>target</th></tr>\n";
  for (const IndirectRow &R : D.Indirects)
    for (size_t I = 0; I < R.Targets.size(); ++I)
      OS << "<tr><td>"
         << (I ? std::string()
               : locHtml(R.Source) + (R.IsCall ? " (call, " : " (jump, ") +
                     std::to_string(R.Total) + ")")
         << "</td><td class=n>" << R.Targets[I].second << "</td><td class=n>"
         << pct(R.Targets[I].second, R.Total) << "</td><td>"
         << locHtml(R.Targets[I].first) << "</td></tr>\n";
  noneRow(OS, D.Indirects.empty(), 4);
  OS << "</table>\n";
}

/// Basic-block latency (written only when entries carry cycles): the
/// table, then a cycles histogram per detailed block.
static void writeLatency(const ReportData &D, raw_ostream &OS) {
  OS << "<h2>Basic-block latency</h2>\n<p class=note>A block runs from an "
        "entry's target to the next newer entry's source; its latency is "
        "the newer entry's cycles field (cycles since the previous branch "
        "record).</p>\n<table class=data><tr><th>count</th><th>avg</th><th>min</th>"
        "<th>p50</th><th>p90</th><th>max</th><th>start</th><th>end</th>"
        "</tr>\n";
  for (const BlockRow &R : D.Blocks)
    OS << "<tr><td class=n>" << R.Count << "</td><td class=n>"
       << formatv("{0:f2}", double(R.Sum) / double(R.Count))
       << "</td><td class=n>" << R.Min << "</td><td class=n>" << R.P50
       << "</td><td class=n>" << R.P90 << "</td><td class=n>" << R.Max
       << "</td><td>" << locHtml(R.Start) << "</td><td>" << locHtml(R.End)
       << "</td></tr>\n";
  noneRow(OS, D.Blocks.empty(), 8);
  OS << "</table>\n";
  for (const BlockRow &R : D.Detail) {
    OS << "<h3>Cycles of block " << locHtml(R.Start) << " .. " << locHtml(R.End)
       << " (" << R.Count << " measurements)</h3>\n";
    histogram(OS, R);
  }
}

/// Hot paths of D.PathLength consecutive blocks, oldest first.
static void writePaths(const ReportData &D, raw_ostream &OS) {
  OS << "<h2>Hot paths (" << D.PathLength
     << " consecutive blocks)</h2>\n<table class=data><tr><th>count</th><th>share</th>"
        "<th>blocks, oldest first</th></tr>\n";
  for (const PathRow &R : D.Paths) {
    OS << "<tr><td class=n>" << R.Count << "</td><td class=n>"
       << pct(R.Count, D.PathTotal) << "</td><td>";
    // One block per line, as function+offset; the addresses and lines are
    // in the block's tooltip.
    for (size_t J = 0; J < R.Blocks.size(); ++J) {
      const ReportLoc &B = R.Blocks[J].first, &E = R.Blocks[J].second;
      auto Short = [](const ReportLoc &L) {
        return L.Function.empty()
                   ? formatv("{0:x}", L.Addr).str()
                   : formatv("{0}+{1:x}", L.Function, L.FuncOffset).str();
      };
      OS << (J ? "<br>&rarr; " : "") << "<code title=\""
         << esc(formatLoc(B) + " .. " + formatLoc(E)) << "\">"
         << esc(Short(B) + ".." + Short(E)) << "</code>";
    }
    OS << "</td></tr>\n";
  }
  noneRow(OS, D.Paths.empty(), 3);
  OS << "</table>\n";
}

/// Calls by caller and callee.
static void writeCalls(const ReportData &D, raw_ostream &OS) {
  OS << "<h2>Calls</h2>\n<table class=data><tr><th>count</th><th>share</th>"
        "<th>caller</th><th>callee</th></tr>\n";
  for (const CallRow &R : D.Calls)
    OS << "<tr><td class=n>" << R.Count << "</td><td class=n>"
       << pct(R.Count, D.CallTotal) << "</td><td><code>" << esc(R.Caller)
       << "</code></td><td><code>" << esc(R.Callee) << "</code></td></tr>\n";
  noneRow(OS, D.Calls.empty(), 4);
  OS << "</table>\n";
}

/// The page's only script, inline (no network): a search box over every
/// table, a filter box above each, and sorting by a click on a column's
/// header (numbers by value, "12.50%" as 12.5, "-" below every number;
/// a second click reverses). A table left without a visible row shows a
/// "(none)" row.
static const char *const PageScript = R"js(
(function () {
  function cellKey(td) {
    var t = td.textContent.trim();
    var m = /^-?[0-9]+(\.[0-9]+)?%?$/.test(t) ? parseFloat(t) : NaN;
    return isNaN(m) ? (t === '-' ? -Infinity : t.toLowerCase()) : m;
  }
  function dataRows(tb) {
    return Array.prototype.filter.call(tb.rows, function (r) {
      return r.cells[0].tagName === 'TD' && !r.classList.contains('none');
    });
  }
  function noneRow(tb, show) {
    var n = tb.querySelector('tr.none');
    if (!n) {
      n = document.createElement('tr');
      n.className = 'none';
      var td = document.createElement('td');
      td.colSpan = tb.rows[0].cells.length;
      td.textContent = '(none)';
      n.appendChild(td);
      tb.querySelector('tbody').appendChild(n);
    }
    n.style.display = show ? '' : 'none';
  }
  var global = document.getElementById('search');
  var tables = document.querySelectorAll('table.data');
  function apply(tb) {
    var q = (tb.filterBox.value + ' ' + global.value).toLowerCase().trim()
                .split(/\s+/).filter(function (w) { return w; });
    var shown = 0, rows = dataRows(tb);
    rows.forEach(function (r) {
      var t = r.textContent.toLowerCase();
      var ok = q.every(function (w) { return t.indexOf(w) >= 0; });
      r.style.display = ok ? '' : 'none';
      shown += ok;
    });
    noneRow(tb, shown === 0);
  }
  Array.prototype.forEach.call(tables, function (tb) {
    var box = document.createElement('input');
    box.type = 'search';
    box.className = 'filter';
    box.placeholder = 'filter this table';
    tb.parentNode.insertBefore(box, tb);
    tb.filterBox = box;
    box.addEventListener('input', function () { apply(tb); });
    Array.prototype.forEach.call(tb.rows[0].cells, function (th, col) {
      th.title = 'click to sort';
      th.addEventListener('click', function () {
        var desc = th.getAttribute('data-sort') !== 'desc';
        Array.prototype.forEach.call(tb.rows[0].cells, function (h) {
          h.removeAttribute('data-sort');
        });
        th.setAttribute('data-sort', desc ? 'desc' : 'asc');
        var rows = dataRows(tb), body = tb.querySelector('tbody');
        rows.forEach(function (r, i) { r.index = i; });
        rows.sort(function (a, b) {
          var x = cellKey(a.cells[col]), y = cellKey(b.cells[col]);
          if (typeof x !== typeof y) { x = String(x); y = String(y); }
          var c = x < y ? -1 : x > y ? 1 : a.index - b.index;
          return desc && x !== y ? -c : c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
        var none = body.querySelector('tr.none');
        if (none) body.appendChild(none);
      });
    });
  });
  global.addEventListener('input', function () {
    Array.prototype.forEach.call(tables, apply);
  });
  Array.prototype.forEach.call(document.querySelectorAll('a.annotate'),
    function (a) {
      a.addEventListener('click', function () {
        var d = document.getElementById(a.getAttribute('href').slice(1));
        if (d) d.open = true;
      });
    });
})();
)js";

/// Draws #flame from #flame-data: [[name, parent, self, total], ...].
static const char *const FlameScript = R"js(
(function () {
  var el = document.getElementById('flame');
  if (!el) return;
  var nodes = JSON.parse(document.getElementById('flame-data').textContent);
  var kids = nodes.map(function () { return []; });
  nodes.forEach(function (n, i) { if (n[1] >= 0) kids[n[1]].push(i); });
  var search = document.getElementById('flame-search');
  var matched = document.getElementById('flame-matched');
  var zoom = 0, rowH = 18;
  function colour(name) {
    var h = 0;
    for (var i = 0; i < name.length; ++i) h = (h * 31 + name.charCodeAt(i)) % 360;
    return 'hsl(' + (h % 60) + ',80%,' + (55 + h % 20) + '%)';
  }
  function draw() {
    el.innerHTML = '';
    var q = search.value.toLowerCase().trim(), all = nodes[0][3] || 1;
    var view = nodes[zoom][3] || 1, depth = 0, maxDepth = 0;
    function box(i, x, w, d) {
      var n = nodes[i], b = document.createElement('div');
      b.className = 'frame';
      b.style.left = (100 * x) + '%';
      b.style.width = (100 * w) + '%';
      b.style.top = (d * rowH) + 'px';
      b.style.background = colour(n[0]);
      b.textContent = n[0];
      b.title = n[0] + ': ' + n[3] + ' samples (' +
          (100 * n[3] / all).toFixed(2) + '%), self ' + n[2];
      b.setAttribute('data-node', i);
      if (q && n[0].toLowerCase().indexOf(q) >= 0) b.classList.add('match');
      b.addEventListener('click', function () { zoom = i; draw(); });
      el.appendChild(b);
      maxDepth = Math.max(maxDepth, d);
    }
    var path = [];
    for (var a = zoom; a >= 0; a = nodes[a][1]) path.unshift(a);
    path.forEach(function (a) { box(a, 0, 1, depth++); });
    (function walk(i, x, d) {
      kids[i].forEach(function (k) {
        var w = nodes[k][3] / view;
        if (w >= 0.002) { box(k, x, w, d); walk(k, x, d + 1); }
        x += w;
      });
    })(zoom, 0, depth);
    el.style.height = ((maxDepth + 1) * rowH) + 'px';
    // Share of the samples in matching functions, not counting a match
    // below another twice.
    var got = 0;
    (function sum(i, under) {
      var m = !under && q && nodes[i][0].toLowerCase().indexOf(q) >= 0;
      if (m) got += nodes[i][3];
      kids[i].forEach(function (k) { sum(k, under || m); });
    })(0, false);
    matched.textContent = q ? 'matched: ' + (100 * got / all).toFixed(2) +
        '% of the samples' : '';
  }
  search.addEventListener('input', draw);
  document.getElementById('flame-reset').addEventListener('click', function () {
    zoom = 0; draw();
  });
  draw();
})();
)js";

void writeHtmlReport(const ReportData &D, raw_ostream &OS) {
  bool HasCycles = D.EntriesWithCycles > 0;
  writeHeader(D, HasCycles, OS);
  writeFunctions(D, HasCycles, OS);
  writeFlame(D, OS);
  writeAnnotated(D, OS);
  writeBranches(D, HasCycles, OS);
  writeConds(D, OS);
  writeIndirects(D, OS);
  if (HasCycles)
    writeLatency(D, OS);
  writePaths(D, OS);
  writeCalls(D, OS);
  OS << "<script>" << PageScript << FlameScript
     << "</script>\n</body></html>\n";
}

} // namespace lbr2prof
