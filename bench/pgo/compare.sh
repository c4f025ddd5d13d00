#!/bin/sh
# bench/pgo/compare.sh: how much does a sample profile made from an
# (emulated) LBR capture speed up a real program, against instrumented PGO?
#
#   compare.sh PROGRAM [-r ROUNDS] [--no-callgrind]     PROGRAM: sqlite | gawk | lua
#
# Environment: LBR2PROF (the lbr2prof binary), LBR2PROF_ARGS (options for
# its profile), LBR2PROF_VARIANTS (more lbr2prof profiles; see README.md).
#
# End to end, in $LBR2PROF_BENCH_DIR/PROGRAM (default /tmp/lbr2prof-pgo):
#  1. build o2 (the baseline, with AutoFDO's debug flags) and copy it as
#     o2-again, an identical binary measured as if it were another: its
#     distance from o2 is the noise of the measurement;
#  2. record the training workload with utils/lbr-record;
#  3. make sample profiles from that one perf.data with llvm-profgen-19,
#     create_llvm_prof (text; its inline callsites dropped when their names
#     are corrupt, see drop-corrupt-callsites.py) and lbr2prof ($LBR2PROF,
#     default build/bin/lbr2prof, with $LBR2PROF_ARGS) when it can write one;
#     print each profile's totals and functions;
#  4. build sample-use variants, and instr (front-end instrumentation run on
#     the same training workload, natively); report compiler warnings beyond
#     o2's own;
#  5. measure.sh on the evaluation workload (different from the training
#     one), wall time and the callgrind estimate, each speedup as a share of
#     instrumented PGO's.
set -eu
USAGE="usage: compare.sh sqlite|gawk|lua [-r ROUNDS] [--no-callgrind]"
. "$(dirname "$0")/common.sh"
PROG=${1:-}
[ $# -gt 0 ] && shift
parse_options "$@"
[ -d "$W/src/sqlite" ] && [ -d "$W/src/gawk" ] && [ -d "$W/src/lua" ] &&
  [ -d "$W/data/eval" ] || sh "$HERE/setup.sh"
workload "$PROG"
O=$W/$PROG
rm -rf "$O"
mkdir -p "$O"
cd "$O"

step "build o2"
mkdir -p bin
sh "$HERE/build.sh" "$PROG" o2 -o bin/o2
cp bin/o2 bin/o2-again

step "record the training run: lbr-record --period $PERIOD -- o2 $TRAIN"
# shellcheck disable=SC2086
"$ROOT/utils/lbr-record" -o train.data --period "$PERIOD" -- bin/o2 $TRAIN \
  > train.out 2> record.log || { cat record.log; exit 1; }
grep 'lbr-record:' record.log

step "profiles"
PROFILES=""
t0=$(date +%s.%N)
if llvm-profgen-19 --binary bin/o2 --perfdata train.data --output llvm-profgen.prof \
     > llvm-profgen.gen.log 2>&1; then
  PROFILES="$PROFILES llvm-profgen"
else
  echo "llvm-profgen failed:"; tail -5 llvm-profgen.gen.log
fi
t1=$(date +%s.%N)
if create_llvm_prof --binary bin/o2 --profile train.data --out create_llvm_prof.raw.txt \
     --format=text > create_llvm_prof.gen.log 2>&1; then
  if llvm-profdata-19 show --sample create_llvm_prof.raw.txt > /dev/null 2> cp-check.log; then
    mv create_llvm_prof.raw.txt create_llvm_prof.txt
  else
    echo "create_llvm_prof: its profile does not parse: $(head -n 1 cp-check.log | cut -c1-110)"
    python3 "$HERE/drop-corrupt-callsites.py" create_llvm_prof.raw.txt create_llvm_prof.txt
  fi
  PROFILES="$PROFILES create_llvm_prof"
else
  echo "create_llvm_prof failed:"; tail -5 create_llvm_prof.gen.log
fi
t2=$(date +%s.%N)
# LBR2PROF picks the lbr2prof binary (default: the tree's build/, built here
# if missing); LBR2PROF_ARGS adds options, e.g. LBR2PROF_ARGS=--infer-flow.
if [ -n "${LBR2PROF:-}" ]; then
  [ -x "$LBR2PROF" ] || { echo "compare.sh: LBR2PROF=$LBR2PROF is not executable" >&2; exit 2; }
else
  LBR2PROF=$ROOT/build/bin/lbr2prof
  [ -x "$LBR2PROF" ] || (cd "$ROOT" && sh utils/build.sh > "$O/lbr2prof-build.log" 2>&1) || true
fi
L2P_ARGS=${LBR2PROF_ARGS:-}
if [ -x "$LBR2PROF" ]; then
  echo "lbr2prof: $LBR2PROF${L2P_ARGS:+ $L2P_ARGS}, tree at $(git -C "$ROOT" log -1 --format='%h %s' 2>/dev/null | cut -c1-70)$(git -C "$ROOT" diff --quiet HEAD -- lib include tools 2>/dev/null || echo ' (+ uncommitted changes)')"
fi
# shellcheck disable=SC2086 # LBR2PROF_ARGS is a list of options
if [ -x "$LBR2PROF" ] &&
   "$LBR2PROF" train.data --binary bin/o2 $L2P_ARGS -o lbr2prof.prof > lbr2prof.gen.log 2>&1 &&
   [ -s lbr2prof.prof ]; then
  PROFILES="$PROFILES lbr2prof"
else
  echo "lbr2prof: no sample profile ($(grep -m1 -iE 'error|not implemented' lbr2prof.gen.log 2>/dev/null | cut -c1-100))"
fi
t3=$(date +%s.%N)
# LBR2PROF_VARIANTS="NAME:OPT[,OPT...] ..." adds lbr2prof profiles made with
# other options, each measured as lbr2prof-NAME (e.g. "nww:--no-window-weighting").
for v in ${LBR2PROF_VARIANTS:-}; do
  n=lbr2prof-${v%%:*} a=$(echo "${v#*:}" | tr , ' ')
  # shellcheck disable=SC2086
  if [ -x "$LBR2PROF" ] &&
     "$LBR2PROF" train.data --binary bin/o2 $L2P_ARGS $a -o "$n.prof" > "$n.gen.log" 2>&1; then
    echo "$n: lbr2prof${L2P_ARGS:+ $L2P_ARGS} $a"
    PROFILES="$PROFILES $n"
  else
    echo "$n: no sample profile ($(head -n 1 "$n.gen.log" | cut -c1-100))"
  fi
done
printf "profile time: llvm-profgen %.1fs, create_llvm_prof %.1fs, lbr2prof %.1fs\n" \
  "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" "$(echo "$t3 - $t2" | bc)"
prof_file() {
  case "$1" in
    create_llvm_prof) echo create_llvm_prof.txt ;;
    *) echo "$1.prof" ;;
  esac
}
printf "%-18s %14s %10s %s\n" profile "total samples" functions "hottest (share of total)"
for p in $PROFILES; do
  llvm-profdata-19 show --sample "$(prof_file "$p")" 2>/dev/null |
    awk -v p="$p" '/^Function: /{
        # Function: NAME: TOTAL, HEAD, N sampled lines
        n = $0; sub(/^Function: /, "", n); sub(/: [0-9]+, [0-9]+, [0-9]+ sampled lines$/, "", n)
        t = $0; sub(/^.*: /, "", t); split(t, a, ", "); t = a[1] + 0
        tot += t; fn++
        if (t > best) { best = t; bn = n } }
      END { printf "%-18s %14.0f %10d %s (%.1f%%)\n", p, tot, fn, bn, tot ? 100 * best / tot : 0 }'
