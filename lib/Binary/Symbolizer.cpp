//===- Symbolizer.cpp - DWARF inline stacks, cached per address -----------===//
//
// DWARFContext::getInliningInfoForAddress gives, per frame, the line (for
// outer frames: the call site's line), the discriminator and the frame
// function's DW_AT_decl_line (StartLine). Split units are found through
// DW_AT_dwo_name (relative to the comp dir) or the given .dwp.
//
// Storage: each distinct address has its place in a sorted array and the
// 4-byte number of its answer (no map node, no heap block of its own);
// consecutive addresses with the same answer (one line) share one 24-byte
// answer, consecutive answers with the same inline stack share one copy of
// it, and names are interned once.
//
// Isolation: prefetch() sorts and deduplicates the addresses, cuts them
// into a few large contiguous chunks, and forks one child per chunk, at most
// Jobs at a time. LLVM parses a unit's DIEs and line table only when an
// address in it is asked for, so a child parses the units its chunk
// touches and no other. Each child opens the DWARF (the object file is
// already mapped, shared copy-on-write), looks its addresses up in order
// and writes one message stream to its pipe; both sides know the chunk's
// addresses, so answers come in their order and name none:
//   'U' u32 units                      compile units found
//   'N' u32 length, bytes              a name (function or file), numbered
//                                      1, 2, ... in order of appearance
//   'A' u32 line, u32 file, u32 n,     the next address: its innermost
//       n x frame                      line, and its inline stack; frame =
//                                      u32 line offset, u32 base
//                                      discriminator, u32 duplication
//                                      factor, u32 line, u32 function, u32
//                                      file (names by number, 0: none)
//   'R' u32 count                      the next count addresses have the
//                                      same answer as the previous one
//   'W' u32 length, text               a warning from the DWARF parser
//   'E'                                end: the answer is complete
// then _exit(0)s. The parent reads the pipes as they fill and absorbs each
// complete message at once into the chunk's slice of the answer numbers (a
// child's answer is never held whole), and reaps each child at its pipe's end:
// a signal, a non-zero status, a malformed stream, a missing 'E' or a different
// number of answers than addresses is an error.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Binary/Symbolizer.h"
#include "FileWindow.h"
#include "LineRows.h"
#include "UnitIndex.h"
#include "UnitSubroutines.h"
#include "lbr2prof/Support/Arena.h"
#include "lbr2prof/Support/DefaultInit.h"
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Support/HugePages.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/DebugInfo/DWARF/DWARFCompileUnit.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/StringSaver.h"
#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <mutex>
#include <optional>
#include <poll.h>
#include <set>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;
using namespace llvm::object;

namespace lbr2prof {

class Symbolizer::Impl {
public:
  std::string Path;
  DebugFileResult Debug;
  std::unique_ptr<MemoryBuffer> Buffer;
  std::unique_ptr<ObjectFile> Obj;
  std::unique_ptr<DWARFContext> Ctx;
  /// Which unit covers an address, read once in this process before the
  /// children start (UnitIndex.h); empty if LLVM's table must be used.
  std::optional<UnitIndex> Units;
  bool UnitsRead = false;
  /// Function and file names, each kept once: equal names are equal
  /// pointers, so the profile builders can key their caches on them.
  /// Only LLVM's own code (UniqueStringSaver) allocates from Alloc; see
  /// Support/Arena.h for why ours must not.
  BumpPtrAllocator Alloc;
  UniqueStringSaver Names{Alloc};
  /// The inline stacks of the answers; a stack never moves.
  Arena Frames;
  std::string DwpFile;
  bool Isolate = true;
  /// Keep discriminators as written (GCC's), not decoded as LLVM's.
  bool GccDiscriminators = false;
  /// SymbolizerOptions::KeepLineZero.
  bool KeepLineZero = false;
  /// SymbolizerOptions::PipeReadBytes (at least 1).
  size_t PipeReadBytes = size_t(256) << 10;
  /// F's discriminator and duplication factor from the line table's D.
  /// LLVM packs a base discriminator, a duplication factor and a copy id
  /// into D; GCC writes a plain number per basic block of a line, which
  /// its AutoFDO reader compares whole (so 3 must stay 3, not LLVM's
  /// base 0 with factor 1).
  void setDiscriminator(SourceFrame &F, uint32_t D) const {
    if (GccDiscriminators) {
      F.Discriminator = D;
      F.DupFactor = 1;
      return;
    }
    F.Discriminator =
        DILocation::getBaseDiscriminatorFromDiscriminator(D, /*IsFSD=*/false);
    F.DupFactor = DILocation::getDuplicationFactorFromDiscriminator(D);
  }
  /// One answer: 24 bytes, no heap of its own. The frames live in
  /// Frames (so they never move, and frames() answers stay valid);
  /// consecutive answers with the same inline stack (instructions of one
  /// function on different lines) share one copy.
  struct Rec {
    const SourceFrame *Frames;
    uint32_t NumFrames;
    /// The innermost line, also when no subprogram encloses the address
    /// (assembler output has a line table and only labels); File indexes
    /// Files, NoFile if none.
    uint32_t File;
    uint32_t Line;
  };
  static constexpr uint32_t NoFile = ~0u;
  /// Answer numbers per address, sized before the children start and
  /// filled as they answer: a page written only after the fork is a fresh
  /// page of the parent, one written (zeroed) before it would be copied on
  /// write.
  using IdVector = DefaultInitVector<uint32_t>;
  /// Symbolized addresses, sorted and distinct, and the number of each
  /// one's answer in Answers: 12 bytes an address, since runs of
  /// instructions of one line share an answer.
  std::vector<uint64_t> Addrs;
  IdVector AnswerOf;
  std::vector<Rec> Answers;
  /// Addresses looked up on demand (not isolated, not prefetched).
  DenseMap<uint64_t, Rec> Extra;
  std::vector<StringRef> Files;
  DenseMap<const char *, uint32_t> FileIds;
  /// Where the last find() of this thread succeeded: callers walk
  /// addresses in order (only a hint: it is checked before use, and
  /// threads may look up at once).
  static size_t &hint() {
    static thread_local size_t Hint = 0;
    return Hint;
  }
  /// Guards the lookups on demand (Extra): frames() may be asked from
  /// several threads (an answer found there stays valid only while no
  /// other thread adds one, so callers use threads only when isolated).
  std::mutex ExtraLock;
  bool HasDebug = false;
  std::vector<std::string> Warnings;
  std::set<std::string> SeenWarnings;
  uint64_t WarningCount = 0;

