"""Reads lbr2prof's command line from its own --help output.

The man page (utils/md2man.py) and the shell completions
(utils/completion/gen-completion.py) are made from what the built binary
prints, so they list exactly the options it accepts. CLI11 prints, per
command:

    DESCRIPTION
    Usage: lbr2prof [OPTIONS] [inputs...] [SUBCOMMAND]

    Positionals:
      inputs TEXT ...             perf.data files ...
    Options:
      -o,--output TEXT            Output profile
      --format TEXT:{auto,fdata}  (a description too long for the column
                                  continues on the next lines)
      --no-window-weighting{false}
                                  Count every ...
    Subcommands:
      dump                        Print the samples ...

    Examples: ...                 (the footer: free text, not parsed)

An entry starts two spaces in; its head is the names (comma-separated, a
"{default}" glued on for flags), then an optional value type (TEXT, UINT,
TEXT:{a,b} for a choice), "..." when it repeats, "REQUIRED", or "[default]".
"""

import re
import subprocess

SECTIONS = ("Positionals:", "Options:", "Subcommands:")


class Option:
    """One option: names ('-o', '--output'), value type or None for a
    flag, choices (list) or None, whether it repeats, the description."""

    def __init__(self, names, value, choices, repeats, desc):
        self.names = names
        self.value = value
        self.choices = choices
        self.repeats = repeats
        self.desc = desc

    @property
    def long_names(self):
        return [n for n in self.names if n.startswith("--")]


class Command:
    """One command's help: its name ('' for the top level), description,
    usage line, positionals and options (Option), subcommands (name, desc)."""

    def __init__(self, name):
        self.name = name
        self.desc = ""
        self.usage = ""
        self.positionals = []
        self.options = []
        self.subcommands = []


def _parse_head(head):
    """'-o,--output TEXT' -> Option without its description."""
    tokens = head.split()
    names = re.sub(r"\{[^}]*\}$", "", tokens[0]).split(",")
    value, choices, repeats = None, None, False
    for tok in tokens[1:]:
        if tok == "...":
            repeats = True
        elif tok == "REQUIRED" or tok.startswith("["):
            continue
        elif value is None:
            m = re.match(r"^([A-Z]+)(?::\{(.*)\}|:(\w+))?$", tok)
            if not m:
                raise ValueError("unexpected token %r in %r" % (tok, head))
            value = m.group(1) if not m.group(3) else m.group(3)
            if m.group(2) is not None:
                choices = m.group(2).split(",")
    return Option(names, value, choices, repeats, "")


def parse(text, name=""):
    """Parses one command's --help text into a Command."""
    cmd = Command(name)
    section = None
    entry = None  # the Option or [name, desc] being filled
    desc_lines = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.startswith("Usage: "):
            cmd.usage = line[len("Usage: "):].strip()
            continue
        if line in SECTIONS:
            section = line[:-1]
            entry = None
            continue
        if not line.startswith(" "):
            if section is None and not cmd.usage:
                desc_lines.append(line.strip())
            section = None  # the footer, or anything after the sections
            continue
        if section is None:
            continue
        if not line.startswith("   "):  # a new entry, two spaces in
            head, _, desc = line.strip().partition("  ")
            desc = desc.strip()
            if section == "Subcommands":
                entry = [head, desc]
                cmd.subcommands.append(entry)
            elif section == "Options":
                entry = _parse_head(head)
                entry.desc = desc
                cmd.options.append(entry)
            else:
                entry = _parse_head("-" + head)  # same head syntax
                entry.names = [head.split()[0]]
                entry.desc = desc
                cmd.positionals.append(entry)
            continue
        more = line.strip()  # a description continued on its own line
        if isinstance(entry, list):
            entry[1] = (entry[1] + " " + more).strip()
        elif entry is not None:
            entry.desc = (entry.desc + " " + more).strip()
    cmd.desc = " ".join(desc_lines)
    _check(text, cmd)
    return cmd


def _check(text, cmd):
    """Every --name that starts an Options line must have been parsed: a
    change in CLI11's layout should fail the build, not drop options."""
    parsed = {n for o in cmd.options for n in o.names}
    for m in re.finditer(r"^  (-[-\w,]+)", text, re.M):
        for n in m.group(1).split(","):
            if n.startswith("-") and n not in parsed:
                raise ValueError("option %s in --help was not parsed" % n)


def read(exe):
    """Runs EXE --help and EXE SUB --help; returns [top, sub...]."""
    def run(*args):
        return subprocess.run([exe] + list(args) + ["--help"], check=True,
                              stdout=subprocess.PIPE, text=True).stdout
    top = parse(run(), "")
    return [top] + [parse(run(sub), sub) for sub, _ in top.subcommands]


def version(exe):
    """The first line of EXE --version."""
    return subprocess.run([exe, "--version"], check=True,
                          stdout=subprocess.PIPE,
                          text=True).stdout.splitlines()[0].strip()