done

step "build the PGO variants"
for p in $PROFILES; do
  sh "$HERE/build.sh" "$PROG" sample-use "$O/$(prof_file "$p")" -o "bin/$p"
done
build_instr

step "compiler warnings beyond o2's own"
base=$(grep -c 'warning:' bin/o2.log || true)
for v in instr $PROFILES; do
  n=$(grep -c 'warning:' "bin/$v.log" || true)
  kinds=$(grep -o 'warning: .*' "bin/$v.log" | grep -o '\[-W[^]]*\]' | sort | uniq -c |
          awk '{printf "%s%s x%s", s, $2, $1; s = ", "}')
  echo "$v: $((n - base)) more warnings than o2 ($n in all)${kinds:+: $kinds}"
done

measure_all

step "summary ($PROG)"
python3 - "$O/result.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def g(r, k):
    v = r.get(k)
    return float(v) if v not in (None, "") else None
o2 = next(r for r in rows if r["name"] == "o2")
again = next(r for r in rows if r["name"] == "o2-again")
if g(again, "wall_speedup") is not None:
    print("noise: o2-again (the same binary) vs o2: wall %+.1f%%, cpu %+.1f%%; "
          "IQR of o2's wall %.1f%%" % (100 * (g(again, "wall_speedup") - 1),
          100 * (g(again, "cpu_speedup") - 1), g(o2, "wall_iqr_pct")))
for r in rows:
    if r["name"] in ("o2", "o2-again"):
        continue
    parts = []
    for k, lab in (("wall", "wall"), ("cpu", "cpu"), ("estcyc", "estcyc")):
        s, p = g(r, k + "_speedup"), g(r, k + "_pct_of_ref")
        if s is not None:
            parts.append("%s x%.3f%s" % (lab, s, "" if r["name"] == "instr" or p is None
                                         else " (%.0f%% of instr)" % p))
    print("%-18s %s" % (r["name"], ", ".join(parts)))
PY
step "done; results in $O/result.txt and $O/result.csv"
