//===- BinaryImage.cpp - segments, build-id and function symbols ----------===//
//
// ELF: functions come from .symtab (or .dynsym when stripped): STT_FUNC
// symbols in executable sections. PE/COFF (x86-64 and Arm64 images, as
// llvm-profgen reads them): the image is mapped section by section at
// image base + RVA, so a mapping's page offset is an RVA; functions are the
// symbol table's function-type symbols, each extending to the next. Symbols at the same address and size are aliases of
// one function; the first global name is the primary. A symbol with size 0
// (hand-written assembly) extends to the next symbol or its section's end.
// `foo.cold`, `foo.cold.N`, `foo.part.N` are fragments whose parent is `foo`.
// A stripped ELF binary's functions come from its debug file's .symtab
// (DebugFile.h), which objcopy --only-keep-debug keeps whole.
//
//===----------------------------------------------------------------------===//
#include "BinaryImpl.h"
#include "lbr2prof/Support/Error.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/COFF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cassert>
#include <map>
#include <tuple>
#include <utility>

using namespace llvm;
using namespace llvm::object;

namespace lbr2prof {

BinaryImage::BinaryImage(std::unique_ptr<Impl> I) : I(std::move(I)) {}
BinaryImage::~BinaryImage() = default;

const std::string &BinaryImage::path() const { return I->Path; }
ArrayRef<uint8_t> BinaryImage::buildId() const { return I->BuildId; }
bool BinaryImage::isPositionIndependent() const { return I->IsDyn; }
StringRef BinaryImage::arch() const { return I->Arch; }
ArrayRef<Segment> BinaryImage::segments() const { return I->Segments; }
ArrayRef<FunctionSym> BinaryImage::functions() const { return I->Functions; }
bool BinaryImage::hasSymtab() const { return I->HasSymtab; }
const DebugFileResult *BinaryImage::debugFile() const {
  return I->Debug ? &*I->Debug : nullptr;
}

std::optional<uint64_t> BinaryImage::fileOffsetToAddr(uint64_t Off) const {
  for (const Segment &S : I->Segments)
    if (S.Exec && Off >= S.Offset && Off < S.Offset + S.FileSize)
      return Off - S.Offset + S.VAddr;
  return std::nullopt;
}

int BinaryImage::functionAt(uint64_t Addr) const {
  const std::vector<uint64_t> &S = I->Starts;
  if (S.empty() || Addr < S.front())
    return -1;
  auto Lo = S.begin(), Hi = S.end();
  uint64_t Page = (Addr - S.front()) >> Impl::PageShift;
  if (!I->PageFirst.empty()) {
    // Only the starts in Addr's page are searched; if none is at or
    // before Addr, the answer is the function before the page's first.
    size_t P = std::min<size_t>(Page, I->PageFirst.size() - 1);
    Lo += I->PageFirst[P];
    if (P + 1 < I->PageFirst.size())
      Hi = S.begin() + I->PageFirst[P + 1];
  }
  auto It = std::upper_bound(Lo, Hi, Addr);
  if (It == S.begin())
    return -1;
  size_t K = size_t(It - S.begin()) - 1;
  return Addr < I->Ends[K] ? int(K) : -1;
}

void BinaryImage::Impl::indexFunctions() {
  Starts.clear();
  Ends.clear();
  PageFirst.clear();
  Starts.reserve(Functions.size());
  Ends.reserve(Functions.size());
  for (const FunctionSym &F : Functions) {
    Starts.push_back(F.Start);
    Ends.push_back(F.End);
  }
  if (Starts.empty())
    return;
  uint64_t Pages = ((Starts.back() - Starts.front()) >> PageShift) + 1;
  // A page index as large as the symbols themselves at most (4 bytes a page
  // against 100+ a symbol); a sparse layout keeps the plain search.
  if (Pages > 16 * Starts.size() + 1024)
    return;
  PageFirst.resize(Pages + 1);
  size_t K = 0;
  for (uint64_t P = 0; P <= Pages; ++P) {
    uint64_t Base = Starts.front() + (P << PageShift);
    while (K < Starts.size() && Starts[K] < Base)
      ++K;
    PageFirst[P] = uint32_t(K);
  }
}

BinaryImage::Impl::~Impl() {
  for (size_t G = 0; G < NumSlotGroups; ++G)
    delete SlotGroups[G].load(std::memory_order_relaxed);
}

BinaryImage::Impl::Slot &BinaryImage::Impl::slot(unsigned F) const {
  std::atomic<SlotGroup *> &At = SlotGroups[F >> SlotGroupShift];
  SlotGroup *G = At.load(std::memory_order_acquire);
  if (!G) {
    // Two threads may make one at once: the first to store it wins.
    auto *New = new SlotGroup();
    if (At.compare_exchange_strong(G, New, std::memory_order_acq_rel))
      G = New;
    else
      delete New;
  }
  return G->Slots[F & ((1u << SlotGroupShift) - 1)];
}

int instIndexAt(ArrayRef<Inst> Insts, uint64_t Addr) {
  auto It = std::lower_bound(
      Insts.begin(), Insts.end(), Addr,
      [](const Inst &I, uint64_t A) { return I.Addr < A; });
  if (It == Insts.end() || It->Addr != Addr)
    return -1;
  return int(It - Insts.begin());
}

namespace {
/// A named local symbol (function or data): binary address and name.
using LocalSym = std::pair<uint64_t, StringRef>;
} // namespace

/// PT_LOAD segments into B.Segments, and the GNU build-id of the first
/// PT_NOTE that holds one into B.BuildId.
template <class ELFT>
static Error readProgramHeaders(const ELFFile<ELFT> &E, BinaryImage::Impl &B) {
  auto Phdrs = E.program_headers();
  if (!Phdrs)
    return Phdrs.takeError();
  for (const auto &P : *Phdrs) {
    if (P.p_type == ELF::PT_LOAD) {
      Segment S;
      S.VAddr = P.p_vaddr;
      S.MemSize = P.p_memsz;
      S.Offset = P.p_offset;
      S.FileSize = P.p_filesz;
      S.Exec = P.p_flags & ELF::PF_X;
      B.Segments.push_back(S);
    }
    // ELFFile::notes checks p_offset + p_filesz against the file size, which
    // a huge p_filesz wraps around: check without overflow first.
    bool NoteInFile = P.p_offset <= E.getBufSize() &&
                      P.p_filesz <= E.getBufSize() - P.p_offset;
    if (P.p_type == ELF::PT_NOTE && B.BuildId.empty() && NoteInFile) {
      Error Err = Error::success();
      for (const auto &N : E.notes(P, Err))
        if (N.getType() == ELF::NT_GNU_BUILD_ID && N.getName() == "GNU") {
          ArrayRef<uint8_t> D = N.getDesc(P.p_align);
          B.BuildId.assign(D.begin(), D.end());
        }
      consumeError(std::move(Err));
    }
  }
  return Error::success();
}

/// Executable PROGBITS sections into B.Code, for symbol filtering and
/// disassembly.
template <class ELFT>
static Error readCodeSections(const ELFFile<ELFT> &E,
                              ArrayRef<typename ELFT::Shdr> Sections,
                              BinaryImage::Impl &B) {
  for (const auto &S : Sections) {
    if (!(S.sh_flags & ELF::SHF_EXECINSTR) || S.sh_type != ELF::SHT_PROGBITS)
      continue;
    auto Data = E.getSectionContents(S);
    if (!Data)
      return Data.takeError();
    auto Name = E.getSectionName(S);
    B.Code.push_back({S.sh_addr, *Data, Name ? Name->str() : ""});
    if (!Name)
      consumeError(Name.takeError());
  }
  return Error::success();
}

/// True if Addr lies in one of the executable sections.
static bool inCode(ArrayRef<CodeSection> Code, uint64_t Addr) {
  for (const auto &C : Code)
    if (Addr >= C.Addr && Addr < C.Addr + C.Bytes.size())
      return true;
  return false;
}

/// Reads .symtab, else .dynsym (sets B.HasSymtab): the named STT_FUNC
/// symbols in executable sections into Raws, in table order (Start, End =
/// Start + size, Name, Local, and for a local the STT_FILE name before it;
/// mergeAliases() makes the table of them), and every
/// named local symbol (functions and data) into Locals, to rank same-named
/// locals the way BOLT's name resolver does.
template <class ELFT>
static Error
readSymbols(const ELFFile<ELFT> &E, ArrayRef<typename ELFT::Shdr> Sections,
            BinaryImage::Impl &B, std::vector<FunctionSym> &Raws,
            std::vector<LocalSym> &Locals) {
  const typename ELFT::Shdr *Symtab = nullptr, *Dynsym = nullptr;
  for (const auto &S : Sections) {
    if (S.sh_type == ELF::SHT_SYMTAB)
      Symtab = &S;
    else if (S.sh_type == ELF::SHT_DYNSYM)
      Dynsym = &S;
  }
  B.HasSymtab = Symtab != nullptr;
  const typename ELFT::Shdr *Use = Symtab ? Symtab : Dynsym;
  if (!Use)
    return Error::success();
  auto Syms = E.symbols(Use);
  if (!Syms)
    return Syms.takeError();
  auto StrTab = E.getStringTableForSymtab(*Use);
  if (!StrTab)
    return StrTab.takeError();
  StringRef CurFile;
  // Upper bounds: 480k functions grew these one by one in 13% of a run's
  // time (bench/scale, 300 MB narrow).
  Raws.reserve(Raws.size() + Syms->size());
  for (const auto &S : *Syms) {
    auto Name = S.getName(*StrTab);
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    if (S.getType() == ELF::STT_FILE) {
      CurFile = *Name;
      continue;
    }
    bool Local = S.getBinding() == ELF::STB_LOCAL;
    if (Local && !Name->empty() && S.st_shndx != ELF::SHN_UNDEF &&
        S.getType() != ELF::STT_SECTION)
      Locals.push_back({S.st_value, *Name});
    if (S.getType() != ELF::STT_FUNC || S.st_shndx == ELF::SHN_UNDEF ||
        Name->empty() || !inCode(B.Code, S.st_value))
      continue;
    FunctionSym &F = Raws.emplace_back();
    F.Start = S.st_value;
    F.End = S.st_value + S.st_size;
    F.Name = *Name;
    if (Local)
      F.File = CurFile;
    F.Local = Local;
  }
  return Error::success();
}

/// The symbols of a stripped binary (no .symtab) from the separate debug
/// file open() found, if that file has a .symtab: they replace the .dynsym
/// ones in Raws and Locals. Its sections are NOBITS; B.Code stays the
/// binary's, so the symbols are filtered against the binary's code. Keep
/// holds the debug file, whose strings the names point into.
template <class ELFT>
static Error readDebugFileSymbols(BinaryImage::Impl &B,
                                  std::vector<FunctionSym> &Raws,
                                  std::vector<LocalSym> &Locals,
                                  std::optional<OpenedDebugFile> &Keep) {
  if (B.HasSymtab || !B.Debug || !B.Debug->separate())
    return Error::success();
  const std::string &Path = B.Debug->Path;
  Expected<OpenedDebugFile> F = openDebugFile(Path);
  if (!F)
    return F.takeError();
  auto *D = dyn_cast<ELFObjectFile<ELFT>>(F->Obj.get());
  if (!D)
    return makeError("{0}: not an ELF file of the binary's class and byte "
                     "order",
                     Path);
  auto Sections = D->getELFFile().sections();
  if (!Sections)
    return makeError("{0}: {1}", Path, toString(Sections.takeError()));
  std::vector<FunctionSym> DebugRaws;
  std::vector<LocalSym> DebugLocals;
  if (Error Err =
          readSymbols(D->getELFFile(), *Sections, B, DebugRaws, DebugLocals))
    return makeError("{0}: {1}", Path, toString(std::move(Err)));
  if (!B.HasSymtab)
    return Error::success();
  Raws = std::move(DebugRaws);
  Locals = std::move(DebugLocals);
  Keep = std::move(*F);
  return Error::success();
}

/// (start address, position in Raws) of every symbol: globals first, then
/// locals, each in table order; sorted by start, keeping that order among
/// equal starts. Symbol tables are mostly in address order already (lld
/// writes each group in link order: bench/scale's 480k globals are one
/// run), so a table of a few ascending runs is merged run by run, one pass
/// over the keys per halving; any other is radix-sorted, least significant
/// digit first, 11 bits a pass over the bits in which the starts differ
/// (on the pairs, read in sequence: gathering the starts from the symbols
/// in each pass missed the cache for half of the sort's time).
static std::vector<std::pair<uint64_t, uint32_t>>
sortedByStart(ArrayRef<FunctionSym> Raws) {
  using Key = std::pair<uint64_t, uint32_t>;
  std::vector<Key> Keys, Other;
  Keys.reserve(Raws.size());
  for (size_t K = 0; K < Raws.size(); ++K)
    if (!Raws[K].Local)
      Keys.push_back({Raws[K].Start, uint32_t(K)});
  for (size_t K = 0; K < Raws.size(); ++K)
    if (Raws[K].Local)
      Keys.push_back({Raws[K].Start, uint32_t(K)});
  // Where each ascending run begins.
  std::vector<size_t> Runs = {0};
  for (size_t K = 1; K < Keys.size() && Runs.size() <= 16; ++K)
    if (Keys[K].first < Keys[K - 1].first)
      Runs.push_back(K);
  if (Keys.empty() || Runs.size() == 1)
    return Keys;
  auto byStart = [](const Key &A, const Key &B) { return A.first < B.first; };
  if (Runs.size() <= 16) {
    // Adjacent runs merged pairwise, in place: std::inplace_merge keeps
    // the order among equals, and needs a buffer only as large as the
    // smaller run (the locals after the globals: a few keys, where a copy
    // of all of them was 8 MB written at 300 MB).
    Runs.push_back(Keys.size());
    while (Runs.size() > 2) {
      std::vector<size_t> Next;
      size_t J = 0;
      for (; J + 2 < Runs.size(); J += 2) {
        Next.push_back(Runs[J]);
        std::inplace_merge(Keys.begin() + Runs[J], Keys.begin() + Runs[J + 1],
                           Keys.begin() + Runs[J + 2], byStart);
      }
      if (J + 1 < Runs.size())
        Next.push_back(Runs[J]); // The last run, without a partner this time.
      Next.push_back(Keys.size());
      Runs = std::move(Next);
    }
    return Keys;
  }
  Other.resize(Keys.size());
  uint64_t Differ = 0;
  for (const Key &K : Keys)
    Differ |= K.first ^ Keys.front().first;
  constexpr unsigned Bits = 11;
  constexpr uint64_t Mask = (1u << Bits) - 1;
  std::vector<uint32_t> Count(1u << Bits);
  for (unsigned Shift = 0; Shift < 64 && (Differ >> Shift); Shift += Bits) {
    std::fill(Count.begin(), Count.end(), 0);
    for (const Key &K : Keys)
      ++Count[(K.first >> Shift) & Mask];
    uint32_t Sum = 0;
    for (uint32_t &C : Count)
      Sum += std::exchange(C, Sum);
    for (const Key &K : Keys)
      Other[Count[(K.first >> Shift) & Mask]++] = K;
    Keys.swap(Other);
  }
  return Keys;
}

/// Makes Raws (readSymbols') the function table, in place: sorted by
/// start, one FunctionSym per start address. Symbols at one address are
/// aliases, and the first global (else the first in table order) names the
/// function; its aliases go to Pool, which must have room for every symbol
/// (they point into it). Stubs (PLT stubs, sorted by start) go in between,
/// each unless a symbol starts where it does (hand-written code, a linker
/// that names stubs): merged here, not inserted afterwards, which moved
/// every function after the PLT (with linkPltTargets' name filter, 17M of
/// the parent's 525M instructions on bench/scale's 300 MB binary). Returns
/// where the stubs went. In place: a table built beside the symbols was
/// 37.5 MB written while 22.5 MB of symbols (a struct of their own) were
/// held, on that binary's 480k functions; in place the parent's heap peaks
/// at 61 MB instead of 77 MB and runs 369M instructions instead of 383M.
static std::vector<uint32_t> mergeAliases(std::vector<FunctionSym> &Raws,
                                          std::vector<StringRef> &Pool,
                                          ArrayRef<FunctionSym> Stubs = {}) {
  assert(Pool.capacity() - Pool.size() >= Raws.size() &&
         "aliases point into Pool: it must not grow");
  {
    // Into sorted order, cycle by cycle: Keys[K].second names the symbol
    // that goes to K, and becomes K once it is there (symbol tables in
    // address order move nothing).
    std::vector<std::pair<uint64_t, uint32_t>> Keys = sortedByStart(Raws);
    for (uint32_t K = 0; K < Keys.size(); ++K) {
      if (Keys[K].second == K)
        continue;
      FunctionSym Held = std::move(Raws[K]);
      uint32_t To = K;
      for (;;) {
        uint32_t From = std::exchange(Keys[To].second, To);
        if (From == K) {
          Raws[To] = std::move(Held);
          break;
        }
        Raws[To] = std::move(Raws[From]);
        To = From;
      }
    }
  }
  size_t N = 0; // the functions so far, at the front
  for (size_t K = 0; K < Raws.size(); ++K) {
    if (N && Raws[N - 1].Start == Raws[K].Start) {
      FunctionSym &F = Raws[N - 1];
      const FunctionSym &R = Raws[K];
      if (R.Name != F.Name && llvm::find(F.Aliases, R.Name) == F.Aliases.end()) {
        // F's aliases are the last ones in Pool.
        Pool.push_back(R.Name);
        F.Aliases = ArrayRef(Pool.data() + Pool.size() - F.Aliases.size() - 1,
                             F.Aliases.size() + 1);
      }
      F.End = std::max(F.End, R.End);
      continue;
    }
    if (N != K)
      Raws[N] = std::move(Raws[K]);
    ++N;
  }
  Raws.resize(N);
  // The stubs that go in: the first at each address where no function
  // starts.
  std::vector<uint32_t> In;
  auto startsAt = [&](uint64_t A) {
    auto It = llvm::partition_point(
        Raws, [&](const FunctionSym &F) { return F.Start < A; });
    return It != Raws.end() && It->Start == A;
  };
  for (uint32_t P = 0; P < Stubs.size(); ++P)
    if ((P == 0 || Stubs[P - 1].Start != Stubs[P].Start) &&
        !startsAt(Stubs[P].Start))
      In.push_back(P);
  std::vector<uint32_t> StubsAt(In.size());
  if (In.empty())
    return StubsAt;
  // Merged from the back, into room at the end.
  Raws.resize(N + In.size());
  size_t To = Raws.size(), F = N, S = In.size();
  while (S > 0) {
    const FunctionSym &Stub = Stubs[In[S - 1]];
    if (F > 0 && Raws[F - 1].Start > Stub.Start) {
      Raws[--To] = std::move(Raws[--F]);
      continue;
    }
    Raws[--To] = Stub;
    StubsAt[--S] = uint32_t(To);
  }
  return StubsAt;
}

/// Size-0 symbols extend to the next function or the section end; sized
/// ones are clipped so that functions never overlap. A corrupt size that
/// wraps Start + Size around is treated like size 0.
static void clipFunctionEnds(ArrayRef<CodeSection> Code,
                             std::vector<FunctionSym> &Functions) {
  // The section holding each start (the last one listed, if they overlap):
  // when no two overlap, looked up again only when a start leaves the one
  // found before (every section for each of 480k functions: 11M
  // instructions, 2% of the parent's on bench/scale's 300 MB binary).
  bool Overlap = false;
  for (size_t A = 0; A < Code.size(); ++A)
    for (size_t B = A + 1; B < Code.size(); ++B)
      Overlap |= Code[A].Addr < Code[B].Addr + Code[B].Bytes.size() &&
                 Code[B].Addr < Code[A].Addr + Code[A].Bytes.size();
  const CodeSection *In = nullptr;
  for (size_t K = 0; K < Functions.size(); ++K) {
    FunctionSym &F = Functions[K];
    if (Overlap || !In || F.Start < In->Addr ||
        F.Start >= In->Addr + In->Bytes.size()) {
      In = nullptr;
      for (const auto &C : Code)
        if (F.Start >= C.Addr && F.Start < C.Addr + C.Bytes.size())
          In = &C;
    }
    uint64_t Limit = In ? In->Addr + In->Bytes.size() : ~0ULL;
    if (K + 1 < Functions.size())
      Limit = std::min(Limit, Functions[K + 1].Start);
    if (F.End <= F.Start || F.End > Limit)
      F.End = Limit;
  }
}

/// Sets LocalId of each local function: its 1-based rank among the local
/// symbols of the same name in address order (BOLT names them "name/rank").
static void rankLocals(std::vector<LocalSym> &Locals,
                       std::vector<FunctionSym> &Functions) {
  // In address order (table order among equal addresses), each
  // occurrence counts towards its name's next rank; an (address, name)
  // keeps the rank of its first occurrence.
  struct Ranked {
    uint64_t Start;
    StringRef Name;
    size_t Order;
    unsigned Rank;
  };
  std::vector<Ranked> Rank;
  Rank.reserve(Locals.size());
  for (const auto &L : Locals)
    Rank.push_back({L.first, L.second, Rank.size(), 0});
  llvm::sort(Rank, [](const Ranked &A, const Ranked &B) {
    return std::tie(A.Start, A.Order) < std::tie(B.Start, B.Order);
  });
  StringMap<unsigned> Seen;
  for (Ranked &R : Rank)
    R.Rank = ++Seen[R.Name];
  auto Less = [](const Ranked &A, const Ranked &B) {
    return std::tie(A.Start, A.Name, A.Order) <
           std::tie(B.Start, B.Name, B.Order);
  };
  llvm::sort(Rank, Less);
  for (FunctionSym &F : Functions)
    if (F.Local) {
      Ranked Key{F.Start, F.Name, 0, 0};
      auto It = std::lower_bound(Rank.begin(), Rank.end(), Key, Less);
      F.LocalId = It != Rank.end() && It->Start == F.Start &&
                          It->Name == F.Name
                      ? It->Rank
                      : 1;
    }
}

/// Fragments: name.cold[.N], name.part.N (GCC's split and partial
/// inlining); the parent is the function named by the part before the
/// first such suffix.
static void linkFragments(std::vector<FunctionSym> &Functions) {
  // The parents' names first, then one pass for their indices: a map of
  // every name was 4% of a 300 MB binary's narrow profile, and most
  // binaries have no fragments at all.
  auto parentName = [](StringRef Name) -> StringRef {
    if (!Name.contains('.'))
      return StringRef();
    for (StringRef Suffix : {".cold", ".part."}) {
      size_t At = Name.find(Suffix);
      if (At == StringRef::npos || At == 0)
        continue;
      return Name.substr(0, At);
    }
    return StringRef();
  };
  StringMap<int> ByName;
  std::vector<size_t> Fragments;
  for (size_t K = 0; K < Functions.size(); ++K)
    if (StringRef P = parentName(Functions[K].Name); !P.empty()) {
      ByName.try_emplace(P, -1);
      Fragments.push_back(K);
    }
  if (Fragments.empty())
    return;
  for (size_t K = 0; K < Functions.size(); ++K)
    if (auto It = ByName.find(Functions[K].Name);
        It != ByName.end() && It->second < 0)
      It->second = int(K);
  for (size_t K : Fragments) {
    FunctionSym &F = Functions[K];
    int P = ByName.lookup(parentName(F.Name));
    if (P >= 0 && Functions[P].Name != F.Name)
      F.Parent = P;
  }
}

/// Fills B from the ELF file: segments, build-id, code sections and the
/// function table (aliases merged, ends clipped, locals ranked, fragments
/// linked to their parents).
template <class ELFT>
static Error readElf(const ELFObjectFile<ELFT> &Obj, BinaryImage::Impl &B) {
  const ELFFile<ELFT> &E = Obj.getELFFile();
  B.IsDyn = E.getHeader().e_type == ELF::ET_DYN;
  if (Error Err = readProgramHeaders(E, B))
    return Err;
  auto Sections = E.sections();
  if (!Sections)
    return Sections.takeError();
  if (Error Err = readCodeSections(E, *Sections, B))
    return Err;
  std::vector<FunctionSym> Raws;
  std::vector<LocalSym> Locals;
  if (Error Err = readSymbols(E, *Sections, B, Raws, Locals))
    return Err;
  if (Error Err = readDebugFileSymbols<ELFT>(B, Raws, Locals, B.SymbolFile))
    return Err;
  B.AliasPool.reserve(Raws.size());
  std::vector<uint32_t> StubsAt =
      mergeAliases(Raws, B.AliasPool, pltStubs(E, *Sections, B));
  B.Functions = std::move(Raws);
  linkPltTargets(B.Functions, StubsAt);
  clipFunctionEnds(B.Code, B.Functions);
  rankLocals(Locals, B.Functions);
  linkFragments(B.Functions);
  return Error::success();
}

/// Fills B from a PE/COFF image: one segment per section, executable
/// sections as code, and function symbols (no size: each extends to the
/// next) from the COFF symbol table. The image is relocatable and mapped
/// whole: a trace's mapping of it starts at the image base, with the RVA
/// of the first executable section as its page offset (llvm-profgen's
/// coff-profile input: `[0x7ff70a1b0000(0x640000) @ 0x1000 ...]`, .text
/// at RVA 0x1000; llvm-profgen puts 0x7ff70a1b1482 at image base +
/// 0x1482). So a section's "file offset" here is that page offset plus
/// its RVA.
static Error readCoff(const COFFObjectFile &Obj, BinaryImage::Impl &B) {
  B.IsDyn = true;
  uint64_t Base = Obj.getImageBase();
  uint64_t TextRva = 0;
  for (const SectionRef &Sec : Obj.sections()) {
    const coff_section *S = Obj.getCOFFSection(Sec);
    if (S->Characteristics & COFF::IMAGE_SCN_MEM_EXECUTE) {
      TextRva = S->VirtualAddress;
      break;
    }
  }
  for (const SectionRef &Sec : Obj.sections()) {
    const coff_section *S = Obj.getCOFFSection(Sec);
    bool Exec = S->Characteristics & COFF::IMAGE_SCN_MEM_EXECUTE;
    Segment Seg;
    Seg.VAddr = Base + S->VirtualAddress;
    Seg.MemSize = S->VirtualSize;
    Seg.Offset = TextRva + S->VirtualAddress;
    Seg.FileSize = std::min<uint64_t>(S->VirtualSize, S->SizeOfRawData);
    Seg.Exec = Exec;
    B.Segments.push_back(Seg);
    if (!Exec)
      continue;
    ArrayRef<uint8_t> Data;
    if (Error Err = Obj.getSectionContents(S, Data))
      return Err;
    Expected<StringRef> Name = Obj.getSectionName(S);
    if (!Name)
      return Name.takeError();
    B.Code.push_back({Seg.VAddr, Data.take_front(Seg.FileSize), Name->str()});
  }
  std::vector<FunctionSym> Raws;
  for (const SymbolRef &Ref : Obj.symbols()) {
    COFFSymbolRef S = Obj.getCOFFSymbol(Ref);
    if (S.getComplexType() != COFF::IMAGE_SYM_DTYPE_FUNCTION ||
        S.getSectionNumber() <= 0)
      continue;
    Expected<StringRef> Name = Obj.getSymbolName(S);
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    Expected<const coff_section *> Sec = Obj.getSection(S.getSectionNumber());
    if (!Sec) {
      consumeError(Sec.takeError());
      continue;
    }
    uint64_t Addr = Base + (*Sec)->VirtualAddress + S.getValue();
    if (Name->empty() || !inCode(B.Code, Addr))
      continue;
    bool Local = S.getStorageClass() == COFF::IMAGE_SYM_CLASS_STATIC;
    FunctionSym &F = Raws.emplace_back();
    F.Start = F.End = Addr;
    F.Name = *Name;
    F.Local = Local;
  }
  B.HasSymtab = !Raws.empty();
  B.AliasPool.reserve(Raws.size());
  mergeAliases(Raws, B.AliasPool);
  B.Functions = std::move(Raws);
  clipFunctionEnds(B.Code, B.Functions);
  return Error::success();
}

/// The architecture of machine number M (ELF e_machine, or the COFF
/// header's Machine), as the disassembler names it; empty if unsupported.
static StringRef archOf(uint16_t M, bool Coff) {
  if (M == (Coff ? COFF::IMAGE_FILE_MACHINE_AMD64 : ELF::EM_X86_64))
    return "x86_64";
  if (M == (Coff ? COFF::IMAGE_FILE_MACHINE_ARM64 : ELF::EM_AARCH64))
    return "aarch64";
  return "";
}

/// The debug file lookup open() makes when asked to (Debug): for a binary
/// without a .symtab, whose symbols are then read from the debug file, and
/// for a --debug-file, which is checked against the binary's build-id.
static Error lookUpDebugFile(const ELF64LEObjectFile &O, BinaryImage::Impl &B) {
  if (!B.DebugOpts)
    return Error::success();
  bool Symtab = false;
  for (const ELFSectionRef S : O.sections())
    Symtab |= S.getType() == ELF::SHT_SYMTAB;
  if (Symtab && B.DebugOpts->DebugFile.empty())
    return Error::success();
  Expected<DebugFileResult> D = findDebugFile(O, B.Path, *B.DebugOpts);
  if (!D)
    return D.takeError();
  B.Debug = std::move(*D);
  return Error::success();
}

namespace {
/// The file at Path mapped and recognized as an object file, or the error
/// open() gives for it.
Error mapObject(StringRef Path, std::unique_ptr<MemoryBuffer> &Buffer,
                std::unique_ptr<ObjectFile> &Obj) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf)
    return makeError("{0}: cannot open binary: {1}", Path,
                     Buf.getError().message());
  Buffer = std::move(*Buf);
  auto Bin = ObjectFile::createObjectFile(Buffer->getMemBufferRef());
  if (!Bin)
    return makeError("{0}: not an ELF or PE/COFF file we can read: {1}", Path,
                     toString(Bin.takeError()));
  Obj = std::move(*Bin);
  return Error::success();
}