  /// Keeps the first line of a warning, once.
  void warn(StringRef Msg) {
    ++WarningCount;
    std::string First = Msg.split('\n').first.trim().str();
    if (Warnings.size() < 100 && SeenWarnings.insert(First).second)
      Warnings.push_back(First);
  }
  /// The DWARF context, created on first use (in a child when isolated).
  DWARFContext &context() {
    if (!Ctx) {
      auto Handler = [this](Error E) {
        handleAllErrors(std::move(E),
                        [&](const ErrorInfoBase &EI) { warn(EI.message()); });
      };
      Ctx = DWARFContext::create(*Obj,
                                 DWARFContext::ProcessDebugRelocations::Process,
                                 nullptr, DwpFile, Handler, Handler);
    }
    return *Ctx;
  }
  /// One address's answer while it is built (in a child, or in process).
  struct Answer {
    SmallVector<SourceFrame, 4> Frames;
    SourceLine Line;
  };
  /// Looks Addr up in the DWARF (in this process) with
  /// DWARFContext::getInliningInfoForAddress; the names in Out are interned
  /// in Names. The reference for lookupFast(), used in process.
  void lookup(uint64_t Addr, Answer &Out);
  /// The same answer as lookup(), with what getInliningInfoForAddress
  /// recomputes for every address (the function's name through its
  /// abstract origin, its declaration line, the call site's attributes, a
  /// file's path from the line-table prologue) kept per DIE and per file.
  /// Used by the children, which look up addresses in runs.
  /// Addr is the K-th address of the chunk the child serves, in Unit.
  void lookupFast(uint64_t Addr, size_t K, DWARFCompileUnit *Unit,
                  Answer &Out);
  struct DieInfo {
    StringRef Name;
    bool HasName = false, HasCaller = false;
    uint64_t DeclLine = 0;
    uint32_t CallFile = 0, CallLine = 0, CallColumn = 0, CallDisc = 0;
  };
  /// By (unit, DIE offset): a split unit's DIEs have their own offsets.
  DenseMap<std::pair<const void *, uint64_t>, DieInfo> DieCache;
  /// (line-table prologue, file index) -> path, if it has that file.
  DenseMap<std::pair<const void *, uint64_t>, std::optional<StringRef>>
      FileCache;
  const DieInfo &dieInfo(const DWARFDie &D, bool WithCaller);
  /// The same from a unit read by UnitSubroutines; nullptr if it declines.
  const DieInfo *dieInfo(DWARFUnit *CU, const UnitSubroutines &S,
                         uint64_t Offset);
  /// Each unit's subroutines, read once (nullptr: LLVM reads the unit).
  DenseMap<DWARFUnit *, std::unique_ptr<UnitSubroutines>> Subroutines;
  UnitSubroutines::Scratch SubroutineScratch;
  /// lookupFast()'s last chain from UnitSubroutines: its unit's
  /// subroutines, its innermost subroutine, and its frames' DIE infos (a
  /// DieCache lookup per frame and address was 4% of the children's time
  /// on bench/scale's 20 MB broad line profile).
  struct ChainMemo {
    const UnitSubroutines *Subs = nullptr;
    int32_t Innermost = -1;
    SmallVector<DieInfo, 4> Frames;
  } LastChain;
  UnitSubroutines *subroutinesOf(DWARFUnit *CU);
  /// Drops what lookupFast() keeps of CU's DIEs (its subroutines and their
  /// DIE infos) once the chunk's last address in CU is answered, so the
  /// next unit's reuse the memory: a child's caches grown over all its
  /// units, in memory first written after the fork (or copied on write
  /// from the parent's freed blocks), cost 7% of bench/scale's 100 MB broad
  /// line profile (6.43 -> 5.96 s, 169k -> 154k page faults, medians of 7
  /// interleaved runs).
  void retireUnit(DWARFUnit *CU) {
    DieCache.clear();
    Subroutines.erase(CU);
    LastChain = {};
  }
  std::optional<StringRef> fileName(const DWARFDebugLine::Prologue *P,
                                    uint64_t Index, DWARFUnit *CU);
  /// A child's line rows: each unit's line program is read once, for all
  /// the chunk's addresses in it (Members), when its first one is looked
  /// up; RowOf holds each address's row, Lines each unit's prologue
  /// (nullptr: no line table).
  struct ChunkLines {
    ArrayRef<uint64_t> Addrs;
    DenseMap<DWARFUnit *, std::vector<uint32_t>> Members;
    std::vector<LineRow> RowOf;
    DenseMap<DWARFUnit *, const DWARFDebugLine::Prologue *> Lines;
    std::deque<DWARFDebugLine::Prologue> Prologues;
    LineRowReader Reader;
    /// The addresses of BatchUnit's Members (unitAddrs()).
    std::vector<uint64_t> Batch;
    DWARFUnit *BatchUnit = nullptr;
    std::vector<LineRow> BatchRows;
  };
  ChunkLines Chunk;
  /// The chunk's addresses in CU, ascending (serve() gets the chunk
  /// sorted and gathers each unit's in order): what its line table and
  /// its subroutines are read for.
  ArrayRef<uint64_t> unitAddrs(DWARFUnit *CU);
  const DWARFDebugLine::Prologue *linesOf(DWARFCompileUnit *CU);
  /// The child's side of prefetch(): answers Addrs on Fd, never returns.
  [[noreturn]] void serve(ArrayRef<uint64_t> Addrs, int Fd);
  /// What the parent knows of one child's stream while it is read.
  struct Stream {
    /// The chunk's answer numbers: Of[Next] is the next address's.
    MutableArrayRef<uint32_t> Of;
    size_t Next = 0;
    /// The child's names by number (0: none).
    std::vector<StringRef> Ids{StringRef()};
    uint32_t Units = 0;
    bool Ended = false;
  };
  /// Absorbs the complete messages at the start of Data into S; returns
  /// how many bytes they took (a message cut at the end of Data waits for
  /// the next read), or an error if the stream is malformed.
  Expected<size_t> absorb(StringRef Data, Stream &S);
  /// The index in Files of F, an interned name.
  uint32_t fileId(StringRef F) {
    if (F.empty())
      return NoFile;
    auto [It, New] = FileIds.try_emplace(F.data(), uint32_t(Files.size()));
    if (New)
      Files.push_back(F);
    return It->second;
  }
  /// The number of a new answer in Answers for Ans (names interned), its
  /// frames copied unless they equal those of answer Prev (if any).
  uint32_t store(const Answer &Ans, std::optional<uint32_t> Prev) {
    Answers.push_back(record(Ans, Prev ? &Answers[*Prev] : nullptr));
    return uint32_t(Answers.size() - 1);
  }
  /// A record for Ans (names interned), its frames copied unless they
  /// equal Prev's.
  Rec record(const Answer &Ans, const Rec *Prev) {
    Rec R{nullptr, 0, NoFile, 0};
    R.Line = Ans.Line.Line;
    R.File = fileId(Ans.Line.File);
    R.NumFrames = uint32_t(Ans.Frames.size());
    if (Prev && Prev->NumFrames == R.NumFrames &&
        std::equal(Ans.Frames.begin(), Ans.Frames.end(), Prev->Frames,
                   sameFrame)) {
      R.Frames = Prev->Frames;
      return R;
    }
    if (R.NumFrames)
      R.Frames = keepFrames(Ans.Frames);
    return R;
  }
  /// A lasting copy of F (not empty), in Frames (not Alloc: see Arena.h).
  SourceFrame *keepFrames(ArrayRef<SourceFrame> F) {
    return Frames.copy(F.data(), F.size());
  }
  /// Frames with interned names are equal if their names are the same
  /// pointers.
  static bool sameFrame(const SourceFrame &A, const SourceFrame &B) {
    return A.Function.data() == B.Function.data() &&
           A.LineOffset == B.LineOffset &&
           A.Discriminator == B.Discriminator && A.DupFactor == B.DupFactor &&
           A.File.data() == B.File.data() && A.Line == B.Line;
  }
  /// The record of Addr, looked up now if on demand; null if unknown.
  const Rec *find(uint64_t Addr) {
    size_t &Hint = hint();
    if (Hint + 1 < Addrs.size() && Addrs[Hint + 1] == Addr)
      return &Answers[AnswerOf[++Hint]];
    if (Hint < Addrs.size() && Addrs[Hint] == Addr)
      return &Answers[AnswerOf[Hint]];
    auto It = std::lower_bound(Addrs.begin(), Addrs.end(), Addr);
    if (It != Addrs.end() && *It == Addr) {
      Hint = size_t(It - Addrs.begin());
      return &Answers[AnswerOf[Hint]];
    }
    if (Isolate)
      return nullptr;
    std::lock_guard<std::mutex> Lock(ExtraLock);
    auto [EIt, New] = Extra.try_emplace(Addr);
    if (New) {
      Answer Ans;
      lookup(Addr, Ans);
      EIt->second = record(Ans, nullptr);
    }
    return &EIt->second;
  }
  /// Looks each of Todo up in this process (not isolated), appending their
  /// answer numbers to NewOf.
  void lookupAll(ArrayRef<uint64_t> Todo, IdVector &NewOf);
  /// Adds sorted new addresses (not known yet) and their answer numbers
  /// to Addrs and AnswerOf.
  void merge(std::vector<uint64_t> &NewAddrs, IdVector &NewOf);
};

Symbolizer::Symbolizer(std::unique_ptr<Impl> I) : I(std::move(I)) {}
Symbolizer::~Symbolizer() = default;
bool Symbolizer::hasDebugInfo() const { return I->HasDebug; }
bool Symbolizer::isolated() const { return I->Isolate; }
void Symbolizer::forgetAnswers() {
  I->Addrs = {};
  I->AnswerOf = {};
  I->Answers = {};
  I->Extra = DenseMap<uint64_t, Impl::Rec>();
  I->Frames = Arena();
}
StringRef Symbolizer::debugPath() const { return I->Path; }
const DebugFileResult &Symbolizer::debugFile() const { return I->Debug; }
ArrayRef<std::string> Symbolizer::warnings() const { return I->Warnings; }
uint64_t Symbolizer::warningCount() const { return I->WarningCount; }

/// LLVM's ELF object layer calls report_fatal_error, which aborts (or
/// divides by zero), when DWARFContext walks a relocation section whose
/// symbol table link is not a section, whose entries lie outside the file or
/// have the wrong size, or whose symbol indices are past the symbol table.
/// DWARFContext looks at every relocation section, whatever its target, and
/// reads the entries of those that relocate something other than code, so
/// these are checked first: a corrupt file is then an error and not a
/// crash. Real binaries (.rela.dyn, .rela.plt, --emit-relocs) always pass.
/// The entries are read through a FileWindow, not the mapping: touching
/// the pages of an --emit-relocs binary's entries held 65 MB of a run's
/// peak memory (bench/scale, 300 MB binary: 227 against 162 MB).
/// Only a relocatable file's (a kernel module's) are looked at: for any
/// other, DWARFObjInMemory (LLVM 19) takes no relocation section's target
/// and reads none of their entries; llvm-dwarfdump-19 and lbr2prof without
/// this check read the damaged executables of
/// test/errors/corrupt-debug-relocs.test as the intact one, and abort on
/// the damaged object file. Reading the 80 MB of entries of bench/scale's
/// 300 MB --emit-relocs binary took 25-40 ms of its fixed profile's wall
/// time, before the symbolizer children could start.
static Error checkRelocations(const ELF64LEObjectFile &O) {
  if (!O.isRelocatableObject())
    return Error::success();
  using ELFT = ELF64LE;
  const ELFFile<ELFT> &EF = O.getELFFile();
  auto Sections = EF.sections();
  if (!Sections)
    return Sections.takeError();
  FileWindow Window(O.getFileName(), 0);
  // The r_info of each entry (Size bytes each, at Data), read in chunks;
  // Fn(symbol index) may return an error. From the mapping if the file
  // cannot be read.
  auto eachSymbol = [&](ArrayRef<uint8_t> Data, size_t Size,
                        function_ref<Error(uint32_t)> Fn) -> Error {
    uint64_t At = Data.data() - EF.base();
    size_t N = Data.size() / Size;
    constexpr size_t Chunk = 4096;
    for (size_t K = 0; K < N; K += Chunk) {
      size_t M = std::min(Chunk, N - K);
      StringRef R = Window.read(At + K * Size, M * Size);
      const uint8_t *P =
          R.size() == M * Size ? R.bytes_begin() : Data.data() + K * Size;
      for (size_t J = 0; J < M; ++J)
        if (Error E = Fn(uint32_t(support::endian::read64le(P + J * Size + 8) >>
                                  32)))
          return E;
    }
    return Error::success();
  };
  for (const ELFT::Shdr &S : *Sections) {
    if (S.sh_type != ELF::SHT_REL && S.sh_type != ELF::SHT_RELA)
      continue;
    auto Fail = [&](const Twine &Why) {
      return createStringError(
          inconvertibleErrorCode(), "relocation section [%u]: %s",
          unsigned(&S - Sections->begin()), Why.str().c_str());
    };
    auto SymTab = EF.getSection(S.sh_link);
    if (!SymTab)
      return Fail("symbol table link " + Twine(S.sh_link) +
                  " is not a section");
    uint64_t NumSyms = 0;
    if ((*SymTab)->sh_type != ELF::SHT_NULL) {
      auto Syms = EF.template getSectionContentsAsArray<ELFT::Sym>(**SymTab);
      if (!Syms)
        return Fail("symbol table: " + toString(Syms.takeError()));
      NumSyms = Syms->size();
    }
    auto CheckSym = [&](uint32_t Sym) -> Error {
      if (Sym >= NumSyms && Sym != 0)
        return Fail("symbol index " + Twine(Sym) + " is past the " +
                    Twine(NumSyms) + "-entry symbol table");
      return Error::success();
    };
    // A section's entries are read by DWARFContext only when it relocates
    // a debug section (LLVM 19's DWARFObjInMemory; for the others it checks
    // the symbol table link and the entry size, as here): code is never
    // one, and --emit-relocs' .rela.text is most of the entries (80 MB of
    // bench/scale's 300 MB binary, 8% of its fixed profile's CPU).
    bool CheckEntries = true;
    if (auto Target = EF.getSection(S.sh_info))
      CheckEntries = !((*Target)->sh_flags & ELF::SHF_EXECINSTR);
    else
      consumeError(Target.takeError());
    if (S.sh_type == ELF::SHT_REL) {
      auto Rels = EF.rels(S);
      if (!Rels)
        return Fail(toString(Rels.takeError()));
      if (!CheckEntries)
        continue;
      if (Error E = eachSymbol(
              ArrayRef(reinterpret_cast<const uint8_t *>(Rels->data()),
                       Rels->size() * sizeof(ELFT::Rel)),
              sizeof(ELFT::Rel), CheckSym))
        return E;
    } else {
      auto Relas = EF.relas(S);
      if (!Relas)
        return Fail(toString(Relas.takeError()));
      if (!CheckEntries)
        continue;
      if (Error E = eachSymbol(
              ArrayRef(reinterpret_cast<const uint8_t *>(Relas->data()),
                       Relas->size() * sizeof(ELFT::Rela)),
              sizeof(ELFT::Rela), CheckSym))
        return E;
    }
  }
  return Error::success();
}

/// DWARFContext allocates the uncompressed size an SHF_COMPRESSED section's
/// header claims before inflating it; a corrupt claim (terabytes) makes the
/// allocation abort the process. Neither zlib (at most 1032 times) nor zstd
/// (an RLE block: 3 bytes for 128 KiB) can expand data more than 65536 times,
/// so a larger claim is refused as corrupt.
static Error checkCompressedSections(const ELF64LEObjectFile &O) {
  using ELFT = ELF64LE;
  const ELFFile<ELFT> &EF = O.getELFFile();
  auto Sections = EF.sections();
  if (!Sections)
    return Sections.takeError();
  for (const ELFT::Shdr &S : *Sections) {
    if (!(S.sh_flags & ELF::SHF_COMPRESSED) || S.sh_type == ELF::SHT_NOBITS)
      continue;
    auto Data = EF.getSectionContents(S);
    if (!Data) {
      // DWARFContext reports unreadable sections itself.
      consumeError(Data.takeError());
      continue;
    }
    if (Data->size() < sizeof(ELFT::Chdr))
      continue;
    const auto *H = reinterpret_cast<const ELFT::Chdr *>(Data->data());
    uint64_t Claim = H->ch_size;
    if (Claim / 65536 > Data->size())
      return createStringError(
          inconvertibleErrorCode(),
          "compressed section [%u] claims %llu bytes uncompressed from %zu",
          unsigned(&S - Sections->begin()), (unsigned long long)Claim,
          Data->size());
  }
  return Error::success();
}

Expected<std::unique_ptr<Symbolizer>>
Symbolizer::create(StringRef BinaryPath, ArrayRef<uint8_t> BuildId,
                   const SymbolizerOptions &Opts) {
  auto I = std::make_unique<Impl>();
  auto openObj = [&](StringRef P) -> Error {
    auto Buf = MemoryBuffer::getFile(P, /*IsText=*/false,
                                     /*RequiresNullTerminator=*/false);
    if (!Buf)
      return makeError("{0}: cannot open: {1}", P, Buf.getError().message());
    auto O = ObjectFile::createObjectFile((*Buf)->getMemBufferRef());
    if (!O)
      return makeError("{0}: not an object file: {1}", P,
                       toString(O.takeError()));
    I->Buffer = std::move(*Buf);
    I->Obj = std::move(*O);
    I->Path = P.str();
    return Error::success();
  };
  if (Error E = openObj(BinaryPath))
    return std::move(E);
  if (Opts.Found) {
    I->Debug = *Opts.Found;
  } else {
    Expected<DebugFileResult> D =
        findDebugFile(*I->Obj, BinaryPath, Opts.Lookup);
    if (!D)
      return D.takeError();
    I->Debug = std::move(*D);
  }
  if (I->Debug.separate())
    if (Error E = openObj(I->Debug.Path))
      return std::move(E);
  if (auto *O = dyn_cast<ELF64LEObjectFile>(I->Obj.get()))
    if (Error E = joinErrors(checkRelocations(*O), checkCompressedSections(*O)))
      return makeError("{0}: malformed debug info: {1}", I->Path,
                       toString(std::move(E)));
  I->DwpFile = Opts.DwpFile;
  I->Isolate = Opts.Isolate;
  I->GccDiscriminators = Opts.GccDiscriminators;
  I->KeepLineZero = Opts.KeepLineZero;
  I->PipeReadBytes = std::max<size_t>(1, Opts.PipeReadBytes);
  if (I->Isolate)
    I->HasDebug = hasDwarf(*I->Obj);
  else
    I->HasDebug = I->context().getNumCompileUnits() > 0;
  return std::unique_ptr<Symbolizer>(new Symbolizer(std::move(I)));
}

void Symbolizer::Impl::lookup(uint64_t Addr, Answer &E) {
  auto &Out = E.Frames;
  DILineInfoSpecifier Spec(
      DILineInfoSpecifier::FileLineInfoKind::RelativeFilePath,
      DILineInfoSpecifier::FunctionNameKind::LinkageName);
  DIInliningInfo Info = context().getInliningInfoForAddress(
      {Addr, object::SectionedAddress::UndefSection}, Spec);
  for (uint32_t K = 0; K < Info.getNumberOfFrames(); ++K) {
    const DILineInfo &L = Info.getFrame(K);
    if (L.FunctionName == DILineInfo::BadString ||
        (L.Line == 0 && !KeepLineZero))
      continue;
    SourceFrame F;
    F.Function = Names.save(L.FunctionName);
    F.LineOffset = (L.Line - L.StartLine) & 0xffff;
    setDiscriminator(F, L.Discriminator);
    if (L.FileName != DILineInfo::BadString)
      F.File = Names.save(L.FileName);
    F.Line = L.Line;
    Out.push_back(F);
  }
  // A stack is usable only whole: a missing frame would misplace counts.
  if (Out.size() != Info.getNumberOfFrames())
    Out.clear();
  if (Info.getNumberOfFrames() > 0) {
    const DILineInfo &L = Info.getFrame(0);
    if (L.Line != 0 && L.FileName != DILineInfo::BadString)
      E.Line = {Names.save(L.FileName), L.Line};
  }
}

const Symbolizer::Impl::DieInfo &
Symbolizer::Impl::dieInfo(const DWARFDie &D, bool WithCaller) {
  auto [It, New] = DieCache.try_emplace({D.getDwarfUnit(), D.getOffset()});
  DieInfo &Info = It->second;
  if (New) {
    if (const char *N = D.getSubroutineName(DINameKind::LinkageName)) {
      Info.Name = Names.save(N);
      Info.HasName = true;
    }
    Info.DeclLine = D.getDeclLine();
  }
  // The call site is read only for DIEs with a frame inside them, as
  // getInliningInfoForAddress does.
  if (WithCaller && !Info.HasCaller) {
    D.getCallerFrame(Info.CallFile, Info.CallLine, Info.CallColumn,
                     Info.CallDisc);
    Info.HasCaller = true;
  }
  return Info;
}

const Symbolizer::Impl::DieInfo *
Symbolizer::Impl::dieInfo(DWARFUnit *CU, const UnitSubroutines &S,
                          uint64_t Offset) {
  auto [It, New] = DieCache.try_emplace({CU, Offset});
  DieInfo &Info = It->second;
  if (New || !Info.HasCaller) {
    UnitSubroutines::Info F;
    if (!S.info(Offset, F)) {
      if (New)
        DieCache.erase({CU, Offset});
      return nullptr;
    }
    if (F.Name) {
      Info.Name = Names.save(F.Name);
      Info.HasName = true;
    }
    Info.DeclLine = F.DeclLine;
    Info.CallFile = F.CallFile;
    Info.CallLine = F.CallLine;
    Info.CallColumn = F.CallColumn;
    Info.CallDisc = F.CallDisc;
    Info.HasCaller = true;
  }
  return &Info;
}

ArrayRef<uint64_t> Symbolizer::Impl::unitAddrs(DWARFUnit *CU) {
  if (Chunk.BatchUnit != CU) {
    Chunk.Batch.clear();
    if (auto M = Chunk.Members.find(CU); M != Chunk.Members.end())
      for (uint32_t K : M->second)
        Chunk.Batch.push_back(Chunk.Addrs[K]);
    assert(llvm::is_sorted(Chunk.Batch) && "serve() gets sorted addresses");
    Chunk.BatchUnit = CU;
  }
  return Chunk.Batch;
}

UnitSubroutines *Symbolizer::Impl::subroutinesOf(DWARFUnit *CU) {
  auto [It, New] = Subroutines.try_emplace(CU);
  if (New) {
    // Only the chunk's addresses in this unit are ever asked for.
    auto S = std::make_unique<UnitSubroutines>();
    if (S->scan(*CU, unitAddrs(CU), SubroutineScratch))
      It->second = std::move(S);
  }
  return It->second.get();
}

std::optional<StringRef>
Symbolizer::Impl::fileName(const DWARFDebugLine::Prologue *P, uint64_t Index,
                           DWARFUnit *CU) {
  auto [It, New] = FileCache.try_emplace({P, Index});
  if (New) {
    std::string Path;
    if (P->getFileNameByIndex(
            Index, CU->getCompilationDir(),
            DILineInfoSpecifier::FileLineInfoKind::RelativeFilePath, Path))
      It->second = Names.save(Path);
  }
  return It->second;
}

const DWARFDebugLine::Prologue *
Symbolizer::Impl::linesOf(DWARFCompileUnit *CU) {
  if (auto It = Chunk.Lines.find(CU); It != Chunk.Lines.end())
    return It->second;
  const std::vector<uint32_t> &Idx = Chunk.Members[CU];
  ArrayRef<uint64_t> Batch = unitAddrs(CU);
  Chunk.BatchRows.resize(Idx.size());
  const DWARFDebugLine::Prologue *P = nullptr;
  Chunk.Prologues.emplace_back();
  switch (Chunk.Reader.lookup(*CU, Batch, Chunk.BatchRows,
                              Chunk.Prologues.back())) {
  case LineRowsResult::NoTable:
    break;
  case LineRowsResult::Done:
    P = &Chunk.Prologues.back();
    for (size_t J = 0; J < Idx.size(); ++J)
      Chunk.RowOf[Idx[J]] = Chunk.BatchRows[J];
    break;
  case LineRowsResult::Declined:
    // LLVM's own table, with its warnings.
    if (const DWARFDebugLine::LineTable *LT =
            context().getLineTableForUnit(CU)) {
      P = &LT->Prologue;
      for (uint32_t K : Idx) {
        uint32_t Row = LT->lookupAddress(
            {Chunk.Addrs[K], object::SectionedAddress::UndefSection});
        if (Row != UINT32_MAX) {
          const DWARFDebugLine::Row &R = LT->Rows[Row];
          Chunk.RowOf[K] = {R.Line, R.Discriminator, R.File, true};
        }
      }
    }
    break;
  }
  Chunk.Lines[CU] = P;
  return P;
}

void Symbolizer::Impl::lookupFast(uint64_t Addr, size_t K,
                                  DWARFCompileUnit *CU, Answer &E) {
  // Step by step what getInliningInfoForAddress does (LLVM 19), keeping
  // only the fields lookup() reads: name, declaration line, line,
  // discriminator and file of each frame, the innermost from the line
  // table, the outer ones from the call-site attributes of the frame
  // inside them.
  if (!CU)
    return;
  // The chain's frames: from the unit's subroutines if it could be read
  // without LLVM's DIE tree, else (or if a frame's DIE needs LLVM) from
  // getInlinedChainForAddress.
  SmallVector<DieInfo, 4> Frames; // copies: DieCache may grow meanwhile
  if (UnitSubroutines *S = subroutinesOf(CU)) {
    // Consecutive addresses mostly have the same innermost subroutine,
    // hence the same chain's DIEs as the last address.
    int32_t In = S->innermost(Addr);
    if (S == LastChain.Subs && In == LastChain.Innermost) {
      Frames = LastChain.Frames;
    } else {
      SmallVector<uint64_t, 4> Offsets;
      S->chain(In, Offsets);
      for (uint64_t Off : Offsets) {
        const DieInfo *D = dieInfo(CU, *S, Off);
        if (!D) {
          Subroutines[CU].reset();
          Frames.clear();
          break;
        }
        Frames.push_back(*D);
      }
      if (subroutinesOf(CU) == S)
        LastChain = {S, In, Frames};
      else
        LastChain = {};
    }
  }
  if (Frames.empty() && !subroutinesOf(CU)) {
    SmallVector<DWARFDie, 4> Chain;
    CU->getInlinedChainForAddress(Addr, Chain);
    for (size_t K = 0; K < Chain.size(); ++K)
      Frames.push_back(dieInfo(Chain[K], K + 1 < Chain.size()));
  }
  const DWARFDebugLine::Prologue *LT = linesOf(CU);
  // The innermost line: file, line, discriminator of the row, if the row
  // and its file exist (else the frame has no line and no file).
  std::optional<StringRef> File0;
  uint32_t Line0 = 0, Disc0 = 0;
  if (LT && Chunk.RowOf[K].Found) {
    const LineRow &R = Chunk.RowOf[K];
    File0 = fileName(LT, R.File, CU);
    if (File0) {
      Line0 = R.Line;
      Disc0 = R.Discriminator;
    }
  }
  if (Line0 != 0 && File0)
    E.Line = {*File0, Line0};
  if (Frames.empty())
    return; // No subprogram: a line only, no frames.
  bool Whole = true;
  uint32_t CallFile = 0, CallLine = 0, CallDisc = 0;
  for (size_t K = 0; K < Frames.size(); ++K) {
    const DieInfo &D = Frames[K];
    SourceFrame F;
    uint32_t Line, Disc;
    std::optional<StringRef> File;
    if (K == 0) {
      Line = Line0;
      Disc = Disc0;
      File = File0;
    } else {
      Line = CallLine;
      Disc = CallDisc;
      if (LT)
        File = fileName(LT, CallFile, CU);
    }
    CallFile = D.CallFile;
    CallLine = D.CallLine;
    CallDisc = D.CallDisc;
    if (!D.HasName || (Line == 0 && !KeepLineZero)) {
      Whole = false;
      continue;
    }
    F.Function = D.Name;
    F.LineOffset = (Line - uint32_t(D.DeclLine)) & 0xffff;
    setDiscriminator(F, Disc);
    F.File = File ? *File : StringRef();
    F.Line = Line;
    E.Frames.push_back(F);
  }
  // A stack is usable only whole: a missing frame would misplace counts.
  if (!Whole)
    E.Frames.clear();
}

ArrayRef<SourceFrame> Symbolizer::frames(uint64_t Addr) {
  const Impl::Rec *R = I->find(Addr);
  if (!R)
    return {};
  return ArrayRef(R->Frames, R->NumFrames);
}

SourceLine Symbolizer::lineAt(uint64_t Addr) {
  const Impl::Rec *R = I->find(Addr);
  if (!R || R->File == Impl::NoFile)
    return {};
  return {I->Files[R->File], R->Line};
}

void Symbolizer::Impl::merge(std::vector<uint64_t> &NewAddrs, IdVector &NewOf) {
  if (Addrs.empty()) {
    Addrs = std::move(NewAddrs);
    AnswerOf = std::move(NewOf);
    return;
  }
  std::vector<uint64_t> A;
  IdVector R;
  A.reserve(Addrs.size() + NewAddrs.size());
  R.reserve(A.capacity());
  size_t X = 0, Y = 0;
  while (X < Addrs.size() || Y < NewAddrs.size()) {
    if (Y == NewAddrs.size() || (X < Addrs.size() && Addrs[X] < NewAddrs[Y])) {
      A.push_back(Addrs[X]);
      R.push_back(AnswerOf[X++]);
    } else {
      A.push_back(NewAddrs[Y]);
      R.push_back(NewOf[Y++]);
    }
  }
  Addrs = std::move(A);
  AnswerOf = std::move(R);
}

namespace {
/// Buffered writes to a pipe; a failed write ends the child. The buffer
/// is a plain array with its fill: a std::string's append per 4-byte field
/// was a fifth of what the children spent on a broad profile's answers.
class PipeWriter {
public:
  explicit PipeWriter(int Fd) : Fd(Fd), Buf(new char[Size]) {}
  void u32(uint32_t V) { bytes(&V, 4); }
  void byte(char C) { bytes(&C, 1); }
  void str(StringRef S) {
    u32(uint32_t(S.size()));
    bytes(S.data(), S.size());
  }
  void bytes(const void *P, size_t N) {
    if (N > Size - Fill) {
      flush();
      if (N > Size) {
        writeAll(static_cast<const char *>(P), N);
        return;
      }
    }
    std::memcpy(Buf.get() + Fill, P, N);
    Fill += N;
  }
  void flush() {
    writeAll(Buf.get(), Fill);
    Fill = 0;
  }

private:
  static constexpr size_t Size = 1 << 16;
  void writeAll(const char *P, size_t N) {
    size_t Done = 0;
    while (Done < N) {
      ssize_t W = ::write(Fd, P + Done, N - Done);
      if (W < 0 && errno == EINTR)
        continue;
      if (W <= 0)
        _exit(3);
      Done += size_t(W);
    }
  }
  int Fd;
  std::unique_ptr<char[]> Buf;
  size_t Fill = 0;
};

/// Reads the child's stream; every read is bounds-checked. A read past the
/// end of the data sets short(): the message is not whole yet.
class StreamReader {
public:
  explicit StreamReader(StringRef D) : D(D) {}
  bool u32(uint32_t &V) { return get(&V, 4); }
  bool byte(char &C) { return get(&C, 1); }
  bool str(StringRef &S) {
    uint32_t N;
    if (!u32(N))
      return false;
    if (N > D.size() - Pos)
      return cut();
    S = D.substr(Pos, N);
    Pos += N;
    return true;
  }
  size_t pos() const { return Pos; }
  bool atEnd() const { return Pos == D.size(); }
  bool isShort() const { return Short; }

private:
  bool get(void *P, size_t N) {
    if (N > D.size() - Pos)
      return cut();
    std::memcpy(P, D.data() + Pos, N);
    Pos += N;
    return true;
  }
  bool cut() {
    Short = true;
    return false;
  }
  StringRef D;
  size_t Pos = 0;
  bool Short = false;
};
} // namespace

void Symbolizer::Impl::serve(ArrayRef<uint64_t> Addrs, int Fd) {
  // A crash here must end the child quietly, with the signal as its status:
  // no stack dump from the parent's handlers (InitLLVM's, or a sanitizer's
  // for SIGSEGV), and LLVM's fatal errors become exit status 4.
  for (int Sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP})
    ::signal(Sig, SIG_DFL);
  install_fatal_error_handler(
      [](void *, const char *, bool) { _exit(4); }, nullptr);
  PipeWriter W(Fd);
  W.byte('U');
  W.u32(context().getNumCompileUnits());
  // Names go once each ('N'), then by number. Consecutive answers name
  // the same few functions and files: a small cache by pointer answers
  // most lookups before the map.
  DenseMap<const char *, uint32_t> Ids;
  std::pair<const char *, uint32_t> Recent[8] = {};
  auto id = [&](StringRef S) -> uint32_t {
    if (S.empty())
      return 0;
    auto &R = Recent[(uintptr_t(S.data()) >> 3) & 7];
    if (R.first == S.data())
      return R.second;
    auto [It, New] = Ids.try_emplace(S.data(), uint32_t(Ids.size() + 1));
    if (New) {
      W.byte('N');
      W.str(S);
    }
    R = {S.data(), It->second};
    return It->second;
  };
  Answer E, Prev;
  bool HavePrev = false;
  uint32_t Repeats = 0;
  auto flushRepeats = [&] {
    if (Repeats) {
      W.byte('R');
      W.u32(Repeats);
      Repeats = 0;
    }
  };
  // Each address's unit, and each unit's addresses (whose line rows are
  // read together).
  std::vector<DWARFCompileUnit *> UnitOf(Addrs.size());
  Chunk.Addrs = Addrs;
  Chunk.RowOf.resize(Addrs.size());
  uint64_t LastOff = ~0ULL;
  DWARFCompileUnit *Last = nullptr;
  const UnitIndex::Range *LastRange = nullptr;
  // The member list of the unit of the address before (most are in it).
  DWARFCompileUnit *MembersOf = nullptr;
  std::vector<uint32_t> *Members = nullptr;
  for (size_t K = 0; K < Addrs.size(); ++K) {
    if (Units) {
      // No unit covers it: LLVM would then look for a variable at the
      // address in every unit's DIEs, which finds none for code.
      if (!LastRange || !LastRange->holds(Addrs[K]))
        LastRange = Units->rangeAt(Addrs[K]);
      std::optional<uint64_t> Off;
      if (LastRange)
        Off = LastRange->Unit;
      if (Off && *Off != LastOff) {
        LastOff = *Off;
        Last = context().getCompileUnitForOffset(*Off);
      }
      UnitOf[K] = Off ? Last : nullptr;
    } else {
      UnitOf[K] = context().getCompileUnitForCodeAddress(Addrs[K]);
    }
    if (UnitOf[K]) {
      if (UnitOf[K] != MembersOf) {
        MembersOf = UnitOf[K];
        Members = &Chunk.Members[MembersOf];
      }
      Members->push_back(uint32_t(K));
    }
  }
  // The chunk's last address in each unit.
  std::vector<bool> LastInUnit(Addrs.size());
  for (const auto &[CU, Idx] : Chunk.Members)
    LastInUnit[Idx.back()] = true;
  for (size_t N = 0; N < Addrs.size(); ++N) {
    uint64_t A = Addrs[N];
    E.Frames.clear();
    E.Line = {};
    lookupFast(A, N, UnitOf[N], E);
    if (LastInUnit[N])
      retireUnit(UnitOf[N]);
    // Consecutive instructions of one line have the same answer.
    if (HavePrev && E.Line.File.data() == Prev.Line.File.data() &&
        E.Line.Line == Prev.Line.Line &&
        std::equal(E.Frames.begin(), E.Frames.end(), Prev.Frames.begin(),
                   Prev.Frames.end(), sameFrame)) {
      ++Repeats;
      continue;
    }
    flushRepeats();
    uint32_t LineFile = id(E.Line.File);
    SmallVector<std::pair<uint32_t, uint32_t>, 4> FrameIds;
    for (const SourceFrame &F : E.Frames)
      FrameIds.push_back({id(F.Function), id(F.File)});
    W.byte('A');
    W.u32(E.Line.Line);
    W.u32(LineFile);
    W.u32(uint32_t(E.Frames.size()));
    for (size_t K = 0; K < E.Frames.size(); ++K) {
      const SourceFrame &F = E.Frames[K];
      W.u32(F.LineOffset);
      W.u32(F.Discriminator);
      W.u32(F.DupFactor);
      W.u32(F.Line);
      W.u32(FrameIds[K].first);
      W.u32(FrameIds[K].second);
    }
    std::swap(E, Prev);
    HavePrev = true;
  }
  flushRepeats();
  for (const std::string &Msg : Warnings) {
    W.byte('W');
    W.str(Msg);
  }
  W.byte('E');
  W.flush();
  _exit(0);
}

