"""Where the LLVM 19 tools are: shared by the Python helpers in utils/."""
import os


def tool(name):
    """The path of LLVM 19's NAME (NAME-19 first), else NAME on PATH."""
    for n in (name + "-19", name):
        for d in ("/usr/lib/llvm-19/bin", "/usr/bin"):
            p = os.path.join(d, n)
            if os.path.exists(p):
                return p
    return name