/// Obj's architecture, from its header, or the error if it is not a file
/// open() reads (a 64-bit little-endian ELF file or a PE32+ image of x86-64
/// or AArch64).
Expected<std::string> archOfObject(StringRef Path, const ObjectFile &Obj) {
  if (auto *O = dyn_cast<ELF64LEObjectFile>(&Obj)) {
    uint16_t M = O->getELFFile().getHeader().e_machine;
    StringRef Arch = archOf(M, /*Coff=*/false);
    if (Arch.empty())
      return makeError("{0}: unsupported ELF machine {1} (expected x86-64 or "
                       "AArch64)",
                       Path, M);
    return Arch.str();
  }
  if (auto *C = dyn_cast<COFFObjectFile>(&Obj)) {
    uint16_t M = C->getMachine();
    StringRef Arch = archOf(M, /*Coff=*/true);
    if (Arch.empty())
      return makeError("{0}: unsupported PE/COFF machine {1:x} (expected "
                       "x86-64 or Arm64)",
                       Path, M);
    if (!C->getPE32PlusHeader())
      return makeError("{0}: not a PE32+ image (a COFF object file or a "
                       "32-bit image)",
                       Path);
    return Arch.str();
  }
  return makeError("{0}: not a 64-bit little-endian ELF file or a PE/COFF "
                   "image",
                   Path);
}
} // namespace

