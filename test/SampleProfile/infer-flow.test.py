# Checks that the inferred profile is closer to the truth than the plain one:
#   infer-flow.test.py PLAIN_OVERLAP INFERRED_OVERLAP   (llvm-profdata overlap)
#   infer-flow.test.py --fdata OVERLAP_TXT              (profile-overlap.py)
import re, sys

def similarity(path):
    m = re.search(r"Whole program profile similarity: ([0-9.]+)%", open(path).read())
    if not m:
        sys.exit(f"{path}: no whole-program similarity")
    return float(m.group(1))

if sys.argv[1] == "--fdata":
    text = open(sys.argv[2]).read()
    v = dict(re.findall(r"^(\w+) branch overlap: ([0-9.]+)", text, re.M))
    plain, inferred = float(v["plain"]), float(v["inferred"])
else:
    plain, inferred = similarity(sys.argv[1]), similarity(sys.argv[2])
print(f"plain {plain} inferred {inferred}")
if inferred < plain:
    sys.exit(f"inference moved the profile away from the truth: {plain} -> {inferred}")
