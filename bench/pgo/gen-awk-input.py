#!/usr/bin/env python3
"""bench/pgo/gen-awk-input.py: write the gawk workloads' input files.

Deterministic (the seeds derive from SEED), so every run measures the same
bytes; setup.sh makes a training set and an evaluation set with different
seeds and sizes:
  access.log  web-server log lines (training input of awk-train.awk)
  sales.csv   comma-separated records (training and evaluation)
  text.txt    prose-like text of generated words (evaluation input)
usage: gen-awk-input.py OUTDIR [SCALE [SEED]]   (SCALE 1: about 11 MB in all)
"""
import os
import random
import sys


def access_log(path, n, rng):
    hosts = ["10.%d.%d.%d" % (rng.randrange(4), rng.randrange(16), rng.randrange(256))
             for _ in range(400)]
    paths = ["/", "/index.html", "/about", "/img/logo.png", "/api/v1/items",
             "/api/v1/users", "/login.php", "/search", "/static/app.js",
             "/static/site.css", "/blog/2023/05/entry", "/feed.xml"]
    agents = ["Mozilla/5.0 (X11; Linux x86_64)", "curl/7.88.1",
              "Mozilla/5.0 (Windows NT 10.0)", "Googlebot/2.1", "Wget/1.21"]
    status = [200] * 16 + [304] * 3 + [404, 500, 301, 403]
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun"]
    with open(path, "w") as f:
        for _ in range(n):
            p = rng.choice(paths)
            if rng.random() < 0.3:
                p += "?id=%d&q=%s" % (rng.randrange(10000), rng.choice("abcdxyz") * rng.randrange(1, 6))
            f.write('%s - - [%02d/%s/2023:%02d:%02d:%02d +0000] "%s %s HTTP/1.1" %d %d "-" "%s"\n' % (
                rng.choice(hosts), rng.randrange(1, 29), rng.choice(months),
                rng.randrange(24), rng.randrange(60), rng.randrange(60),
                rng.choice(["GET"] * 8 + ["POST", "HEAD"]), p, rng.choice(status),
                rng.randrange(100, 90000), rng.choice(agents)))


def sales_csv(path, n, rng):
    regions = ["north", "south", "east", "west", "central"]
    items = ["widget", "gadget", "doohickey", "sprocket", "gizmo", "thingamajig"]
    with open(path, "w") as f:
        f.write("id,date,region,item,qty,price,customer\n")
        for i in range(n):
            f.write("%d,2023-%02d-%02d,%s,%s,%d,%.2f,cust%04d\n" % (
                i, rng.randrange(1, 13), rng.randrange(1, 29), rng.choice(regions),
                rng.choice(items), rng.randrange(1, 50), rng.uniform(0.5, 250.0),
                rng.randrange(3000)))


def text(path, n, rng):
    syll = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "xu", "an", "el",
            "or", "is", "um", "th", "qu", "st"]
    # A Zipf-like vocabulary, as in natural text.
    vocab = ["".join(rng.choice(syll) for _ in range(rng.randrange(1, 5)))
             for _ in range(6000)]
    weights = [1.0 / (k + 1) for k in range(len(vocab))]
    with open(path, "w") as f:
        for _ in range(n):
            words = rng.choices(vocab, weights, k=rng.randrange(4, 16))
            if rng.random() < 0.3:
                words[0] = words[0].capitalize()
            line = " ".join(words)
            line += rng.choice([".", ",", ";", "!", "?", ""])
            f.write(line + "\n")


def main():
    out = sys.argv[1]
    scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    os.makedirs(out, exist_ok=True)
    access_log(os.path.join(out, "access.log"), int(40000 * scale), random.Random(1 * 1000 + seed))
    sales_csv(os.path.join(out, "sales.csv"), int(60000 * scale), random.Random(2 * 1000 + seed))
    text(os.path.join(out, "text.txt"), int(60000 * scale), random.Random(3 * 1000 + seed))


if __name__ == "__main__":
    main()
