//===- DebugFile.cpp - find a binary's separate debug file ----------------===//
//
// The search order and its checks are gdb's (gdb/symfile.c,
// gdb/build-id.c: debug-file-directory, .build-id/xx/yyyy.debug,
// .gnu_debuglink with its CRC) and LLVM's symbolizer's; debuginfod goes
// through elfutils' client library (libdebuginfod.so.1, as gdb and perf
// use it), loaded only when DEBUGINFOD_URLS is set.
// A candidate is read whole only to check a .gnu_debuglink CRC; build-ids
// come from the candidates' notes.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Binary/DebugFile.h"
#include "lbr2prof/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/BuildID.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/Path.h"
#include <cstdlib>
#include <dlfcn.h>
#include <optional>
#include <unistd.h>

using namespace llvm;
using namespace llvm::object;

namespace lbr2prof {

bool hasDwarf(const ObjectFile &Obj) {
  for (const SectionRef &S : Obj.sections()) {
    Expected<StringRef> N = S.getName();
    if (!N) {
      consumeError(N.takeError());
      continue;
    }
    if (*N == ".debug_info" || *N == ".zdebug_info")
      return true;
  }
  return false;
}

StringRef DebugFileResult::how() const {
  switch (Source) {
  case DebugFileSource::Given:
    return "--debug-file";
  case DebugFileSource::BuildIdDirectory:
    return "build-id directory";
  case DebugFileSource::DebugLink:
    return ".gnu_debuglink";
  case DebugFileSource::Debuginfod:
    return "debuginfod";
  default:
    return "";
  }
}

std::string DebugFileResult::searchSummary() const {
  std::string S = "looked for a debug file in ";
  S += Searched.empty() ? std::string("no place (the binary has neither a "
                                      "build-id nor a .gnu_debuglink)")
                        : join(Searched, ", ");
  if (!Skipped.empty())
    S += "; skipped, another build's: " + join(Skipped, ", ");
  return S;
}

namespace {
/// An opened candidate: its object file and build-id.
struct Candidate {
  std::unique_ptr<MemoryBuffer> Buffer;
  std::unique_ptr<ObjectFile> Obj;
  BuildIDRef Id;
};

/// The .gnu_debuglink section: a NUL-terminated file name, padding to 4
/// bytes, and the CRC32 of the debug file in the object's byte order.
struct DebugLink {
  std::string Name;
  uint32_t Crc = 0;
};
} // namespace

Expected<OpenedDebugFile> openDebugFile(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf)
    return makeError("{0}: cannot open debug file: {1}", Path,
                     Buf.getError().message());
  auto Obj = ObjectFile::createObjectFile((*Buf)->getMemBufferRef());
  if (!Obj)
    return makeError("{0}: not an object file: {1}", Path,
                     toString(Obj.takeError()));
  return OpenedDebugFile{std::move(*Buf), std::move(*Obj)};
}

static Expected<Candidate> openCandidate(StringRef Path) {
  Expected<OpenedDebugFile> F = openDebugFile(Path);
  if (!F)
    return F.takeError();
  Candidate C;
  C.Buffer = std::move(F->Buffer);
  C.Obj = std::move(F->Obj);
  C.Id = getBuildID(C.Obj.get());
  return std::move(C);
}

static std::optional<DebugLink> readDebugLink(const ObjectFile &Obj) {
  for (const SectionRef &S : Obj.sections()) {
    Expected<StringRef> N = S.getName();
    if (!N) {
      consumeError(N.takeError());
      continue;
    }
    if (*N != ".gnu_debuglink")
      continue;
    Expected<StringRef> Data = S.getContents();
    if (!Data) {
      consumeError(Data.takeError());
      return std::nullopt;
    }
    size_t End = Data->find('\0');
    if (End == StringRef::npos || End == 0)
      return std::nullopt;
    size_t CrcAt = alignTo(End + 1, 4);
    if (CrcAt + 4 > Data->size())
      return std::nullopt;
    const uint8_t *P = Data->bytes_begin() + CrcAt;
    DebugLink L;
    L.Name = Data->take_front(End).str();
    L.Crc = Obj.isLittleEndian()
                ? uint32_t(P[0]) | uint32_t(P[1]) << 8 | uint32_t(P[2]) << 16 |
                      uint32_t(P[3]) << 24
                : uint32_t(P[3]) | uint32_t(P[2]) << 8 | uint32_t(P[1]) << 16 |
                      uint32_t(P[0]) << 24;
    return L;
  }
  return std::nullopt;
}