/// One 'A' message after its tag: Ans gets the answer (names by the
/// child's numbers in Ids). False if the message is cut short or malformed.
static bool readAnswer(StreamReader &R, ArrayRef<StringRef> Ids,
                       SmallVectorImpl<SourceFrame> &Frames, SourceLine &Line) {
  auto name = [&](uint32_t Id, StringRef &S) {
    if (Id >= Ids.size())
      return false;
    S = Ids[Id];
    return true;
  };
  uint32_t N, LineFile;
  if (!R.u32(Line.Line) || !R.u32(LineFile) || !R.u32(N) || N > (1u << 20) ||
      !name(LineFile, Line.File))
    return false;
  Frames.clear();
  for (uint32_t K = 0; K < N; ++K) {
    SourceFrame F;
    uint32_t Fn, File;
    if (!R.u32(F.LineOffset) || !R.u32(F.Discriminator) ||
        !R.u32(F.DupFactor) || !R.u32(F.Line) || !R.u32(Fn) || !R.u32(File) ||
        !name(Fn, F.Function) || !name(File, F.File))
      return false;
    Frames.push_back(F);
  }
  return true;
}

Expected<size_t> Symbolizer::Impl::absorb(StringRef Data, Stream &S) {
  StreamReader R(Data);
  Answer Ans;
  size_t Done = 0;
  char Tag;
  // Each message is absorbed only once it is whole, so one cut short is
  // left for the next read.
  for (; !S.Ended && R.byte(Tag); Done = R.pos()) {
    bool Ok = false;
    switch (Tag) {
    case 'U': {
      uint32_t N;
      if ((Ok = R.u32(N)))
        S.Units = std::max(S.Units, N);
      break;
    }
    case 'N': {
      StringRef Name;
      if ((Ok = R.str(Name) && !Name.empty()))
        S.Ids.push_back(Names.save(Name));
      break;
    }
    case 'R': {
      uint32_t N;
      Ok = R.u32(N) && S.Next > 0 && N <= S.Of.size() - S.Next;
      if (Ok)
        for (; N; --N, ++S.Next)
          S.Of[S.Next] = S.Of[S.Next - 1];
      break;
    }
    case 'A':
      Ok = readAnswer(R, S.Ids, Ans.Frames, Ans.Line) && S.Next < S.Of.size();
      if (Ok) {
        S.Of[S.Next] =
            store(Ans, S.Next ? std::optional(S.Of[S.Next - 1]) : std::nullopt);
        ++S.Next;
      }
      break;
    case 'W': {
      StringRef Msg;
      if ((Ok = R.str(Msg)))
        warn(Msg);
      break;
    }
    case 'E':
      Ok = S.Next == S.Of.size() && R.atEnd();
      S.Ended = Ok;
      break;
    default:
      break;
    }
    if (!Ok && R.isShort())
      return Done;
    if (!Ok)
      return makeError(
          "{0}: debug info: the DWARF reader's answer was malformed", Path);
  }
  return Done;
}

