#!/usr/bin/env python3
"""Writes the lbr2prof(1) man page from docs/user-guide.md and the binary.

    md2man.py --lbr2prof build/bin/lbr2prof docs/user-guide.md -o lbr2prof.1.gz

The page is NAME and SYNOPSIS (from --help), OPTIONS (every command's
options, from --help, so none is missing), then the user guide's sections,
then SEE ALSO. Output ending in .gz is gzip-compressed with no timestamp, so
the same inputs give the same bytes.

The Markdown it converts is the subset the guide uses:

    ## Title, ### Title          -> .SH TITLE, .SS Title
    paragraphs                   -> .PP, text joined into one line
    - item (continued two in)    -> .IP \\(bu 2, later paragraphs .IP "" 2
    four-space or ``` code       -> .nf ... .fi, indented
    | a | b | tables             -> one .TP per row: first cell as the tag,
                                    the others as "Header: cell" lines
    `code` **bold**              -> \\fB...\\fR
    [text](target)               -> text (target)

Every '-' becomes '\\-' (a minus: options copy and search as typed), a
backslash '\\e', and a line that would start with '.' or "'" gets '\\&'.
"""

import argparse
import gzip
import io
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clihelp  # noqa: E402


def escape(text):
    """Plain text to roff: backslashes and minus signs."""
    return text.replace("\\", "\\e").replace("-", "\\-")


def inline(text):
    """One paragraph's Markdown inline markup to roff."""
    out = []
    # Split off code spans first: nothing inside them is markup.
    for i, part in enumerate(re.split(r"(`[^`]*`)", text)):
        if i % 2:
            out.append("\\fB" + escape(part[1:-1]) + "\\fR")
            continue
        part = part.replace("\\|", "|")
        part = re.sub(r"\[([^\]]+)\]\(([^)]+)\)",
                      lambda m: m.group(1) if m.group(1) == m.group(2)
                      else "%s (%s)" % (m.group(1), m.group(2)), part)
        part = escape(part)
        part = re.sub(r"\*\*(.+?)\*\*", r"\\fB\1\\fR", part)
        out.append(part)
    return "".join(out)


def line_out(text):
    """A text line that roff must not read as a request."""
    return "\\&" + text if text.startswith((".", "'")) else text


class Writer:
    def __init__(self):
        self.lines = []

    def req(self, request):
        self.lines.append(request)

    def text(self, text):
        self.lines.append(line_out(text))

    def code(self, lines):
        self.req(".RS 4")
        self.req(".nf")
        for ln in lines:
            self.text(escape(ln))
        self.req(".fi")
        self.req(".RE")


def split_row(line):
    cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
    # A cell's '\|' is a '|', also inside a code span.
    return [c.strip().replace("\\|", "|") for c in cells]


def convert(md, w):
    """Converts the guide's Markdown (its '#' title dropped) into w."""
    lines = md.splitlines()
    i = 0
    para = []
    in_item = False  # inside a '- ' list item

    def flush():
        nonlocal para
        if para:
            w.text(inline(" ".join(s.strip() for s in para)))
            para = []

    while i < len(lines):
        ln = lines[i]
        stripped = ln.strip()
        indent = len(ln) - len(ln.lstrip(" "))
        if not stripped:
            flush()
            i += 1
            continue
        if ln.startswith("# "):
            i += 1
            continue
        if ln.startswith("## ") or ln.startswith("### "):
            flush()
            in_item = False
            title = ln.split(" ", 1)[1].strip()
            if ln.startswith("## "):
                w.req(".SH " + inline(title.replace("`", "").upper()))
            else:
                w.req(".SS " + inline(title))
            i += 1
            continue
        fence = stripped.startswith("```")
        base = 2 if in_item else 0
        if fence or (indent >= base + 4 and not para):
            # A code block: fenced, or indented four past the text.
            flush()
            block = []
            if fence:
                i += 1
                while i < len(lines) and not lines[i].strip().startswith("```"):
                    block.append(lines[i])
                    i += 1
                i += 1
            else:
                while i < len(lines) and (not lines[i].strip() or
                                          len(lines[i]) - len(lines[i].lstrip(" "))
                                          >= base + 4):
                    block.append(lines[i])
                    i += 1
            while block and not block[-1].strip():
                block.pop()
            cut = min(len(b) - len(b.lstrip(" ")) for b in block if b.strip())
            if in_item:
                w.req('.IP "" 2')
            else:
                w.req(".PP")
            w.code([b[cut:] for b in block])
            continue
        if stripped.startswith("|"):
            flush()
            in_item = False
            head = split_row(stripped)
            i += 1
            if i < len(lines) and re.match(r"^\|[-|: ]+\|$", lines[i].strip()):
                i += 1
            while i < len(lines) and lines[i].strip().startswith("|"):
                cells = split_row(lines[i])
                w.req(".TP")
                w.text(inline("**%s**" % cells[0]))
                for h, c in zip(head[1:], cells[1:]):
                    w.text(inline("%s: %s" % (h, c)))
                    w.req(".br")
                i += 1
            continue
        if ln.startswith("- "):
            flush()
            in_item = True
            w.req(".IP \\(bu 2")
            para.append(ln[2:])
            i += 1
            continue
        if in_item and indent >= 2:
            if not para:  # a later paragraph of the item
                w.req('.IP "" 2')
            para.append(ln)
            i += 1
            continue
        if in_item and indent == 0 and not para:
            in_item = False
        if not para:
            w.req(".PP")
        para.append(ln)
        i += 1
    flush()


