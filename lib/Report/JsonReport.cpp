//===- JsonReport.cpp - every view of the report as one JSON document -----===//
//
// The same rows as the text report (cut to --top; "total_rows" says how
// many there were), as counts only: shares and rates are left to the
// reader, who has the totals. docs/report-schema.json is the schema and
// docs/formats.md describes it.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Report/Report.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace lbr2prof {

static const char *sortKey(ReportSort S) {
  switch (S) {
  case ReportSort::Count:
    return "count";
  case ReportSort::Mispred:
    return "mispred";
  case ReportSort::MispredRate:
    return "misrate";
  case ReportSort::Cycles:
    return "cycles";
  }
  return "";
}

/// A location: {"address": "0x..." or null, "external", "function",
/// "offset", "file", "line"}.
static void loc(json::OStream &J, const ReportLoc &L) {
  J.object([&] {
    if (L.External)
      J.attribute("address", nullptr);
    else
      J.attribute("address", formatv("{0:x}", L.Addr).str());
    J.attribute("external", L.External);
    J.attribute("function", L.Function);
    J.attribute("offset", int64_t(L.FuncOffset));
    J.attribute("file", L.File);
    J.attribute("line", int64_t(L.Line));
  });
}

static int64_t n(uint64_t V) { return int64_t(V); }

