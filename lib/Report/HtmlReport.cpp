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

/// A vertical-bar histogram of a block's cycles, log2 bins.
static void histogram(raw_ostream &OS, const BlockRow &R) {
  unsigned Lo = CycleBins, Hi = 0;
  uint64_t Peak = 1;
  for (unsigned B = 0; B < CycleBins; ++B)
    if (R.Bins[B]) {
      Lo = std::min(Lo, B);
      Hi = B;
      Peak = std::max(Peak, R.Bins[B]);
    }
  if (Lo == CycleBins)
    return;
  const unsigned BarW = 56, PlotH = 200, Left = 50, Top = 20;
  unsigned N = Hi - Lo + 1;
  OS << formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
                "height=\"{1}\" role=\"img\"><title>cycles histogram</title>\n",
                Left + N * BarW + 20, Top + PlotH + 40);
  OS << formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                "stroke=\"#333\"/>\n",
                Left, Top + PlotH, Left + N * BarW);
  for (unsigned B = Lo; B <= Hi; ++B) {
    unsigned X = Left + (B - Lo) * BarW;
    double H = double(PlotH) * double(R.Bins[B]) / double(Peak);
    OS << formatv("<rect x=\"{0}\" y=\"{1:f1}\" width=\"{2}\" height=\"{3:f1}\" "
                  "fill=\"#d62728\"><title>{4} cycles: {5}</title></rect>",
                  X + 4, Top + PlotH - H, BarW - 8, H, cycleBinLabel(B),
                  R.Bins[B]);
    OS << formatv("<text x=\"{0}\" y=\"{1}\" font-size=\"11\" "
                  "text-anchor=\"middle\">{2}</text>",
                  X + BarW / 2, Top + PlotH + 14, cycleBinLabel(B));
    OS << formatv("<text x=\"{0}\" y=\"{1:f1}\" font-size=\"11\" "
                  "text-anchor=\"middle\">{2}</text>\n",
                  X + BarW / 2, Top + PlotH - H - 3, R.Bins[B]);
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
        "</style></head><body>\n";
  OS << "<h1>lbr2prof report</h1>\n<p>Inputs: ";
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
  OS << "<table><tr><th>count</th><th>share</th><th>mispred</th><th>rate</th>"
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
  OS << "<table><tr><th>taken</th><th>not taken</th><th>p(taken)</th>"
        "<th>mispred (taken)</th><th>branch</th><th>target</th></tr>\n";
  for (const CondRow &R : D.Conds)
    OS << "<tr><td class=n>" << R.Taken << "</td><td class=n>" << R.NotTaken
       << "</td><td class=n>" << pct(R.Taken, R.Taken + R.NotTaken)
       << "</td><td class=n>" << R.MispredTaken << " ("
       << pct(R.MispredTaken, R.Taken) << ")</td><td>" << locHtml(R.Branch)
       << "</td><td>" << (R.Target.Addr ? locHtml(R.Target) : "?")
       << "</td></tr>\n";
  OS << "</table>\n";
}

/// Indirect jumps and calls: one row per target, the source on the first.
static void writeIndirects(const ReportData &D, raw_ostream &OS) {
  OS << "<h2>Indirect jumps and calls</h2>\n<table><tr><th>source</th>"
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
  OS << "</table>\n";
}

/// Basic-block latency (written only when entries carry cycles): the
/// table, then a cycles histogram per detailed block.
static void writeLatency(const ReportData &D, raw_ostream &OS) {
  OS << "<h2>Basic-block latency</h2>\n<p class=note>A block runs from an "
        "entry's target to the next newer entry's source; its latency is "
        "the newer entry's cycles field (cycles since the previous branch "
        "record).</p>\n<table><tr><th>count</th><th>avg</th><th>min</th>"
        "<th>p50</th><th>p90</th><th>max</th><th>start</th><th>end</th>"
        "</tr>\n";
  for (const BlockRow &R : D.Blocks)
    OS << "<tr><td class=n>" << R.Count << "</td><td class=n>"
       << formatv("{0:f2}", double(R.Sum) / double(R.Count))
       << "</td><td class=n>" << R.Min << "</td><td class=n>" << R.P50
       << "</td><td class=n>" << R.P90 << "</td><td class=n>" << R.Max
       << "</td><td>" << locHtml(R.Start) << "</td><td>" << locHtml(R.End)
       << "</td></tr>\n";
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
     << " consecutive blocks)</h2>\n<table><tr><th>count</th><th>share</th>"
        "<th>blocks, oldest first</th></tr>\n";
  for (const PathRow &R : D.Paths) {
    OS << "<tr><td class=n>" << R.Count << "</td><td class=n>"
       << pct(R.Count, D.PathTotal) << "</td><td>";
    for (size_t J = 0; J < R.Blocks.size(); ++J)
      OS << (J ? " &rarr; " : "") << locHtml(R.Blocks[J].first) << " .. "
         << locHtml(R.Blocks[J].second);
    OS << "</td></tr>\n";
  }
  OS << "</table>\n";
}

/// Calls by caller and callee.
static void writeCalls(const ReportData &D, raw_ostream &OS) {
  OS << "<h2>Calls</h2>\n<table><tr><th>count</th><th>share</th>"
        "<th>caller</th><th>callee</th></tr>\n";
  for (const CallRow &R : D.Calls)
    OS << "<tr><td class=n>" << R.Count << "</td><td class=n>"
       << pct(R.Count, D.CallTotal) << "</td><td><code>" << esc(R.Caller)
       << "</code></td><td><code>" << esc(R.Callee) << "</code></td></tr>\n";
  OS << "</table>\n";
}

void writeHtmlReport(const ReportData &D, raw_ostream &OS) {
  bool HasCycles = D.EntriesWithCycles > 0;
  writeHeader(D, HasCycles, OS);
  writeBranches(D, HasCycles, OS);
  writeConds(D, OS);
  writeIndirects(D, OS);
  if (HasCycles)
    writeLatency(D, OS);
  writePaths(D, OS);
  writeCalls(D, OS);
  OS << "</body></html>\n";
}

} // namespace lbr2prof
