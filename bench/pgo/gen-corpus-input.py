#!/usr/bin/env python3
"""Deterministic inputs for the bzip2, jq and re2 workloads of bench/pgo.

    gen-corpus-input.py PROGRAM DIR SCALE SEED

PROGRAM is bzip2, jq or re2; SCALE multiplies the sizes (1 is about a
megabyte per file), SEED picks the random stream. Training and evaluation
inputs come from different seeds, and setup.sh asks each for other kinds
of data, so that the two runs differ in data and in mix:

  bzip2 train: prose, C-like source, a numeric CSV
  bzip2 eval:  web-server log lines, JSON records, a byte stream with long
               runs (bzip2's fallback sort)
  jq train:    one JSON array of customer orders
  jq eval:     JSON lines of sensor events (one document per line)
  re2 train:   web-server log lines
  re2 eval:    prose mixed with C-like source and e-mail headers

Everything comes from Python's own random.Random(SEED), so the same
arguments give the same bytes on every machine.
"""
import json
import os
import random
import sys

SYLLABLES = ("ka ri to me sa lo nu vi pe da qu en ar is on ul th st ch sh "
             "ex or an in at er re co de mi pa ta si").split()


def make_words(rng, n):
    words = set()
    while len(words) < n:
        words.add("".join(rng.choice(SYLLABLES)
                          for _ in range(rng.randint(1, 4))))
    return sorted(words)


def zipf_picker(rng, items, s=1.1):
    weights = [1.0 / (i + 1) ** s for i in range(len(items))]
    cum, t = [], 0.0
    for w in weights:
        t += w
        cum.append(t)

    def pick():
        import bisect
        return items[bisect.bisect_left(cum, rng.random() * t)]
    return pick


def prose(rng, size):
    pick = zipf_picker(rng, make_words(rng, 3000))
    out, n = [], 0
    while n < size:
        sent = [pick() for _ in range(rng.randint(4, 18))]
        sent[0] = sent[0].capitalize()
        s = " ".join(sent) + rng.choice([". ", ". ", "? ", "! ", ".\n\n"])
        out.append(s)
        n += len(s)
    return "".join(out)


def c_source(rng, size):
    idents = make_words(rng, 400)
    types = ["int", "long", "char *", "struct node *", "size_t", "double"]
    out, n = [], 0
    while n < size:
        f = rng.choice(idents)
        lines = ["static %s %s_%s(%s %s, int %s)\n{\n" % (
            rng.choice(types), f, rng.choice(idents), rng.choice(types),
            rng.choice(idents), rng.choice(idents))]
        for _ in range(rng.randint(3, 20)):
            a, b = rng.choice(idents), rng.choice(idents)
            lines.append(rng.choice([
                "    if (%s > %d)\n        return %s;\n" % (a, rng.randint(0, 999), b),
                "    for (i = 0; i < %s; i++)\n        %s[i] += %s;\n" % (a, b, a),
                "    %s = %s_%s(%s, 0x%x);\n" % (a, b, a, b, rng.randint(0, 65535)),
                "    /* %s the %s */\n" % (a, b),
                "    printf(\"%s=%%d\\n\", %s);\n" % (a, a)]))
        lines.append("    return 0;\n}\n\n")
        s = "".join(lines)
        out.append(s)
        n += len(s)
    return "".join(out)


def numeric_csv(rng, size):
    out, n = ["id,region,qty,price,ts\n"], 0
    regions = ["north", "south", "east", "west", "central"]
    i = 0
    while n < size:
        i += 1
        s = "%d,%s,%d,%.2f,%d\n" % (i, rng.choice(regions), rng.randint(1, 50),
                                    rng.uniform(0.5, 999), 1700000000 + i * 37)
        out.append(s)
        n += len(s)
    return "".join(out)


def access_log(rng, size):
    paths = ["/", "/index.html", "/api/v1/items", "/api/v1/users/%d",
             "/static/app.%s.js", "/search?q=%s", "/login", "/cart/%d/checkout"]
    agents = ["Mozilla/5.0 (X11; Linux x86_64)", "curl/7.88.1",
              "Mozilla/5.0 (Windows NT 10.0; Win64; x64)", "Googlebot/2.1"]
    words = make_words(rng, 200)
    out, n, t = [], 0, 0
    while n < size:
        t += rng.randint(0, 3)
        p = rng.choice(paths)
        if "%d" in p:
            p = p % rng.randint(1, 99999)
        elif "%s" in p:
            p = p % rng.choice(words)
        s = '%d.%d.%d.%d - %s [%02d/Nov/2026:%02d:%02d:%02d +0000] "%s %s HTTP/1.1" %d %d "-" "%s"\n' % (
            rng.randint(1, 223), rng.randint(0, 255), rng.randint(0, 255),
            rng.randint(1, 254), rng.choice(words + ["-"] * 50),
            1 + t // 86400 % 28, t // 3600 % 24, t // 60 % 60, t % 60,
            rng.choice(["GET"] * 8 + ["POST", "PUT", "DELETE"]), p,
            rng.choice([200] * 12 + [301, 304, 404, 500]),
            rng.randint(0, 60000), rng.choice(agents))
        out.append(s)
        n += len(s)
    return "".join(out)


def json_records(rng, size):
    words = make_words(rng, 300)
    out, n, i = [], 0, 0
    while n < size:
        i += 1
        s = json.dumps({"id": i, "name": rng.choice(words),
                        "tags": [rng.choice(words) for _ in range(rng.randint(0, 4))],
                        "score": round(rng.gauss(50, 15), 3),
                        "active": rng.random() < 0.7}) + "\n"
        out.append(s)
        n += len(s)
    return "".join(out)