void writeJsonReport(const ReportData &D, raw_ostream &OS) {
  json::OStream J(OS, 1);
  J.object([&] {
    J.attribute("format", "lbr2prof-report");
    J.attribute("version", 1);
    J.attributeArray("inputs", [&] {
      for (const std::string &I : D.Inputs)
        J.value(I);
    });
    J.attribute("binary", D.BinaryPath);
    J.attribute("samples", n(D.Samples));
    J.attribute("samples_with_branches", n(D.SamplesWithBranches));
    J.attribute("entries", n(D.Entries));
    J.attribute("entries_in_binary", n(D.EntriesInBinary));
    J.attribute("entries_with_cycles", n(D.EntriesWithCycles));
    J.attribute("mispredict_penalty", int64_t(D.MispredictPenalty));

    J.attributeObject("functions", [&] {
      J.attribute("total_rows", n(D.FunctionRowsAll));
      J.attributeArray("rows", [&] {
        for (const FunctionRow &R : D.Functions)
          J.object([&] {
            J.attribute("name", R.Name);
            J.attribute("file", R.Dso);
            J.attribute("samples", n(R.Samples));
            J.attribute("taken", n(R.Taken));
            J.attribute("mispred", n(R.Mispred));
            J.attribute("cycles_lost", n(R.Mispred * D.MispredictPenalty));
            J.attribute("block_measurements", n(R.BlockCount));
            J.attribute("block_cycles", n(R.BlockCycles));
          });
      });
    });

    J.attributeObject("files", [&] {
      J.attribute("total_rows", n(D.DsoRowsAll));
      J.attributeArray("rows", [&] {
        for (const DsoRow &R : D.Dsos)
          J.object([&] {
            J.attribute("path", R.Path);
            J.attribute("samples", n(R.Samples));
            J.attribute("taken", n(R.Taken));
            J.attribute("mispred", n(R.Mispred));
          });
      });
    });

    J.attributeObject("branches", [&] {
      J.attribute("sort", sortKey(D.Sort));
      J.attribute("total_rows", n(D.BranchRowsAll));
      J.attributeArray("rows", [&] {
        for (const BranchRow &R : D.Branches)
          J.object([&] {
            J.attributeBegin("from");
            loc(J, R.From);
            J.attributeEnd();
            J.attributeBegin("to");
            loc(J, R.To);
            J.attributeEnd();
            J.attribute("count", n(R.Count));
            J.attribute("mispred", n(R.Mispred));
            J.attribute("cycles_sum", n(R.CyclesSum));
          });
      });
    });

    J.attributeObject("conditionals", [&] {
      J.attribute("total_rows", n(D.CondRowsAll));
      J.attribute("total", n(D.CondTotal));
      J.attributeArray("rows", [&] {
        for (const CondRow &R : D.Conds)
          J.object([&] {
            J.attributeBegin("branch");
            loc(J, R.Branch);
            J.attributeEnd();
            J.attributeBegin("target");
            if (R.Target.Addr)
              loc(J, R.Target);
            else
              J.value(nullptr);
            J.attributeEnd();
            J.attribute("taken", n(R.Taken));
            J.attribute("not_taken", n(R.NotTaken));
            J.attribute("mispred_taken", n(R.MispredTaken));
          });
      });
    });

    J.attributeObject("indirects", [&] {
      J.attribute("total_rows", n(D.IndirectRowsAll));
      J.attribute("total", n(D.IndirectTotal));
      J.attributeArray("rows", [&] {
        for (const IndirectRow &R : D.Indirects)
          J.object([&] {
            J.attributeBegin("source");
            loc(J, R.Source);
            J.attributeEnd();
            J.attribute("call", R.IsCall);
            J.attribute("total", n(R.Total));
            J.attributeArray("targets", [&] {
              for (const auto &TC : R.Targets)
                J.object([&] {
                  J.attributeBegin("target");
                  loc(J, TC.first);
                  J.attributeEnd();
                  J.attribute("count", n(TC.second));
                });
            });
          });
      });
    });

    auto block = [&](const BlockRow &R, bool Values) {
      J.object([&] {
        J.attributeBegin("start");
        loc(J, R.Start);
        J.attributeEnd();
        J.attributeBegin("end");
        loc(J, R.End);
        J.attributeEnd();
        J.attribute("count", n(R.Count));
        J.attribute("cycles_sum", n(R.Sum));
        J.attribute("min", int64_t(R.Min));
        J.attribute("p50", int64_t(R.P50));
        J.attribute("p90", int64_t(R.P90));
        J.attribute("max", int64_t(R.Max));
        J.attributeArray("bins", [&] {
          for (uint64_t B : R.Bins)
            J.value(n(B));
        });
        if (Values)
          J.attributeArray("values", [&] {
            for (const auto &CN : R.Values)
              J.array([&] {
                J.value(int64_t(CN.first));
                J.value(n(CN.second));
              });
          });
      });
    };
    bool HasCycles = D.EntriesWithCycles > 0;
    J.attributeObject("blocks", [&] {
      J.attribute("cycles_recorded", HasCycles);
      J.attribute("total_rows", n(HasCycles ? D.BlockRowsAll : 0));
      J.attribute("total", n(D.BlockTotal));
      J.attributeArray("rows", [&] {
        if (HasCycles)
          for (const BlockRow &R : D.Blocks)
            block(R, false);
      });
      J.attributeArray("histograms", [&] {
        if (HasCycles)
          for (const BlockRow &R : D.Detail)
            block(R, true);
      });
    });

    J.attributeObject("paths", [&] {
      J.attribute("path_length", int64_t(D.PathLength));
      J.attribute("total_rows", n(D.PathRowsAll));
      J.attribute("total", n(D.PathTotal));
      J.attributeArray("rows", [&] {
        for (const PathRow &R : D.Paths)
          J.object([&] {
            J.attribute("count", n(R.Count));
            J.attributeArray("blocks", [&] {
              for (const auto &SE : R.Blocks)
                J.object([&] {
                  J.attributeBegin("start");
                  loc(J, SE.first);
                  J.attributeEnd();
                  J.attributeBegin("end");
                  loc(J, SE.second);
                  J.attributeEnd();
                });
            });
          });
      });
    });

    J.attributeObject("call_tree", [&] {
      J.attribute("source", D.Flame == FlameSource::CallStacks ? "call-stacks"
                            : D.Flame == FlameSource::BranchStacks
                                ? "branch-stacks"
                                : "none");
      J.attributeArray("nodes", [&] {
        for (const FlameNode &N : D.FlameNodes)
          J.object([&] {
            J.attribute("name", N.Name);
            J.attribute("parent", N.Parent);
            J.attribute("self", n(N.Self));
            J.attribute("total", n(N.Total));
          });
      });
    });

    J.attributeArray("annotated", [&] {
      for (const AnnotatedFunction &A : D.Annotated)
        J.object([&] {
          J.attribute("function", A.Name);
          J.attribute("start", formatv("{0:x}", A.Start).str());
          J.attribute("end", formatv("{0:x}", A.End).str());
          J.attribute("samples", n(A.Samples));
          J.attributeArray("instructions", [&] {
            for (const AnnotatedInst &I : A.Insts)
              J.object([&] {
                J.attribute("address", formatv("{0:x}", I.Addr).str());
                J.attribute("text", I.Text);
                J.attribute("file", I.File);
                J.attribute("line", int64_t(I.Line));
                J.attribute("block_start", I.BlockStart);
                J.attribute("samples", n(I.Samples));
                J.attribute("count", n(I.Count));
                J.attribute("branch", I.Branch);
                J.attribute("taken", n(I.Taken));
                J.attribute("fall_through", n(I.FallThrough));
                J.attribute("mispred", n(I.Mispred));
                J.attributeArray("cycle_bins", [&] {
                  for (uint64_t B : I.Bins)
                    J.value(n(B));
                });
              });
          });
        });
    });

    J.attributeObject("calls", [&] {
      J.attribute("total_rows", n(D.CallRowsAll));
      J.attribute("total", n(D.CallTotal));
      J.attributeArray("rows", [&] {
        for (const CallRow &R : D.Calls)
          J.object([&] {
            J.attribute("caller", R.Caller);
            J.attribute("callee", R.Callee);
            J.attribute("count", n(R.Count));
          });
      });
    });
  });
  OS << '\n';
}

} // namespace lbr2prof

