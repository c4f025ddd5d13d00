#!/usr/bin/env python3
"""Runs a command against a local debuginfod server (elfutils' debuginfod).

  with-debuginfod.py --scan DIR --db FILE --buildid-of ELF --cache DIR -- CMD...

Starts `debuginfod -F DIR` on a free port, waits until the server answers
GET /buildid/HEX/debuginfo (HEX: ELF's build-id, or --buildid HEX; the
server indexes DIR in the background), then runs
CMD with DEBUGINFOD_URLS=http://127.0.0.1:PORT and DEBUGINFOD_CACHE_PATH
set, and stops the server whatever happens. Exits with CMD's status; the
server's output goes to FILE.log.
"""
import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(url, server, deadline):
    """True once url gives 200; False if the server died or time ran out."""
    while time.time() < deadline:
        if server.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status == 200:
                    return True
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        time.sleep(0.2)
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scan", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--buildid")
    ap.add_argument("--buildid-of")
    ap.add_argument("--cache", required=True)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if not a.buildid:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import importlib
        a.buildid = importlib.import_module("build-id-dir").build_id(
            a.buildid_of)
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no command")
    last = None
    # A port found free can be taken before the server binds it: retry.
    for _ in range(3):
        port = free_port()
        log = open(a.db + ".log", "w")
        server = subprocess.Popen(
            ["debuginfod", "-F", a.scan, "-p", str(port), "-d", a.db,
             "-t", "1", "-g", "0", "-c", "1"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            url = "http://127.0.0.1:%d" % port
            if not wait_ready("%s/buildid/%s/debuginfo" % (url, a.buildid),
                              server, time.time() + a.timeout):
                last = "debuginfod on port %d did not serve %s (see %s.log)" % (
                    port, a.buildid, a.db)
                continue
            env = dict(os.environ)
            env["DEBUGINFOD_URLS"] = url
            env["DEBUGINFOD_CACHE_PATH"] = a.cache
            return subprocess.run(cmd, env=env).returncode
        finally:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGTERM)
                try:
                    server.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(server.pid, signal.SIGKILL)
                    server.wait()
            log.close()
    print("with-debuginfod.py: " + last, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