/// True if a candidate's build-id disagrees with the binary's (both known).
static bool otherBuild(BuildIDRef Binary, BuildIDRef Debug) {
  return !Binary.empty() && !Debug.empty() && Binary != Debug;
}

static std::string hexOrNone(BuildIDRef Id) {
  return Id.empty() ? std::string("none") : toHex(Id, /*LowerCase=*/true);
}

namespace {
/// One search: the binary's identity, what was tried, what was skipped.
class Search {
public:
  Search(const ObjectFile &Binary, StringRef BinaryPath,
         const DebugFileOptions &Opts)
      : Binary(Binary), BinaryPath(BinaryPath), Opts(Opts),
        Id(getBuildID(&Binary)) {
    for (const std::string &D : Opts.Directories)
      for (StringRef Part : split(D, ':'))
        if (!Part.empty())
          Dirs.push_back(Part.str());
    if (Opts.Directories.empty())
      Dirs.push_back("/usr/lib/debug");
  }

  Expected<DebugFileResult> run();

private:
  /// Path as the debug file if it exists and is of this build (and, for a
  /// debug link, has the CRC); records it as searched or skipped.
  bool tryPath(const Twine &Path, std::optional<uint32_t> Crc);
  bool tryBuildIdDirectories();
  bool tryDebugLink();
  bool tryDebuginfod();

  const ObjectFile &Binary;
  StringRef BinaryPath;
  const DebugFileOptions &Opts;
  BuildIDRef Id;
  std::vector<std::string> Dirs;
  DebugFileResult R;
};
} // namespace

bool Search::tryPath(const Twine &P, std::optional<uint32_t> Crc) {
  std::string Path = P.str();
  R.Searched.push_back(Path);
  if (!sys::fs::is_regular_file(Path))
    return false;
  // A debug link that names the binary itself is no debug file.
  if (sys::fs::equivalent(Path, BinaryPath))
    return false;
  Expected<Candidate> C = openCandidate(Path);
  if (!C) {
    R.Skipped.push_back(Path + " (" + toString(C.takeError()) + ")");
    return false;
  }
  if (otherBuild(Id, C->Id)) {
    R.Skipped.push_back(formatv("{0} (build-id {1}, not {2})", Path,
                                hexOrNone(C->Id), hexOrNone(Id)));
    return false;
  }
  if (Crc) {
    uint32_t Got = crc32(arrayRefFromStringRef(C->Buffer->getBuffer()));
    if (Got != *Crc) {
      R.Skipped.push_back(formatv("{0} (CRC32 {1:x8}, .gnu_debuglink says "
                                  "{2:x8})",
                                  Path, Got, *Crc));
      return false;
    }
  }
  R.Path = Path;
  return true;
}

bool Search::tryBuildIdDirectories() {
  // A build-id of one byte names no xx/yyyy file.
  if (Id.size() < 2)
    return false;
  std::string Hex = toHex(Id, /*LowerCase=*/true);
  for (const std::string &D : Dirs) {
    SmallString<256> P(D);
    sys::path::append(P, ".build-id", Hex.substr(0, 2),
                      Hex.substr(2) + ".debug");
    if (tryPath(P, std::nullopt))
      return true;
  }
  return false;
}

bool Search::tryDebugLink() {
  std::optional<DebugLink> L = readDebugLink(Binary);
  if (!L)
    return false;
  // gdb looks beside the binary's real path: a symlink to the binary
  // finds the debug file beside its target.
  SmallString<256> Real;
  if (sys::fs::real_path(BinaryPath, Real))
    Real = BinaryPath;
  sys::fs::make_absolute(Real);
  StringRef Dir = sys::path::parent_path(Real);
  SmallString<256> P(Dir);
  sys::path::append(P, L->Name);
  if (tryPath(P, L->Crc))
    return true;
  P = Dir;
  sys::path::append(P, ".debug", L->Name);
  if (tryPath(P, L->Crc))
    return true;
  for (const std::string &D : Dirs) {
    P = D;
    sys::path::append(P, sys::path::relative_path(Dir), L->Name);
    if (tryPath(P, L->Crc))
      return true;
  }
  return false;
}

