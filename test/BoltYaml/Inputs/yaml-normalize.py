"""Reads a BOLT YAML profile on stdin and prints its functions without
what differs by writer only: the header, quotes around names, and blocks'
exec lines other than the entry block's (perf2bolt writes none there)."""
import sys

out, in_entry = [], False
lines = sys.stdin.read().splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith("functions:"))
for line in lines[start:]:
    s = line.strip()
    if s.startswith("- bid:"):
        in_entry = s.split()[-1] == "0"
    if s.startswith("exec:") and line.startswith("        ") and not in_entry:
        continue
    out.append(" ".join(s.replace("'", "").split()))
print("\n".join(out))
