"""Judges lbr2prof's BOLT YAML against perf2bolt-19's -w YAML of the same
perf.data, with llvm-bolt-19's own figures:
  1. on the recorded binary, every function lbr2prof writes has the
     function hash and block count perf2bolt writes, and nine blocks in
     ten the same block hash;
  2. llvm-bolt-19 reads lbr2prof's YAML on the recorded binary with no
     stale function;
  3. on the rebuilt binary with -infer-stale-profile, lbr2prof's YAML has
     no more stale functions than perf2bolt's, has a profile inferred for
     as many, and as many blocks matched exactly (within 20%).
Prints the figures (bench/bolt-yaml-stale.md quotes them).
usage: stale-vs-perf2bolt.py LBR2PROF.yaml PERF2BOLT.yaml OLD NEW OUTDIR"""
import re
import subprocess
import sys


def parse(path):
    funcs, cur, bid = {}, None, None
    for line in open(path):
        line = line.rstrip("\n")
        m = re.match(r"\s+- name:\s+'?(.+?)'?$", line)
        if m:
            cur, bid = m.group(1), None
            funcs[cur] = {"blocks": {}}
            continue
        m = re.match(r"\s+nblocks:\s+(\d+)", line)
        if m:
            funcs[cur]["nblocks"] = int(m.group(1))
        m = re.match(r"\s+- bid:\s+(\d+)", line)
        if m:
            bid = int(m.group(1))
        m = re.match(r"\s+hash:\s+0x([0-9A-F]+)", line)
        if m:
            if bid is None:
                funcs[cur]["hash"] = int(m.group(1), 16)
            else:
                funcs[cur]["blocks"][bid] = int(m.group(1), 16)
    return funcs


def bolt(binary, yaml, out, extra):
    r = subprocess.run(["llvm-bolt-19", binary, "-o", out, "-data=" + yaml,
                        "-reorder-blocks=ext-tsp", "-v=1"] + extra,
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit("llvm-bolt-19 failed:\n" + r.stderr + r.stdout)
    text = r.stdout + r.stderr
    f = {"stale": 0, "inferred": 0, "exact": 0, "stale_blocks": 0}
    m = re.search(r"(\d+) \([\d.]+% of all profiled\) functions? have invalid",
                  text)
    if m:
        f["stale"] = int(m.group(1))
    m = re.search(r"inferred profile for (\d+) .* responsible for ([\d.]+)% "
                  r"samples", text)
    if m:
        f["inferred"], f["inferred_pct"] = int(m.group(1)), m.group(2)
    m = re.search(r"exact match for [\d.]+% of basic blocks \((\d+) out of "
                  r"(\d+) stale\)", text)
    if m:
        f["exact"], f["stale_blocks"] = int(m.group(1)), int(m.group(2))
    f["lines"] = [l for l in text.splitlines()
                  if re.search("stale|inferred|exact match", l)]
    return f


def main():
    ours_path, theirs_path, old, new, out = sys.argv[1:6]
    ours, theirs = parse(ours_path), parse(theirs_path)
    bad = []
    same_blocks = total_blocks = 0
    for name, f in ours.items():
        t = theirs.get(name)
        if t is None:
            continue
        if f.get("hash") != t.get("hash") or f["nblocks"] != t["nblocks"]:
            bad.append(name)
        for b, h in f["blocks"].items():
            if b in t["blocks"]:
                total_blocks += 1
                same_blocks += h == t["blocks"][b]
    print(f"functions: {len(ours)} written, "
          f"{len(ours) - len(bad)} with perf2bolt's hash and block count")
    print(f"blocks: {same_blocks}/{total_blocks} with perf2bolt's hash")
    ok = not bad and same_blocks >= 0.9 * total_blocks
    if bad:
        print("function hash or block count differs:", ", ".join(sorted(bad)))

    same = bolt(old, ours_path, out + "/old.bolt", [])
    print(f"recorded binary: {same['stale']} stale functions")
    ok &= same["stale"] == 0

    res = {}
    for who, y in (("lbr2prof", ours_path), ("perf2bolt", theirs_path)):
        res[who] = f = bolt(new, y, out + "/new-" + who + ".bolt",
                            ["-infer-stale-profile"])
        print(f"rebuilt binary, {who}: {f['stale']} stale functions, "
              f"inferred {f['inferred']} "
              f"({f.get('inferred_pct', '0')}% of samples), "
              f"{f['exact']}/{f['stale_blocks']} stale blocks matched exactly")
        for l in f["lines"]:
            print("  " + l)
    o, t = res["lbr2prof"], res["perf2bolt"]
    ok &= o["stale"] >= 1 and o["stale"] <= t["stale"]
    ok &= o["inferred"] >= t["inferred"] and o["inferred"] == o["stale"]
    ok &= o["exact"] >= 0.8 * t["exact"]
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


sys.exit(main())