/// The debug file of build-id Id from the servers of DEBUGINFOD_URLS,
/// through elfutils' client (debuginfod_find_debuginfo(3); it caches under
/// DEBUGINFOD_CACHE_PATH or ~/.cache/debuginfod_client and returns the
/// cached file's path). The library is opened here, not linked: a linked
/// client (LLVM's, with libcurl and 28 more shared libraries) cost every
/// run 14 ms of startup, 21.8 -> 35.8 ms of CPU for `lbr2prof --version`.
static Expected<std::string> fetchDebuginfo(ArrayRef<uint8_t> Id) {
  using BeginFn = void *(*)();
  using FindFn = int (*)(void *, const unsigned char *, int, char **);
  using EndFn = void (*)(void *);
  // Kept open: the library keeps libcurl's global state.
  static void *Lib = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Lib)
    return makeError("elfutils' client library libdebuginfod.so.1 is not "
                     "installed (apt install libdebuginfod1)");
  auto Begin = reinterpret_cast<BeginFn>(dlsym(Lib, "debuginfod_begin"));
  auto Find =
      reinterpret_cast<FindFn>(dlsym(Lib, "debuginfod_find_debuginfo"));
  auto End = reinterpret_cast<EndFn>(dlsym(Lib, "debuginfod_end"));
  if (!Begin || !Find || !End)
    return makeError("libdebuginfod.so.1 lacks debuginfod_begin, "
                     "debuginfod_find_debuginfo or debuginfod_end");
  void *Client = Begin();
  if (!Client)
    return makeError("debuginfod_begin failed");
  char *Path = nullptr;
  int Fd = Find(Client, Id.data(), int(Id.size()), &Path);
  End(Client);
  if (Fd < 0)
    return makeError("{0}", sys::StrError(-Fd));
  ::close(Fd);
  if (!Path)
    return makeError("the client gave no path");
  std::string P = Path;
  std::free(Path);
  return P;
}

bool Search::tryDebuginfod() {
  const char *Urls = std::getenv("DEBUGINFOD_URLS");
  if (!Opts.Debuginfod || !Urls || !*Urls) {
    R.Searched.push_back("debuginfod (DEBUGINFOD_URLS not set)");
    return false;
  }
  if (Id.empty()) {
    R.Searched.push_back("debuginfod (the binary has no build-id)");
    return false;
  }
  Expected<std::string> Got = fetchDebuginfo(Id);
  if (!Got) {
    R.Searched.push_back(
        formatv("debuginfod ({0}: {1})", Urls, toString(Got.takeError())));
    return false;
  }
  R.Searched.push_back(formatv("debuginfod ({0})", Urls));
  Expected<Candidate> C = openCandidate(*Got);
  if (!C) {
    R.Skipped.push_back(*Got + " (" + toString(C.takeError()) + ")");
    return false;
  }
  if (otherBuild(Id, C->Id)) {
    R.Skipped.push_back(formatv("{0} (build-id {1}, not {2})", *Got,
                                hexOrNone(C->Id), hexOrNone(Id)));
    return false;
  }
  R.Path = *Got;
  return true;
}

Expected<DebugFileResult> Search::run() {
  if (!Opts.DebugFile.empty()) {
    Expected<Candidate> C = openCandidate(Opts.DebugFile);
    if (!C)
      return C.takeError();
    if (otherBuild(Id, C->Id) && !Opts.IgnoreBuildId)
      return makeError("{0}: build-id {1} differs from the binary {2}'s ({3}): "
                       "it is another build's debug file; use "
                       "--ignore-build-id to use it anyway",
                       Opts.DebugFile, hexOrNone(C->Id), BinaryPath,
                       hexOrNone(Id));
    R.Path = Opts.DebugFile;
    R.Source = sys::fs::equivalent(Opts.DebugFile, BinaryPath)
                   ? DebugFileSource::Binary
                   : DebugFileSource::Given;
    return std::move(R);
  }
  if (hasDwarf(Binary)) {
    R.Path = BinaryPath.str();
    R.Source = DebugFileSource::Binary;
    return std::move(R);
  }
  if (tryBuildIdDirectories())
    R.Source = DebugFileSource::BuildIdDirectory;
  else if (tryDebugLink())
    R.Source = DebugFileSource::DebugLink;
  else if (tryDebuginfod())
    R.Source = DebugFileSource::Debuginfod;
  return std::move(R);
}

Expected<DebugFileResult> findDebugFile(const ObjectFile &Binary,
                                        StringRef BinaryPath,
                                        const DebugFileOptions &Opts) {
  return Search(Binary, BinaryPath, Opts).run();
}

} // namespace lbr2prof