def runs(rng, size):
    # Long runs and short periodic patterns: bzip2's main sort gives up on
    # such blocks and falls back to fallbackSort.
    out, n = bytearray(), 0
    while n < size:
        kind = rng.random()
        if kind < 0.4:
            chunk = bytes([rng.randint(0, 255)]) * rng.randint(100, 5000)
        elif kind < 0.8:
            pat = bytes(rng.randint(0, 255) for _ in range(rng.randint(2, 9)))
            chunk = pat * rng.randint(50, 800)
        else:
            chunk = bytes(rng.randint(0, 255) for _ in range(rng.randint(50, 500)))
        out += chunk
        n += len(chunk)
    return bytes(out)


def orders(rng, n):
    # One JSON array, pretty-printed like an API dump.
    words = make_words(rng, 500)
    cities = ["Lyon", "Oslo", "Quito", "Perth", "Kyoto", "Tunis", "Lima", "Graz"]
    recs = []
    for i in range(n):
        items = [{"sku": "SKU-%05d" % rng.randint(0, 20000),
                  "qty": rng.randint(1, 9),
                  "price": round(rng.uniform(1, 300), 2)}
                 for _ in range(rng.randint(1, 6))]
        recs.append({
            "order_id": 100000 + i,
            "customer": {"name": "%s %s" % (rng.choice(words).capitalize(),
                                            rng.choice(words).capitalize()),
                         "email": "%s.%s@%s.example" % (rng.choice(words), rng.choice(words),
                                                         rng.choice(words)),
                         "city": rng.choice(cities)},
            "date": "2026-%02d-%02dT%02d:%02d:00Z" % (rng.randint(1, 12), rng.randint(1, 28),
                                                     rng.randint(0, 23), rng.randint(0, 59)),
            "status": rng.choice(["paid", "paid", "paid", "shipped", "refunded", "open"]),
            "items": items,
            "note": rng.choice(["", "", "gift", "call before delivery",
                                "leave at door %d" % rng.randint(1, 99)])})
    return json.dumps(recs, indent=2) + "\n"


def events(rng, n):
    kinds = ["temp", "humidity", "pressure", "door", "motion", "battery"]
    out = []
    for i in range(n):
        ev = {"ts": 1764000000 + i * 3 + rng.randint(0, 2),
              "device": "dev-%03d" % rng.randint(0, 400),
              "kind": rng.choice(kinds),
              "value": round(rng.gauss(20, 8), 4),
              "meta": {"fw": "v%d.%d.%d" % (rng.randint(1, 3), rng.randint(0, 9), rng.randint(0, 20)),
                       "rssi": -rng.randint(30, 95),
                       "path": ["gw%d" % rng.randint(0, 9) for _ in range(rng.randint(1, 4))]}}
        if rng.random() < 0.1:
            ev["error"] = {"code": rng.randint(1, 40), "msg": "sensor fault %d" % rng.randint(0, 9)}
        out.append(json.dumps(ev, separators=(",", ":")))
    return "\n".join(out) + "\n"


def mail_and_code(rng, size):
    words = make_words(rng, 400)
    out, n = [], 0
    while n < size:
        k = rng.random()
        if k < 0.3:
            s = ("From: %s <%s@%s.org>\nTo: %s@%s.net\nSubject: Re: %s %s\n"
                 "Date: Tue, %d Nov 2026 %02d:%02d:%02d +0100\nMessage-ID: <%x.%x@mail.%s.org>\n\n") % (
                rng.choice(words).capitalize(), rng.choice(words), rng.choice(words),
                rng.choice(words), rng.choice(words), rng.choice(words), rng.choice(words),
                rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59),
                rng.getrandbits(40), rng.getrandbits(24), rng.choice(words))
        elif k < 0.6:
            s = c_source(rng, 300)
        else:
            s = prose(rng, 400) + "\n"
        out.append(s)
        n += len(s)
    return "".join(out)


def write(path, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path + ".tmp", mode) as f:
        f.write(data)
    os.replace(path + ".tmp", path)


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("bzip2", "jq", "re2"):
        sys.exit("usage: gen-corpus-input.py bzip2|jq|re2 DIR SCALE SEED")
    prog, d, scale, seed = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    rng = random.Random(seed)
    mb = int(scale * 1000000)
    os.makedirs(d, exist_ok=True)
    if prog == "bzip2":
        if seed % 2:  # training
            write(os.path.join(d, "prose.txt"), prose(rng, 2 * mb))
            write(os.path.join(d, "source.c"), c_source(rng, mb))
            write(os.path.join(d, "numbers.csv"), numeric_csv(rng, mb))
        else:
            write(os.path.join(d, "access.log"), access_log(rng, mb))
            write(os.path.join(d, "records.json"), json_records(rng, mb))
            write(os.path.join(d, "runs.bin"), runs(rng, mb // 2))
    elif prog == "jq":
        if seed % 2:
            write(os.path.join(d, "orders.json"), orders(rng, int(scale * 4000)))
        else:
            write(os.path.join(d, "events.jsonl"), events(rng, int(scale * 12000)))
    else:
        if seed % 2:
            write(os.path.join(d, "text.txt"), access_log(rng, mb))
        else:
            write(os.path.join(d, "text.txt"), mail_and_code(rng, mb))


if __name__ == "__main__":
    main()
