#!/usr/bin/env python3
"""Runs one command under /usr/bin/time and prints
`SECONDS MAX_RSS_KB PEAK_ANON_KB EXIT_STATUS` on one line.

SECONDS is the wall time of the command (taken here, to the microsecond,
around /usr/bin/time). MAX_RSS_KB is /usr/bin/time's %M: the largest peak
RSS of the command or of any child it waited for, file-backed pages
included. PEAK_ANON_KB is the largest sum of RssAnon over the command's
process tree, sampled every 20 ms: the memory that is really the tools',
as opposed to mapped files (perf2bolt maps the text `perf script` wrote;
llvm-profgen's `perf script` child maps the whole perf.data). Runs shorter
than a sample or two report what was seen, possibly 0.

The command's stdout is discarded and its stderr goes to LOG.

usage: measure.py LOG -- CMD...
"""
import os
import subprocess
import sys
import tempfile
import threading
import time

PERIOD = 0.02


def tree(pid):
    """pid and its descendants (through /proc/PID/task/TID/children)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for tid in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, tid)) as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return out


def anon_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__.split("\n\n")[-1])
    log, cmd = sys.argv[1], sys.argv[3:]
    fd, tfile = tempfile.mkstemp(prefix="measure.")
    os.close(fd)
    peak = [0]
    done = threading.Event()
    with open(log, "wb") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", tfile] + cmd,
                             stdout=subprocess.DEVNULL, stderr=err)

        def watch():
            while not done.is_set():
                # The tree below /usr/bin/time (whose own RSS is ~2 MB).
                pids = tree(p.pid)[1:]
                peak[0] = max(peak[0], sum(anon_kb(q) for q in pids))
                done.wait(PERIOD)

        w = threading.Thread(target=watch)
        w.start()
        rc = p.wait()
        secs = time.perf_counter() - t0
        done.set()
        w.join()
    with open(tfile) as f:
        lines = f.read().split()
    os.unlink(tfile)
    rss = lines[-1] if lines and lines[-1].isdigit() else "0"
    print("%.3f %s %d %d" % (secs, rss, peak[0], rc))


if __name__ == "__main__":
    main()
