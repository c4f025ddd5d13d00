//===- ProcessMaps.cpp - per-process executable mappings ------------------===//
//
// Mappings are kept sorted by start address per process; lookups are binary
// searches (callers cache the last mapping they used).
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Aggregate/ProcessMaps.h"
#include "lbr2prof/Support/Path.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <atomic>

using namespace llvm;
namespace lbr2prof {

unsigned ProcessMaps::dsoIndex(StringRef Path, ArrayRef<uint8_t> BuildId) {
  if (Dsos.size() + 1 >= MaxDsos && !DsoByPath.count(Path)) {
    Path = OverflowDsoPath;
    BuildId = {};
  }
  SmallVector<unsigned, 1> &Same = DsoByPath[Path];
  if (!Same.empty() && BuildId.empty())
    return Same.front();
  if (!BuildId.empty()) {
    for (unsigned D : Same)
      if (sameBuildId(Dsos[D].BuildId, BuildId))
        return D;
    for (unsigned D : Same)
      if (Dsos[D].BuildId.empty()) {
        Dsos[D].BuildId.assign(BuildId.begin(), BuildId.end());
        return D;
      }
  }
  if (!Same.empty() && Dsos.size() + 1 >= MaxDsos)
    return Same.front();
  Same.push_back(unsigned(Dsos.size()));
  Dsos.push_back({Path.str(), {BuildId.begin(), BuildId.end()}});
  return Same.back();
}

void ProcessMaps::setBuildIdTable(ArrayRef<BuildIdEntry> Table) {
  TableIds.clear();
  for (const BuildIdEntry &B : Table)
    if (!B.Id.empty())
      TableIds.try_emplace(B.Filename, B.Id);
}

void ProcessMaps::insert(MapList &L, const Mapping &M) {
  // Cut the parts of older mappings that the new one covers.
  MapList Out;
  Out.reserve(L.size() + 2);
  for (const Mapping &Old : L) {
    if (Old.End <= M.Start || Old.Start >= M.End) {
      Out.push_back(Old);
      continue;
    }
    if (Old.Start < M.Start) {
      Mapping Left = Old;
      Left.End = M.Start;
      Out.push_back(Left);
    }
    if (Old.End > M.End) {
      Mapping Right = Old;
      Right.PgOff = Old.PgOff + (M.End - Old.Start);
      Right.Start = M.End;
      Out.push_back(Right);
    }
  }
  Out.push_back(M);
  std::sort(Out.begin(), Out.end(),
            [](const Mapping &A, const Mapping &B) { return A.Start < B.Start; });
  L.swap(Out);
}

AddrMode addrModeOf(uint16_t Misc) {
  switch (Misc & perfabi::PERF_RECORD_MISC_CPUMODE_MASK) {
  case perfabi::PERF_RECORD_MISC_USER:
    return AddrMode::User;
  case perfabi::PERF_RECORD_MISC_KERNEL:
    return AddrMode::Kernel;
  case 0: // PERF_RECORD_MISC_CPUMODE_UNKNOWN
    return AddrMode::Either;
  default:
    return AddrMode::None;
  }
}

uint64_t ProcessMaps::nextVersion() {
  static std::atomic<uint64_t> Last{0};
  return ++Last;
}

void ProcessMaps::addMmap(const MmapEvent &E) {
  if (!E.isExecutable() || E.Len == 0)
    return;
  Version = nextVersion();
  Mapping M;
  M.Start = E.Addr;
  // A length that runs past the address space (armv7 perf 3.4 wrote the
  // kernel's as 2^64 - start) ends at its top.
  M.End = E.Addr + E.Len < E.Addr ? ~0ULL : E.Addr + E.Len;
  M.PgOff = E.PgOff;
  ArrayRef<uint8_t> Id;
  if (E.hasBuildId()) {
    Id = E.BuildId;
  } else {
    auto It = TableIds.find(E.Filename);
    if (It != TableIds.end())
      Id = It->second;
  }
  M.Dso = dsoIndex(E.Filename, Id);
  // The record's cpumode says whose map it is, as in perf (a pid of -1
  // with a user cpumode is a process's, a fuzzer's or an old tool's).
  bool IsKernel = (E.Misc & perfabi::PERF_RECORD_MISC_CPUMODE_MASK) ==
                  perfabi::PERF_RECORD_MISC_KERNEL;
  if (IsKernel && E.Filename.starts_with("[kernel.kallsyms]") &&
      M.PgOff >= M.Start && M.PgOff < M.End) {
    M.Start = M.PgOff;
    M.PgOff = 0;
  }
  insert(IsKernel ? Kernel : ByPid[E.Pid], M);
}

void ProcessMaps::fork(uint32_t Pid, uint32_t PPid) {
  if (Pid == PPid)
    return;
  auto It = ByPid.find(PPid);
  if (It != ByPid.end()) {
    MapList Copy = It->second;
    ByPid[Pid] = std::move(Copy);
    Version = nextVersion();
  }
}

void ProcessMaps::exec(uint32_t Pid) {
  if (ByPid.erase(Pid))
    Version = nextVersion();
}

const Mapping *ProcessMaps::lookup(const MapList &L, uint64_t A) {
  auto It = std::upper_bound(
      L.begin(), L.end(), A,
      [](uint64_t V, const Mapping &M) { return V < M.Start; });
  if (It == L.begin())
    return nullptr;
  --It;
  return A < It->End ? &*It : nullptr;
}

const Mapping *ProcessMaps::findUser(uint32_t Pid, uint64_t A) const {
  auto It = ByPid.find(Pid);
  return It == ByPid.end() ? nullptr : lookup(It->second, A);
}

const Mapping *ProcessMaps::find(uint32_t Pid, uint64_t A,
                                 AddrMode Mode) const {
  switch (Mode) {
  case AddrMode::User:
    return findUser(Pid, A);
  case AddrMode::Kernel:
    return findKernel(A);
  case AddrMode::Either:
    if (const Mapping *M = findUser(Pid, A))
      return M;
    return findKernel(A);
  case AddrMode::None:
    break;
  }
  return nullptr;
}

bool sameBuildId(ArrayRef<uint8_t> A, ArrayRef<uint8_t> B) {
  size_t N = std::min(A.size(), B.size());
  return N && A.take_front(N) == B.take_front(N);
}

ArrayRef<uint8_t> dsoBuildId(const DsoInfo &D, ArrayRef<BuildIdEntry> Table) {
  if (!D.BuildId.empty())
    return D.BuildId;
  for (const BuildIdEntry &B : Table)
    if (B.Filename == D.Path)
      return B.Id;
  return {};
}

DsoMatch matchDso(StringRef DsoPath, ArrayRef<uint8_t> DsoId,
                  StringRef BinaryPath, ArrayRef<uint8_t> BinaryId) {
  if (sameBuildId(DsoId, BinaryId))
    return DsoMatch::Same;
  if (recordedFileName(DsoPath) != sys::path::filename(BinaryPath))
    return DsoMatch::None;
  return DsoId.empty() || BinaryId.empty() ? DsoMatch::Same
                                           : DsoMatch::BuildIdDiffers;
}

} // namespace lbr2prof
