#!/usr/bin/env python3
"""Writes lbr2prof's bash and zsh completion from the built binary's --help.

    gen-completion.py --lbr2prof build/bin/lbr2prof --bash OUT --zsh OUT
    gen-completion.py --lbr2prof BIN --check FILE...

The build runs the first form (utils/CMakeLists.txt), so the completion lists
the options of the binary it is installed with and cannot drift from them.
--check verifies that every option and subcommand of BIN's --help appears in
each FILE (the package test runs it on the installed files).

What is completed: options per subcommand (after `dump` or `report` their
own), a choice option's values (--format, --dump, --sort), file names for
options taking a path (TEXT) and for the inputs, nothing for numbers (UINT).
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import clihelp  # noqa: E402


# TEXT options whose value is not a file name; every other TEXT is a path.
NOT_FILES = {"--block"}  # 0xADDR or FUNCTION:LINE


def takes_file(o):
    return o.value == "TEXT" and not set(o.names) & NOT_FILES


def shell_words(words):
    """Words for a single-quoted shell list (options never hold quotes)."""
    return " ".join(words)


def bash_script(cmds):
    top = cmds[0]
    subs = [c.name for c in cmds[1:]]
    out = []
    w = out.append
    w("# bash completion for lbr2prof. Generated from `lbr2prof --help` by")
    w("# utils/completion/gen-completion.py; do not edit.")
    w("_lbr2prof() {")
    w("  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}")
    w("  local i sub=")
    w("  # --format=te arrives as '--format' '=' 'te' (= is a word break).")
    w("  if [[ $cur == = ]]; then prev=${COMP_WORDS[COMP_CWORD-1]}; cur=")
    w("  elif [[ $prev == = ]]; then prev=${COMP_WORDS[COMP_CWORD-2]}; fi")
    w("  for ((i = 1; i < COMP_CWORD; i++)); do")
    w("    case ${COMP_WORDS[i]} in")
    w("      %s) sub=${COMP_WORDS[i]}; break ;;" % "|".join(subs))
    w("    esac")
    w("  done")
    w("  local opts")
    w("  case $sub in")
    for c in cmds:
        names = [n for o in c.options for n in o.names]
        w("    %s)" % (c.name if c.name else "''"))
        w("      opts='%s'" % shell_words(names))
        w("      case $prev in")
        for o in c.options:
            if o.value is None:
                continue
            pat = "|".join(o.names)
            if o.choices:
                w("        %s) COMPREPLY=($(compgen -W '%s' -- \"$cur\")); "
                  "return ;;" % (pat, shell_words(o.choices)))
            elif takes_file(o):
                w("        %s) compopt -o filenames; "
                  "COMPREPLY=($(compgen -f -- \"$cur\")); return ;;" % pat)
            else:
                w("        %s) COMPREPLY=(); return ;;" % pat)
        w("      esac ;;")
    w("  esac")
    w("  if [[ $cur == -* ]]; then")
    w("    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))")
    w("    return")
    w("  fi")
    w("  compopt -o filenames")
    w("  COMPREPLY=($(compgen -f -- \"$cur\"))")
    w("  if [[ -z $sub ]]; then")
    w("    COMPREPLY+=($(compgen -W '%s' -- \"$cur\"))" % shell_words(subs))
    w("  fi")
    w("}")
    w("complete -F _lbr2prof lbr2prof")
    return "\n".join(out) + "\n"


def zsh_quote(s):
    """Text inside a single-quoted _arguments spec: no ', ], :, \\."""
    s = s.replace("\\", "\\\\").replace("'", "'\\''")
    return s.replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")


def short_desc(desc):
    """The description up to its first ';' or ' (default', for one line."""
    for stop in ("; ", " (default"):
        i = desc.find(stop)
        if i > 0:
            desc = desc[:i]
    return desc


def zsh_specs(cmd):
    specs = []
    for o in cmd.options:
        group = " ".join(o.names)
        excl = "(%s)" % group if len(o.names) > 1 and not o.repeats else ""
        if o.repeats:
            excl = "*"
        if o.value is None:
            action = ""
        elif o.choices:
            action = ":%s:(%s)" % (o.value.lower(), " ".join(o.choices))
        elif takes_file(o):
            action = ":file:_files"
        else:
            action = ":%s: " % o.value.lower()
        desc = zsh_quote(short_desc(o.desc))
        for n in o.names:
            name = n + ("=" if n.startswith("--") and o.value else "")
            specs.append("'%s%s[%s]%s'" % (excl, name, desc, action))
    return specs


def zsh_script(cmds):
    top = cmds[0]
    out = []
    w = out.append
    w("#compdef lbr2prof")
    w("# zsh completion for lbr2prof. Generated from `lbr2prof --help` by")
    w("# utils/completion/gen-completion.py; do not edit.")
    w("")
    w("_lbr2prof() {")
    w("  local i")
    w("  # After a subcommand, complete its own options and inputs.")
    w("  for ((i = 2; i < CURRENT; i++)); do")
    w("    case ${words[i]} in")
    for c in cmds[1:]:
        w("      %s)" % c.name)
        w("        shift $((i - 1)) words")
        w("        (( CURRENT -= i - 1 ))")
        w("        _arguments -s -S \\")
        for s in zsh_specs(c):
            w("          %s \\" % s)
        w("          '*:input:_files'")
        w("        return ;;")
    w("    esac")
    w("  done")
    items = " ".join('%s\\:"%s"' % (name, zsh_quote(short_desc(desc))
                                      .replace('"', '\\"'))
                     for name, desc in top.subcommands)
    w("  _arguments -s -S \\")
    for s in zsh_specs(top):
        w("    %s \\" % s)
    w("    '*:: :->inputs' && return")
    w("  _alternative 'subcommands:subcommand:((%s))' 'files:input:_files'"
      % items)
    w("}")
    w("")
    w('_lbr2prof "$@"')
    return "\n".join(out) + "\n"


def check(cmds, files):
    words = set()
    for c in cmds:
        words.update(n for o in c.options for n in o.names)
        words.update(n for n, _ in c.subcommands)
    bad = 0
    for path in files:
        with open(path) as f:
            text = f.read()
        for word in sorted(words):
            if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(word),
                             text):
                print("%s: missing %s" % (path, word), file=sys.stderr)
                bad += 1
    if not bad:
        print("%d options and subcommands in %d files" % (len(words),
                                                           len(files)))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lbr2prof", required=True, help="the built binary")
    ap.add_argument("--bash", help="bash completion file to write")
    ap.add_argument("--zsh", help="zsh completion file (_lbr2prof) to write")
    ap.add_argument("--check", nargs="+", metavar="FILE",
                    help="check that FILEs name every option")
    args = ap.parse_args()
    cmds = clihelp.read(args.lbr2prof)
    if args.check:
        return check(cmds, args.check)
    for path, make in ((args.bash, bash_script), (args.zsh, zsh_script)):
        if path:
            with open(path + ".tmp", "w") as f:
                f.write(make(cmds))
            os.replace(path + ".tmp", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
