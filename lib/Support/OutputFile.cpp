//===- OutputFile.cpp - temporary + rename, or straight through -----------===//
//
// Implements AtomicOutputFile. What the output's name is decides how it is
// written (see OutputFile.h); the temporary is made with
// llvm::sys::fs::createUniqueFile in the directory of the file it replaces,
// so that the rename stays on one file system and the rename, not a copy,
// is what makes the new output appear.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Support/OutputFile.h"
#include "lbr2prof/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include <cerrno>
#include <climits>
#include <cstring>
#include <optional>
#include <unistd.h>

using namespace llvm;
namespace fs = llvm::sys::fs;

namespace lbr2prof {

namespace {

/// How an output is written.
enum class OutputKind {
  /// A temporary renamed over Target.
  Replace,
  /// Opened and written in place: standard output or a special file.
  Direct,
};

/// The name a dangling symbolic link Path leads to: links followed one by
/// one (relative ones from the link's directory) until a name that does not
/// exist, or is not a link. Loops end with ELOOP, as the kernel's lookup.
Expected<std::string> danglingTarget(StringRef Path) {
  std::string Cur = Path.str();
  // Linux gives up after 40 links; so do we.
  for (unsigned Hops = 0; Hops < 40; ++Hops) {
    fs::file_status St;
    if (fs::status(Cur, St, /*follow=*/false) ||
        St.type() != fs::file_type::symlink_file)
      return Cur;
    char Link[PATH_MAX];
    ssize_t N = ::readlink(Cur.c_str(), Link, sizeof(Link));
    if (N < 0)
      return makeError("{0}: cannot read the symbolic link {1}: {2}", Path, Cur,
                       std::strerror(errno));
    if (size_t(N) == sizeof(Link))
      return makeError("{0}: the symbolic link {1} is too long", Path, Cur);
    StringRef To(Link, N);
    if (sys::path::is_absolute(To)) {
      Cur = To.str();
    } else {
      SmallString<256> Next(sys::path::parent_path(Cur));
      sys::path::append(Next, To);
      Cur = std::string(Next);
    }
  }
  return makeError(
      "{0}: cannot create output: {1}", Path,
      std::make_error_code(std::errc::too_many_symbolic_link_levels).message());
}

} // namespace

Expected<std::unique_ptr<AtomicOutputFile>>
AtomicOutputFile::create(StringRef Path) {
  std::unique_ptr<AtomicOutputFile> F(new AtomicOutputFile());
  F->Path = Path.str();
  F->Target = Path.str();
  OutputKind Kind = OutputKind::Replace;
  // The file the new output replaces, if there is one (symlinks followed).
  std::optional<fs::file_status> Old;
  fs::file_status St;
  if (Path == "-") {
    Kind = OutputKind::Direct;
    F->DirectFD = STDOUT_FILENO;
  } else if (!fs::status(Path, St, /*follow=*/true)) {
    switch (St.type()) {
    case fs::file_type::regular_file:
      Old = St;
      [[fallthrough]];
    case fs::file_type::directory_file: {
      // Replaced by rename, which would replace a link to the file instead
      // of the file: the rename goes to the file's real name. (A directory
      // cannot be replaced; the rename says so, after the temporary has
      // been written, as for any output that cannot be renamed into place.)
      SmallString<256> Real;
      if (!fs::real_path(Path, Real))
        F->Target = std::string(Real);
      break;
    }
    default:
      // A device, a FIFO, a socket: never replaced by a regular file.
      // Opened through its name, links and all (/dev/stdout too).
      Kind = OutputKind::Direct;
      if (std::error_code EC =
              fs::openFileForWrite(Path, F->DirectFD, fs::CD_OpenExisting))
        return makeError("{0}: cannot open for writing: {1}", Path,
                         EC.message());
      F->CloseDirectFD = true;
      break;
    }
  } else {
    // Nothing there yet, or a link to nothing: the new file goes where the
    // link points, and the link then leads to it.
    Expected<std::string> T = danglingTarget(Path);
    if (!T)
      return T.takeError();
    F->Target = std::move(*T);
  }

  if (Kind == OutputKind::Direct) {
    F->OS = std::make_unique<raw_svector_ostream>(F->Buffer);
    return std::move(F);
  }

  SmallString<256> Model(F->Target);
  Model += ".tmp%%%%%%";
  int FD;
  SmallString<256> Temp;
  if (std::error_code EC = fs::createUniqueFile(Model, FD, Temp))
    return makeError("{0}: cannot create output: {1}", Path, EC.message());
  F->TempPath = std::string(Temp);
  // A run killed while writing (Ctrl-C, SIGTERM, a full quota's SIGXFSZ)
  // must not leave the temporary behind: LLVM's signal handlers remove it.
  sys::RemoveFileOnSignal(F->TempPath);
  auto FileOS = std::make_unique<raw_fd_ostream>(FD, /*shouldClose=*/true);
  F->FileOS = FileOS.get();
  F->OS = std::move(FileOS);
  if (Old) {
    // The new file is the old one with new contents: same permission bits
    // (not set-user-ID and the like, which belonged to the old contents).
    if (std::error_code EC = fs::setPermissions(
            FD, static_cast<fs::perms>(Old->permissions() & fs::all_all)))
      return makeError("{0}: cannot set the permissions of the new output: "
                       "{1}",
                       Path, EC.message());
    // And the same owner, where we may give it away (root may; others only
    // to a group of theirs): not being able to is no reason to fail.
    fs::file_status Mine;
    if (!fs::status(FD, Mine) && (Mine.getUser() != Old->getUser() ||
                                  Mine.getGroup() != Old->getGroup()))
      (void)fs::changeFileOwnership(FD, Old->getUser(), Old->getGroup());
  }
  return std::move(F);
}

AtomicOutputFile::~AtomicOutputFile() {
  if (!Committed && !TempPath.empty()) {
    // Discarded: a write error of its own is no longer news (and would be
    // fatal to raw_fd_ostream's destructor).
    if (FileOS)
      FileOS->clear_error();
    OS.reset();
    fs::remove(TempPath);
    sys::DontRemoveFileOnSignal(TempPath);
  }
  if (CloseDirectFD && DirectFD >= 0)
    ::close(DirectFD);
}

Error AtomicOutputFile::writeDirect() {
  // Buffered, so that the whole output goes out in large writes.
  raw_fd_ostream Dest(DirectFD, /*shouldClose=*/false);
  Dest.write(Buffer.data(), Buffer.size());
  Dest.flush();
  std::error_code EC = Dest.error();
  Dest.clear_error();
  if (!EC && CloseDirectFD) {
    // close() reports what a device or file system could not write.
    int FD = DirectFD;
    DirectFD = -1;
    if (::close(FD) != 0)
      EC = std::error_code(errno, std::generic_category());
  }
  if (EC)
    return makeError("{0}: write failed: {1}", Path == "-" ? "<stdout>" : Path,
                     EC.message());
  return Error::success();
}

Error AtomicOutputFile::commit() {
  if (TempPath.empty()) {
    if (Error E = writeDirect())
      return E;
    Committed = true;
    return Error::success();
  }
  auto failed = [&]() {
    std::string Msg = FileOS->error().message();
    FileOS->clear_error();
    return makeError("{0}: write failed: {1}", Path, Msg);
  };
  FileOS->flush();
  if (FileOS->has_error())
    return failed();
  FileOS->close();
  if (FileOS->has_error())
    return failed();
  if (std::error_code EC = fs::rename(TempPath, Target))
    return makeError("{0}: cannot replace it with the new output: {1}", Path,
                     EC.message());
  sys::DontRemoveFileOnSignal(TempPath);
  Committed = true;
  return Error::success();
}

bool isStandardOutput(StringRef Path) {
  if (Path == "-")
    return true;
  fs::file_status Named, Stdout;
  if (fs::status(Path, Named, /*follow=*/true) ||
      fs::status(STDOUT_FILENO, Stdout))
    return false;
  return Named.type() != fs::file_type::character_file &&
         fs::equivalent(Named, Stdout);
}

} // namespace lbr2prof