void Symbolizer::Impl::lookupAll(ArrayRef<uint64_t> Todo, IdVector &NewOf) {
  Answer Ans;
  for (uint64_t A : Todo) {
    Ans.Frames.clear();
    Ans.Line = {};
    lookup(A, Ans);
    NewOf.push_back(
        store(Ans, NewOf.empty() ? std::nullopt : std::optional(NewOf.back())));
  }
}

namespace {
/// The addresses of Addrs not in Known (sorted), sorted and distinct.
std::vector<uint64_t> unknownAddresses(ArrayRef<uint64_t> Addrs,
                                       ArrayRef<uint64_t> Known) {
  std::vector<uint64_t> Todo(Addrs.begin(), Addrs.end());
  // Callers mostly give them sorted (sampleProfileAddresses): a check is a
  // pass, a sort of a broad profile's 5M addresses was 0.4 s.
  if (!std::is_sorted(Todo.begin(), Todo.end()))
    llvm::sort(Todo);
  Todo.erase(std::unique(Todo.begin(), Todo.end()), Todo.end());
  if (!Known.empty())
    llvm::erase_if(Todo, [&](uint64_t A) {
      return std::binary_search(Known.begin(), Known.end(), A);
    });
  return Todo;
}

/// One child process of prefetch(): its pid, the read end of its pipe,
/// what it has answered so far, and the bytes of a message not yet whole.
struct Child {
  pid_t Pid = -1;
  int Fd = -1;
  Symbolizer::Impl::Stream S;
  /// What the pipe gave and was not absorbed yet: Buf[0, Have), a message
  /// cut short by the last read, which the next completes in place (the
  /// parent had appended every read to a string while one was pending: a
  /// fresh 256 KiB block per read, 18% of its page faults while it
  /// absorbed bench/scale's 20 MB broad line profile).
  std::vector<char> Buf;
  size_t Have = 0;
};

/// prefetch() isolated: the sorted addresses go out in chunks, one child
/// each, at most Jobs at a time; each child's messages are absorbed as they
/// arrive, into the chunk's slice of the answer numbers.
class ChildPool {
public:
  /// Addrs: sorted, distinct, not empty; Out: one answer number per
  /// address, to fill; MaxJobs: children at a time (0 counts as 1).
  ChildPool(Symbolizer::Impl &Sym, ArrayRef<uint64_t> Addrs,
            MutableArrayRef<uint32_t> Out, unsigned MaxJobs);
  /// Runs every chunk's child; the first error (no pipe, no process, a
  /// child that failed or answered badly) stops new children, waits for
  /// the running ones and is returned.
  Error run();
  /// The most compile units a child found.
  uint32_t units() const { return Units; }

private:
  /// Forks the child of chunk Next, which serves its addresses on a pipe.
  Error start();
  /// Waits for the running children's pipes to fill and reads them;
  /// finishes each child whose pipe has ended.
  void readReady();
  /// Absorbs the N bytes C's pipe gave after C.Have, keeping a message cut
  /// short.
  void consume(Child &C, size_t N);
  /// Reaps C (its pipe at its end) and checks its answer; the first
  /// failure goes to Err.
  void finish(Child &C);

