"""One markdown table from measure.sh's CSV (callgrind) and taken.py's
lines. Usage: table.py RESULT.csv BRANCHES.txt PROGRAM"""
import csv
import sys

res, br, prog = sys.argv[1:4]
rows = {r["name"]: r for r in csv.DictReader(open(res))}
taken = {}
for line in open(br):
    n, total, own, jmp = line.split()
    taken[n] = (int(total), int(own), int(jmp))
names = [n for n in ["o2", "o2-bolt", "o2-prop", "o2-prop-before", "afdo",
                     "afdo-bolt", "afdo-prop"] if n in rows]
label = {"o2": "-O2", "o2-bolt": "-O2 + BOLT", "o2-prop": "-O2 + Propeller",
         "o2-prop-before": "-O2 + Propeller, before",
         "afdo": "AutoFDO", "afdo-bolt": "AutoFDO + BOLT",
         "afdo-prop": "AutoFDO + Propeller"}
base = rows["o2"]
b_est, b_own = float(base["estcyc"]), taken["o2"][1]
print(f"{prog} (evaluation workload)\n")
print("| build | estcyc | vs -O2 | Ir | I1+D1 misses | mispredicts | taken "
      "branches, all | taken, in the program | vs -O2 | of which jmp |")
print("|---|---|---|---|---|---|---|---|---|---|")
for n in names:
    r = rows[n]
    est = float(r["estcyc"])
    t_all, t_own, t_jmp = taken[n]
    print(f"| {label[n]} | {est:.4g} | {100 * (est / b_est - 1):+.2f}% | "
          f"{float(r['Ir']):.4g} | {float(r['L1miss']):.4g} | "
          f"{float(r['mispred']):.4g} | {t_all:.4g} | {t_own:.4g} | "
          f"{100 * (t_own / b_own - 1):+.1f}% | {t_jmp:.4g} |")