Error BinaryImage::check(StringRef Path) {
  std::unique_ptr<MemoryBuffer> Buffer;
  std::unique_ptr<ObjectFile> Obj;
  if (Error E = mapObject(Path, Buffer, Obj))
    return E;
  return archOfObject(Path, *Obj).takeError();
}

Expected<std::unique_ptr<BinaryImage>>
BinaryImage::open(StringRef Path, const DebugFileOptions *Debug) {
  auto I = std::make_unique<Impl>();
  I->Path = Path.str();
  I->DebugOpts = Debug;
  if (Error E = mapObject(Path, I->Buffer, I->Obj))
    return std::move(E);
  Expected<std::string> Arch = archOfObject(Path, *I->Obj);
  if (!Arch)
    return Arch.takeError();
  I->Arch = std::move(*Arch);
  Error E = Error::success();
  if (auto *O = dyn_cast<ELF64LEObjectFile>(I->Obj.get())) {
    if (Error Err = lookUpDebugFile(*O, *I))
      return std::move(Err);
    E = readElf(*O, *I);
  } else {
    E = readCoff(*cast<COFFObjectFile>(I->Obj.get()), *I);
  }
  if (E)
    return makeError("{0}: malformed {1}: {2}", Path,
                     isa<COFFObjectFile>(I->Obj.get()) ? "PE/COFF" : "ELF",
                     toString(std::move(E)));
  I->DebugOpts = nullptr; // the caller's; not kept past open()
  I->NumSlotGroups =
      (I->Functions.size() + (1u << Impl::SlotGroupShift) - 1) >>
      Impl::SlotGroupShift;
  I->SlotGroups.reset(new std::atomic<Impl::SlotGroup *>[I->NumSlotGroups]());
  I->indexFunctions();
  return std::unique_ptr<BinaryImage>(new BinaryImage(std::move(I)));
}

} // namespace lbr2prof