  Symbolizer::Impl &I;
  ArrayRef<uint64_t> Todo;
  MutableArrayRef<uint32_t> Out;
  unsigned Jobs;
  size_t Chunk = 0, NumChunks = 0;
  std::vector<Child> Running;
  std::optional<Error> Err;
  uint32_t Units = 0;
  size_t Next = 0;
};

ChildPool::ChildPool(Symbolizer::Impl &Sym, ArrayRef<uint64_t> Addrs,
                     MutableArrayRef<uint32_t> Out, unsigned MaxJobs)
    : I(Sym), Todo(Addrs), Out(Out), Jobs(std::max(1u, MaxJobs)) {
  // A child parses only the units its chunk touches, so a chunk bounds the
  // memory of the DWARF parser. Chunks are few and large: a fork
  // write-protects the whole address space, and every page either process
  // writes afterwards costs a copy-on-write fault (with 16 chunks of 64k
  // addresses those faults took a quarter of the run).
  // Past one round of Jobs chunks, their number is a multiple of Jobs: 5
  // chunks on 2 cores left the last to run alone (a fifth of the DWARF
  // time of bench/scale's 100 MB broad row with one core idle).
  constexpr size_t MinChunk = 4096, MaxChunk = 1 << 20;
  Chunk =
      std::clamp<size_t>((Todo.size() + Jobs - 1) / Jobs, MinChunk, MaxChunk);
  NumChunks = (Todo.size() + Chunk - 1) / Chunk;
  if (NumChunks > Jobs)
    NumChunks = (NumChunks + Jobs - 1) / Jobs * Jobs;
  Chunk = (Todo.size() + NumChunks - 1) / NumChunks;
  NumChunks = (Todo.size() + Chunk - 1) / Chunk;
}

Error ChildPool::run() {
  while (Next < NumChunks || !Running.empty()) {
    while (!Err && Next < NumChunks && Running.size() < Jobs)
      if (Error E = start())
        Err = std::move(E);
    if (Running.empty())
      break;
    readReady();
  }
  if (Err)
    return std::move(*Err);
  return Error::success();
}

Error ChildPool::start() {
  size_t Begin = Next * Chunk;
  size_t Size = std::min(Chunk, Todo.size() - Begin);
  int P[2];
  if (::pipe(P) != 0)
    return makeError("{0}: debug info: cannot make a pipe: {1}", I.Path,
                     strerror(errno));
  // A larger pipe lets the child run ahead of the parent's reads (fewer
  // switches on a busy machine); the default size works too.
  (void)::fcntl(P[0], F_SETPIPE_SZ, 1 << 20);
  fflush(nullptr);
  pid_t Pid = ::fork();
  if (Pid == 0) {
    ::close(P[0]);
    for (const Child &C : Running)
      ::close(C.Fd);
    I.serve(Todo.slice(Begin, Size), P[1]);
  }
  ::close(P[1]);
  if (Pid < 0) {
    ::close(P[0]);
    return makeError("{0}: debug info: cannot start a process: {1}", I.Path,
                     strerror(errno));
  }
  ++Next;
  Child &C = Running.emplace_back();
  C.Pid = Pid;
  C.Fd = P[0];
  C.S.Of = Out.slice(Begin, Size);
  return Error::success();
}

void ChildPool::readReady() {
  std::vector<pollfd> Fds;
  for (const Child &C : Running)
    Fds.push_back({C.Fd, POLLIN, 0});
  if (::poll(Fds.data(), Fds.size(), -1) < 0) {
    if (errno == EINTR)
      return;
    // Cannot wait on the pipes: read them one after the other.
    for (pollfd &P : Fds)
      P.revents = POLLIN;
  }
  for (size_t K = Running.size(); K-- > 0;) {
    if (!Fds[K].revents)
      continue;
    Child &C = Running[K];
    // A message longer than the buffer doubles it.
    if (C.Have == C.Buf.size())
      C.Buf.resize(std::max(I.PipeReadBytes, 2 * C.Buf.size()));
    size_t Room = std::min(C.Buf.size() - C.Have, I.PipeReadBytes);
    ssize_t N = ::read(C.Fd, C.Buf.data() + C.Have, Room);
    if (N < 0 && errno == EINTR)
      continue;
    if (N > 0) {
      consume(C, size_t(N));
      continue;
    }
    finish(Running[K]);
    Running.erase(Running.begin() + K);
  }
}

void ChildPool::consume(Child &C, size_t N) {
  C.Have += N;
  if (Err) {
    C.Have = 0; // Failed already: the rest is only drained.
    return;
  }
  Expected<size_t> Used = I.absorb(StringRef(C.Buf.data(), C.Have), C.S);
  if (!Used) {
    Err = Used.takeError();
    return;
  }
  // The message cut short (usually a few bytes) moves to the front.
  std::memmove(C.Buf.data(), C.Buf.data() + *Used, C.Have - *Used);
  C.Have -= *Used;
}

void ChildPool::finish(Child &C) {
  ::close(C.Fd);
  int Status = 0;
  while (::waitpid(C.Pid, &Status, 0) < 0 && errno == EINTR) {
  }
  if (Err)
    return;
  if (WIFSIGNALED(Status))
    Err = makeError(
        "{0}: debug info: LLVM's DWARF parser crashed on it (signal {1}, "
        "{2}): the DWARF is corrupt; fdata output (-o x.fdata) does not "
        "need debug info",
        I.Path, WTERMSIG(Status), strsignal(WTERMSIG(Status)));
  else if (WIFEXITED(Status) && WEXITSTATUS(Status) == 4)
    Err = makeError("{0}: debug info: LLVM's DWARF parser gave up on it "
                    "(fatal error): the DWARF is corrupt; fdata output "
                    "(-o x.fdata) does not need debug info",
                    I.Path);
  else if (!WIFEXITED(Status) || WEXITSTATUS(Status) != 0)
    Err = makeError("{0}: debug info: the DWARF reader failed (exit status "
                    "{1}); the DWARF may be corrupt",
                    I.Path, WEXITSTATUS(Status));
  else if (!C.S.Ended || C.Have)
    Err = makeError("{0}: debug info: the DWARF reader's answer was cut short",
                    I.Path);
  Units = std::max(Units, C.S.Units);
  std::vector<char>().swap(C.Buf);
}
} // namespace

Error Symbolizer::prefetch(ArrayRef<uint64_t> Addrs, unsigned Jobs) {
  std::vector<uint64_t> Todo = unknownAddresses(Addrs, I->Addrs);
  if (Todo.empty())
    return Error::success();
  // At most one new answer per address: reserved (not written) before
  // the children start, so it never moves while they answer.
  I->Answers.reserve(I->Answers.size() + Todo.size());
  Impl::IdVector NewOf;
  if (!I->Isolate) {
    NewOf.reserve(Todo.size());
    I->lookupAll(Todo, NewOf);
    I->merge(Todo, NewOf);
    return Error::success();
  }
  NewOf.resize(Todo.size());
  if (!I->UnitsRead) {
    I->Units = UnitIndex::build(*I->Obj);
    I->UnitsRead = true;
  }
  // Free pages the parent would reuse while the children live would be
  // copied on write (Support/HugePages.h).
  releaseFreeMemory();
  ChildPool Pool(*I, Todo, {NewOf.data(), NewOf.size()}, Jobs);
  if (Error E = Pool.run())
    return E;
  I->merge(Todo, NewOf);
  I->HasDebug = Pool.units() > 0;
  return Error::success();
}

} // namespace lbr2prof