namespace lbr2prof {

void writeSpeedscope(const ReportData &D, raw_ostream &OS) {
  // Frames: one per distinct name; a stack is the path of frame indices
  // from the outermost call, weighted by the node's self samples.
  std::vector<std::string> Names;
  StringMap<unsigned> Index;
  std::vector<unsigned> Frame(D.FlameNodes.size(), 0);
  for (size_t I = 1; I < D.FlameNodes.size(); ++I) {
    auto [It, New] = Index.try_emplace(D.FlameNodes[I].Name, Names.size());
    if (New)
      Names.push_back(D.FlameNodes[I].Name);
    Frame[I] = It->second;
  }
  uint64_t All = D.FlameNodes.empty() ? 0 : D.FlameNodes[0].Total;
  json::OStream J(OS, 1);
  J.object([&] {
    J.attribute("$schema", "https://www.speedscope.app/file-format-schema.json");
    J.attribute("exporter", "lbr2prof report");
    J.attribute("name", D.BinaryPath);
    J.attribute("activeProfileIndex", 0);
    J.attributeObject("shared", [&] {
      J.attributeArray("frames", [&] {
        for (const std::string &N : Names)
          J.object([&] { J.attribute("name", N); });
      });
    });
    J.attributeArray("profiles", [&] {
      J.object([&] {
        J.attribute("type", "sampled");
        J.attribute("name", D.Flame == FlameSource::CallStacks
                                ? "samples by call stack"
                                : "samples by call/return pairs of the "
                                  "branch stacks");
        J.attribute("unit", "none");
        J.attribute("startValue", 0);
        J.attribute("endValue", n(All));
        std::vector<int> Path;
        J.attributeArray("samples", [&] {
          for (size_t I = 1; I < D.FlameNodes.size(); ++I) {
            if (!D.FlameNodes[I].Self)
              continue;
            Path.clear();
            for (int K = int(I); K > 0; K = D.FlameNodes[K].Parent)
              Path.push_back(Frame[K]);
            J.array([&] {
              for (size_t P = Path.size(); P-- > 0;)
                J.value(Path[P]);
            });
          }
        });
        J.attributeArray("weights", [&] {
          for (size_t I = 1; I < D.FlameNodes.size(); ++I)
            if (D.FlameNodes[I].Self)
              J.value(n(D.FlameNodes[I].Self));
        });
      });
    });
  });
  OS << '\n';
}

} // namespace lbr2prof
