# lit configuration for lbr2prof's tool tests. Each test is one behaviour,
# with inputs inline (split-file) or generated during the test; outside
# programs (perf, llvm-profdata, llvm-bolt, clang) judge our output. Tests
# that need an optional program say so with REQUIRES: and its feature name.
import os
import subprocess
import shutil
import lit.formats

config.name = "lbr2prof"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test", ".c", ".s"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.lbr2prof_obj_root, "test")

# Our tools first, then LLVM 19's, then the system's.
path = os.pathsep.join([config.lbr2prof_tools_dir,
                        os.path.join(config.lbr2prof_src_root, "utils"),
                        config.llvm_tools_dir,
                        config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path
for var in ("HOME", "TMPDIR", "LANG"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.environment["PERF_PAGER"] = "cat"
config.environment["LBR2PROF_NO_PROGRESS"] = "1"
if config.sanitized:
    config.environment["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    config.available_features.add("sanitized")

config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%utils", os.path.join(config.lbr2prof_src_root, "utils")))
config.substitutions.append(("%srcroot", config.lbr2prof_src_root))
config.substitutions.append(("FileCheck", config.filecheck))
config.substitutions.append(("%overlap", config.python_executable + " " +
                             os.path.join(config.lbr2prof_src_root, "utils", "profile-overlap.py")))
config.substitutions.append(("%same-tokens", config.python_executable + " " +
                             os.path.join(config.lbr2prof_src_root, "utils", "same-tokens.py")))

# Tests that make device nodes (mknod) or give files away need root.
if hasattr(os, "geteuid") and os.geteuid() == 0:
    config.available_features.add("root")

def have(prog):
    return shutil.which(prog, path=path) is not None

# `perf script` is the judge of every perf.data we read or write.
if have("perf"):
    config.available_features.add("perf")
    # Software events work in VMs without a PMU; branch stacks do not.
    import subprocess
    try:
        ok = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-o",
                             "/dev/null", "true"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, timeout=30).returncode == 0
    except Exception:
        ok = False
    if ok:
        config.available_features.add("perf-record")
if have("clang-19") or have("clang"):
    config.available_features.add("clang")
# gcc 12 judges the GCC AutoFDO (.afdo) profiles (-fauto-profile=).
if have("gcc-12"):
    config.available_features.add("gcc-12")
if have("g++-12"):
    config.available_features.add("g++-12")
if have("qemu-x86_64"):
    config.available_features.add("qemu")
# callgrind judges lbr-record's copy of its branch predictor (predsim.test).
if have("valgrind"):
    config.available_features.add("valgrind")
if os.path.exists(os.path.join(config.llvm_tools_dir, "perf2bolt")):
    config.available_features.add("perf2bolt")
if have("llvm-profgen"):
    config.available_features.add("llvm-profgen")
if have("create_llvm_prof"):
    config.available_features.add("create_llvm_prof")
# AArch64 guests: qemu-aarch64 plus Debian's cross sysroot and libgcc.
if have("qemu-aarch64") and os.path.exists("/usr/aarch64-linux-gnu/lib/libc.so.6") \
        and os.path.isdir("/usr/lib/gcc-cross/aarch64-linux-gnu"):
    config.available_features.add("aarch64-cross")
# utils/lbr2prof-fleet runs on Debian's python3-distributed (its shebang is
# /usr/bin/python3, whatever python runs lit).
if os.path.exists("/usr/bin/python3"):
    import subprocess
    try:
        ok = subprocess.run(["/usr/bin/python3", "-c", "import distributed"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            timeout=60).returncode == 0
    except Exception:
        ok = False
    if ok:
        config.available_features.add("dask")
if have("valgrind"):
    config.available_features.add("valgrind")
# A local debuginfod server (elfutils') serves debug files to lbr2prof's
# debuginfod client (elfutils' libdebuginfod.so.1, which the server's
# package brings).
if have("debuginfod"):
    config.available_features.add("debuginfod")
if have("llvm-bolt"):
    config.available_features.add("llvm-bolt")
# Headless Chromium renders the HTML report for a screenshot check.
if have("chromium"):
    config.available_features.add("chromium")
# The package test builds the .deb with cpack in the build tree and opens it
# with dpkg-deb (never installing it); man renders the page, bash loads the
# completion.
config.substitutions.append(("%builddir", config.lbr2prof_obj_root))
if have("cpack") and have("dpkg-deb") and have("dpkg-shlibdeps") \
        and have("man") and have("bash"):
    config.available_features.add("package")
# Recordings made on real machines (../shared/real-perf-data, see its
# SOURCES.md): read in place, never copied or modified. Tests that use them
# say REQUIRES: real-perf-data and skip where the tree is absent. Found
# through LBR2PROF_REAL_PERF_DATA, else beside the source tree, else beside
# the repository it was cloned from when that is a directory here (CI
# tests a fresh clone in another place).
def real_perf_data():
    tried = []
    if os.environ.get("LBR2PROF_REAL_PERF_DATA"):
        tried.append(os.environ["LBR2PROF_REAL_PERF_DATA"])
    tried.append(os.path.join(config.lbr2prof_src_root, "..", "shared",
                              "real-perf-data"))
    try:
        origin = subprocess.run(
            ["git", "-C", config.lbr2prof_src_root, "config", "--get",
             "remote.origin.url"], capture_output=True, text=True,
            timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        origin = ""
    if origin.startswith("file://"):
        origin = origin[len("file://"):]
    if origin.startswith("/"):
        tried.append(os.path.join(origin, "..", "shared", "real-perf-data"))
    for d in tried:
        if os.path.isdir(os.path.join(d, "pdc")):
            return os.path.normpath(d)
    return os.path.normpath(tried[-1])


realdata = real_perf_data()
if os.path.isdir(os.path.join(realdata, "pdc")):
    config.available_features.add("real-perf-data")
config.substitutions.append(("%realdata", realdata))