def options_section(cmds, w):
    w.req(".SH OPTIONS")
    for c in cmds:
        if c.name:
            w.req(".SS " + inline("`lbr2prof %s`" % c.name))
            w.text(inline(c.desc))
        for o in c.options:
            names = ", ".join("\\fB%s\\fR" % escape(n) for n in o.names)
            if o.choices:
                # \: lets troff break a long list after a '|'.
                names += " \\fI%s\\fR" % "|\\:".join(
                    escape(c) for c in o.choices)
            elif o.value:
                names += " \\fI%s\\fR" % o.value
            if o.repeats:
                names += " ..."
            w.req(".TP")
            w.text(names)
            w.text(inline(o.desc))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("guide", help="docs/user-guide.md")
    ap.add_argument("--lbr2prof", required=True, help="the built binary")
    ap.add_argument("-o", "--output", required=True,
                    help="the page (lbr2prof.1, or lbr2prof.1.gz)")
    args = ap.parse_args()
    cmds = clihelp.read(args.lbr2prof)
    version = clihelp.version(args.lbr2prof)
    with open(args.guide, encoding="utf-8") as f:
        md = f.read()

    w = Writer()
    w.req('.TH LBR2PROF 1 "" "%s" "User Commands"' % escape(version))
    w.req(".nh")  # no hyphenation: options copy as typed
    w.req(".ad l")  # ragged right: long option names leave no wide gaps
    w.req(".SH NAME")
    summary = cmds[0].desc.split(": ", 1)[-1]
    w.text("lbr2prof \\- " + escape(summary))
    w.req(".SH SYNOPSIS")
    for c in cmds:
        w.req(".PP" if c is cmds[0] else ".br")
        w.text(escape(c.usage))
    w.req(".SH DESCRIPTION")
    w.text(inline(
        "lbr2prof reads branch-stack samples (`perf record -b`: Intel LBR, "
        "AMD LBRv2, Arm BRBE) from perf.data files or `perf script` text and "
        "writes LLVM sample profiles (for `clang -fprofile-sample-use`) and "
        "BOLT profiles (for `llvm-bolt`). `dump` prints what a recording "
        "holds; `report` shows what the branch stacks say about a binary. "
        "The sections after OPTIONS are the user guide."))
    options_section(cmds, w)
    convert(md, w)
    w.req(".SH SEE ALSO")
    w.text(inline("perf-record(1), perf-script(1), clang(1), llvm-bolt, "
                  "llvm-profdata. The design, file formats and recording "
                  "guides are in /usr/share/doc/lbr2prof (or the "
                  "`docs` directory of the source)."))
    page = "\n".join(w.lines) + "\n"

    data = page.encode("utf-8")
    if args.output.endswith(".gz"):
        buf = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0,
                           compresslevel=9) as g:
            g.write(data)
        data = buf.getvalue()
    tmp = args.output + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
