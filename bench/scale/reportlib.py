"""What bench/scale's report scripts share: their command line, the
README section between markers, and the look of their two log-log plots.
"""
import argparse


def parse_args(doc):
    """CSV [--rev REV] [--load LOAD] [--readme MD] [--png OUT]."""
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("csv")
    ap.add_argument("--rev", default="")
    ap.add_argument("--load", default="")
    ap.add_argument("--readme")
    ap.add_argument("--png")
    ap.add_argument("--marker", default=None,
                    help="the README section's marker (default: the script's)")
    return ap.parse_args()


def write_section(readme, marker, intro, table, png, alt):
    """Replaces README's part between <!-- MARKER:begin --> and
    <!-- MARKER:end --> (appends it if there is none): INTRO, the table and
    the plot."""
    md = open(readme).read()
    begin, end = "<!-- %s:begin -->" % marker, "<!-- %s:end -->" % marker
    body = "%s\n\n%s\n\n%s\n\n![%s](%s)\n%s" % (begin, intro, table, alt, png, end)
    if begin in md:
        md = md[:md.index(begin)] + body + md[md.index(end) + len(end):]
    else:
        md += "\n" + body + "\n"
    open(readme, "w").write(md)


def finish_plot(fig, axes, xlabel, title, path, legend_size=8):
    """Log-log time and RSS panels, a legend on the second, saved to PATH."""
    for ax, what in zip(axes, ("wall time (s)", "peak RSS (MB)")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(what)
        ax.grid(True, which="both", alpha=0.3)
    axes[1].legend(fontsize=legend_size, loc="upper left")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
