//===- Symbolizer.cpp - DWARF inline stacks, cached per address -----------===//
//
// DWARFContext::getInliningInfoForAddress gives, per frame, the line (for
// outer frames: the call site's line), the discriminator and the frame
// function's DW_AT_decl_line (StartLine). Split units are found through
// DW_AT_dwo_name (relative to the comp dir) or the given .dwp.
//
// Storage: each distinct address has one 24-byte record in a sorted array
// (no map node, no heap block of its own); names are interned once, and
// consecutive addresses with the same inline stack share one copy of it.
//
// Isolation: prefetch() sorts and deduplicates the addresses, cuts them
// into a few large contiguous chunks, and forks one child per chunk, at most
// Jobs at a time. LLVM parses a unit's DIEs and line table only when an
// address in it is asked for, so a child parses the units its chunk
// touches and no other. Each child opens the DWARF (the object file is
// already mapped, shared copy-on-write), looks its addresses up in order
// and writes one message stream to its pipe:
//   'U' u32 units                      compile units found
//   'N' u32 length, bytes              a name (function or file), numbered
//                                      1, 2, ... in order of appearance
//   'A' u64 addr, u32 line, u32 file,  an address: its innermost line, and
//       u32 n, n x frame               its inline stack; frame = u32 line
//                                      offset, u32 base discriminator, u32
//                                      duplication factor, u32 line, u32
//                                      function, u32 file (names by number,
//                                      0: none)
//   'R' u64 addr                       the same answer as the previous
//                                      address
//   'W' u32 length, text               a warning from the DWARF parser
//   'E'                                end: the answer is complete
// then _exit(0)s. The parent reads the pipes as they fill, reaps each child
// at its pipe's end and absorbs its answer: a signal, a non-zero status, a
// malformed stream or a missing 'E' is an error.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Binary/Symbolizer.h"
#include "lbr2prof/Support/Error.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/DebugInfo/DWARF/DWARFCompileUnit.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/StringSaver.h"
#include <algorithm>
#include <cerrno>
#include <cstring>
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
  std::unique_ptr<MemoryBuffer> Buffer;
  std::unique_ptr<ObjectFile> Obj;
  std::unique_ptr<DWARFContext> Ctx;
  /// Function and file names, each kept once: equal names are equal
  /// pointers, so the profile builders can key their caches on them.
  /// Only LLVM's own code (UniqueStringSaver) allocates from Alloc; see
  /// keepFrames() for why this file must not.
  BumpPtrAllocator Alloc;
  UniqueStringSaver Names{Alloc};
  /// The inline stacks of the records, in chunks reserved up front and
  /// only appended to within their capacity, so a stack never moves.
  std::vector<std::vector<SourceFrame>> FrameChunks;
  static constexpr size_t FrameChunkSize = 4096;
  std::string DwpFile;
  bool Isolate = true;
  /// Keep discriminators as written (GCC's), not decoded as LLVM's.
  bool GccDiscriminators = false;
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
  /// What one address resolved to: 24 bytes, no heap of its own. The
  /// frames live in FrameChunks (so they never move, and frames() answers
  /// stay valid); addresses with the same inline stack (runs of
  /// instructions of one line) share one copy.
  struct Rec {
    const SourceFrame *Frames = nullptr;
    uint32_t NumFrames = 0;
    /// The innermost line, also when no subprogram encloses the address
    /// (assembler output has a line table and only labels); File indexes
    /// Files, NoFile if none.
    uint32_t File = NoFile;
    uint32_t Line = 0;
  };
  static constexpr uint32_t NoFile = ~0u;
  /// Symbolized addresses, sorted and distinct, and their records.
  std::vector<uint64_t> Addrs;
  std::vector<Rec> Recs;
  /// Addresses looked up on demand (not isolated, not prefetched).
  DenseMap<uint64_t, Rec> Extra;
  std::vector<StringRef> Files;
  DenseMap<const char *, uint32_t> FileIds;
  /// Where the last find() succeeded: callers walk addresses in order.
  size_t Hint = 0;
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
  void lookupFast(uint64_t Addr, Answer &Out);
  struct DieInfo {
    StringRef Name;
    bool HasName = false, HasCaller = false;
    uint64_t DeclLine = 0;
    uint32_t CallFile = 0, CallLine = 0, CallColumn = 0, CallDisc = 0;
  };
  /// By (unit, DIE offset): a split unit's DIEs have their own offsets.
  DenseMap<std::pair<const void *, uint64_t>, DieInfo> DieCache;
  /// (line table, file index) -> path, if the prologue has that file.
  DenseMap<std::pair<const void *, uint64_t>, std::optional<StringRef>>
      FileCache;
  const DieInfo &dieInfo(const DWARFDie &D, bool WithCaller);
  std::optional<StringRef> fileName(const DWARFDebugLine::LineTable *LT,
                                    uint64_t Index, DWARFUnit *CU);
  /// The child's side of prefetch(): answers Addrs on Fd, never returns.
  [[noreturn]] void serve(ArrayRef<uint64_t> Addrs, int Fd);
  /// Reads one child's answer: appends its addresses and records to
  /// OutAddrs and OutRecs, its frames to Frames.
  Error absorb(StringRef Data, uint32_t &Units, std::vector<uint64_t> &OutAddrs,
               std::vector<Rec> &OutRecs);
  /// The index in Files of F, an interned name.
  uint32_t fileId(StringRef F) {
    if (F.empty())
      return NoFile;
    auto [It, New] = FileIds.try_emplace(F.data(), uint32_t(Files.size()));
    if (New)
      Files.push_back(F);
    return It->second;
  }
  /// A record for Ans (names interned), its frames copied unless they
  /// equal Prev's.
  Rec store(const Answer &Ans, const Rec *Prev) {
    Rec R;
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
  /// A lasting copy of F (not empty).
  ///
  /// Not Alloc.Allocate(): that would compile BumpPtrAllocator's slow path
  /// into this file, and the linker keeps one copy of such an inline
  /// function for the whole program. Under ASan this file's copy poisons a
  /// new slab and unpoisons only the bytes it hands out, while LLVM's
  /// uninstrumented libraries inline the fast path without the unpoisoning:
  /// every name UniqueStringSaver saved after the first one of a slab lay in
  /// poisoned memory, and its memcpy was reported as a use-after-poison.
  SourceFrame *keepFrames(ArrayRef<SourceFrame> F) {
    if (FrameChunks.empty() ||
        FrameChunks.back().capacity() - FrameChunks.back().size() < F.size()) {
      FrameChunks.emplace_back();
      FrameChunks.back().reserve(std::max(F.size(), FrameChunkSize));
    }
    std::vector<SourceFrame> &C = FrameChunks.back();
    size_t At = C.size();
    C.insert(C.end(), F.begin(), F.end()); // Within capacity: never moves.
    return C.data() + At;
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
    if (Hint + 1 < Addrs.size() && Addrs[Hint + 1] == Addr)
      return &Recs[++Hint];
    if (Hint < Addrs.size() && Addrs[Hint] == Addr)
      return &Recs[Hint];
    auto It = std::lower_bound(Addrs.begin(), Addrs.end(), Addr);
    if (It != Addrs.end() && *It == Addr) {
      Hint = size_t(It - Addrs.begin());
      return &Recs[Hint];
    }
    if (Isolate)
      return nullptr;
    auto [EIt, New] = Extra.try_emplace(Addr);
    if (New) {
      Answer Ans;
      lookup(Addr, Ans);
      EIt->second = store(Ans, nullptr);
    }
    return &EIt->second;
  }
  /// Looks each of Todo up in this process (not isolated), appending the
  /// addresses and their records to NewAddrs and NewRecs.
  void lookupAll(ArrayRef<uint64_t> Todo, std::vector<uint64_t> &NewAddrs,
                 std::vector<Rec> &NewRecs);
  /// Adds sorted new records (addresses not known yet) to Addrs and Recs.
  void merge(std::vector<uint64_t> &NewAddrs, std::vector<Rec> &NewRecs);
};

Symbolizer::Symbolizer(std::unique_ptr<Impl> I) : I(std::move(I)) {}
Symbolizer::~Symbolizer() = default;
bool Symbolizer::hasDebugInfo() const { return I->HasDebug; }
StringRef Symbolizer::debugPath() const { return I->Path; }
ArrayRef<std::string> Symbolizer::warnings() const { return I->Warnings; }
uint64_t Symbolizer::warningCount() const { return I->WarningCount; }

static bool objectHasDebugInfo(const ObjectFile &O) {
  for (const SectionRef &S : O.sections()) {
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

/// LLVM's ELF object layer calls report_fatal_error, which aborts (or
/// divides by zero), when DWARFContext walks a relocation section whose
/// symbol table link is not a section, whose entries lie outside the file or
/// have the wrong size, or whose symbol indices are past the symbol table.
/// DWARFContext walks every relocation section, whatever its target, so all
/// are checked first: a corrupt file is then an error and not a crash. Real
/// binaries (.rela.dyn, .rela.plt, --emit-relocs) always pass.
static Error checkRelocations(const ELF64LEObjectFile &O) {
  using ELFT = ELF64LE;
  const ELFFile<ELFT> &EF = O.getELFFile();
  auto Sections = EF.sections();
  if (!Sections)
    return Sections.takeError();
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
    if (S.sh_type == ELF::SHT_REL) {
      auto Rels = EF.rels(S);
      if (!Rels)
        return Fail(toString(Rels.takeError()));
      for (const ELFT::Rel &R : *Rels)
        if (Error E = CheckSym(R.getSymbol(false)))
          return E;
    } else {
      auto Relas = EF.relas(S);
      if (!Relas)
        return Fail(toString(Relas.takeError()));
      for (const ELFT::Rela &R : *Relas)
        if (Error E = CheckSym(R.getSymbol(false)))
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
  if (!Opts.DebugFile.empty()) {
    if (Error E = openObj(Opts.DebugFile))
      return std::move(E);
  } else {
    if (Error E = openObj(BinaryPath))
      return std::move(E);
    if (!objectHasDebugInfo(*I->Obj) && BuildId.size() > 1) {
      std::string Hex = toHex(BuildId, /*LowerCase=*/true);
      std::string P = "/usr/lib/debug/.build-id/" + Hex.substr(0, 2) + "/" +
                      Hex.substr(2) + ".debug";
      if (sys::fs::exists(P))
        if (Error E = openObj(P))
          return std::move(E);
    }
  }
  if (auto *O = dyn_cast<ELF64LEObjectFile>(I->Obj.get()))
    if (Error E = joinErrors(checkRelocations(*O), checkCompressedSections(*O)))
      return makeError("{0}: malformed debug info: {1}", I->Path,
                       toString(std::move(E)));
  I->DwpFile = Opts.DwpFile;
  I->Isolate = Opts.Isolate;
  I->GccDiscriminators = Opts.GccDiscriminators;
  if (I->Isolate)
    I->HasDebug = objectHasDebugInfo(*I->Obj);
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
    if (L.FunctionName == DILineInfo::BadString || L.Line == 0)
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

std::optional<StringRef>
Symbolizer::Impl::fileName(const DWARFDebugLine::LineTable *LT,
                           uint64_t Index, DWARFUnit *CU) {
  auto [It, New] = FileCache.try_emplace({LT, Index});
  if (New) {
    std::string Path;
    if (LT->getFileNameByIndex(
            Index, CU->getCompilationDir(),
            DILineInfoSpecifier::FileLineInfoKind::RelativeFilePath, Path))
      It->second = Names.save(Path);
  }
  return It->second;
}

void Symbolizer::Impl::lookupFast(uint64_t Addr, Answer &E) {
  // Step by step what getInliningInfoForAddress does (LLVM 19), keeping
  // only the fields lookup() reads: name, declaration line, line,
  // discriminator and file of each frame, the innermost from the line
  // table, the outer ones from the call-site attributes of the frame
  // inside them.
  DWARFCompileUnit *CU = context().getCompileUnitForCodeAddress(Addr);
  if (!CU)
    return;
  SmallVector<DWARFDie, 4> Chain;
  CU->getInlinedChainForAddress(Addr, Chain);
  const DWARFDebugLine::LineTable *LT = context().getLineTableForUnit(CU);
  // The innermost line: file, line, discriminator of the row, if the row
  // and its file exist (else the frame has no line and no file).
  std::optional<StringRef> File0;
  uint32_t Line0 = 0, Disc0 = 0;
  if (LT) {
    uint32_t Row =
        LT->lookupAddress({Addr, object::SectionedAddress::UndefSection});
    if (Row != UINT32_MAX) {
      const DWARFDebugLine::Row &R = LT->Rows[Row];
      File0 = fileName(LT, R.File, CU);
      if (File0) {
        Line0 = R.Line;
        Disc0 = R.Discriminator;
      }
    }
  }
  if (Line0 != 0 && File0)
    E.Line = {*File0, Line0};
  if (Chain.empty())
    return; // No subprogram: a line only, no frames.
  bool Whole = true;
  uint32_t CallFile = 0, CallLine = 0, CallDisc = 0;
  for (size_t K = 0; K < Chain.size(); ++K) {
    const DieInfo &D = dieInfo(Chain[K], K + 1 < Chain.size());
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
    if (!D.HasName || Line == 0) {
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

void Symbolizer::Impl::merge(std::vector<uint64_t> &NewAddrs,
                             std::vector<Rec> &NewRecs) {
  if (Addrs.empty()) {
    Addrs = std::move(NewAddrs);
    Recs = std::move(NewRecs);
    return;
  }
  std::vector<uint64_t> A;
  std::vector<Rec> R;
  A.reserve(Addrs.size() + NewAddrs.size());
  R.reserve(A.capacity());
  size_t X = 0, Y = 0;
  while (X < Addrs.size() || Y < NewAddrs.size()) {
    if (Y == NewAddrs.size() || (X < Addrs.size() && Addrs[X] < NewAddrs[Y])) {
      A.push_back(Addrs[X]);
      R.push_back(Recs[X++]);
    } else {
      A.push_back(NewAddrs[Y]);
      R.push_back(NewRecs[Y++]);
    }
  }
  Addrs = std::move(A);
  Recs = std::move(R);
  Hint = 0;
}

namespace {
/// Buffered writes to a pipe; a failed write ends the child.
class PipeWriter {
public:
  explicit PipeWriter(int Fd) : Fd(Fd) { Buf.reserve(1 << 16); }
  void u32(uint32_t V) { bytes(&V, 4); }
  void u64(uint64_t V) { bytes(&V, 8); }
  void byte(char C) { bytes(&C, 1); }
  void str(StringRef S) {
    u32(uint32_t(S.size()));
    bytes(S.data(), S.size());
  }
  void bytes(const void *P, size_t N) {
    Buf.append(static_cast<const char *>(P), N);
    if (Buf.size() >= (1 << 16))
      flush();
  }
  void flush() {
    size_t Done = 0;
    while (Done < Buf.size()) {
      ssize_t W = ::write(Fd, Buf.data() + Done, Buf.size() - Done);
      if (W < 0 && errno == EINTR)
        continue;
      if (W <= 0)
        _exit(3);
      Done += size_t(W);
    }
    Buf.clear();
  }

private:
  int Fd;
  std::string Buf;
};

/// Reads the child's stream; every read is bounds-checked.
class StreamReader {
public:
  explicit StreamReader(StringRef D) : D(D) {}
  bool u32(uint32_t &V) { return get(&V, 4); }
  bool u64(uint64_t &V) { return get(&V, 8); }
  bool byte(char &C) { return get(&C, 1); }
  bool str(StringRef &S) {
    uint32_t N;
    if (!u32(N) || N > D.size() - Pos)
      return false;
    S = D.substr(Pos, N);
    Pos += N;
    return true;
  }

private:
  bool get(void *P, size_t N) {
    if (N > D.size() - Pos)
      return false;
    std::memcpy(P, D.data() + Pos, N);
    Pos += N;
    return true;
  }
  StringRef D;
  size_t Pos = 0;
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
  // Names go once each ('N'), then by number.
  DenseMap<const char *, uint32_t> Ids;
  auto id = [&](StringRef S) -> uint32_t {
    if (S.empty())
      return 0;
    auto [It, New] = Ids.try_emplace(S.data(), uint32_t(Ids.size() + 1));
    if (New) {
      W.byte('N');
      W.str(S);
    }
    return It->second;
  };
  Answer E, Prev;
  bool HavePrev = false;
  for (uint64_t A : Addrs) {
    E.Frames.clear();
    E.Line = {};
    lookupFast(A, E);
    // Consecutive instructions of one line have the same answer.
    if (HavePrev && E.Line.File.data() == Prev.Line.File.data() &&
        E.Line.Line == Prev.Line.Line &&
        std::equal(E.Frames.begin(), E.Frames.end(), Prev.Frames.begin(),
                   Prev.Frames.end(), sameFrame)) {
      W.byte('R');
      W.u64(A);
      continue;
    }
    uint32_t LineFile = id(E.Line.File);
    SmallVector<std::pair<uint32_t, uint32_t>, 4> FrameIds;
    for (const SourceFrame &F : E.Frames)
      FrameIds.push_back({id(F.Function), id(F.File)});
    W.byte('A');
    W.u64(A);
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
  for (const std::string &Msg : Warnings) {
    W.byte('W');
    W.str(Msg);
  }
  W.byte('E');
  W.flush();
  _exit(0);
}

Error Symbolizer::Impl::absorb(StringRef Data, uint32_t &Units,
                               std::vector<uint64_t> &OutAddrs,
                               std::vector<Rec> &OutRecs) {
  StreamReader R(Data);
  // The child's names by number (0: none).
  std::vector<StringRef> Ids{StringRef()};
  Answer Ans;
  bool HavePrev = false;
  uint64_t Last = 0;
  auto name = [&](uint32_t Id, StringRef &S) {
    if (Id >= Ids.size())
      return false;
    S = Ids[Id];
    return true;
  };
  char Tag;
  while (R.byte(Tag)) {
    switch (Tag) {
    case 'U': {
      uint32_t N;
      if (!R.u32(N))
        break;
      Units = std::max(Units, N);
      continue;
    }
    case 'N': {
      StringRef S;
      if (!R.str(S) || S.empty())
        break;
      Ids.push_back(Names.save(S));
      continue;
    }
    case 'R': {
      uint64_t A;
      // Addresses come sorted and distinct.
      if (!R.u64(A) || !HavePrev || A <= Last)
        break;
      OutAddrs.push_back(Last = A);
      OutRecs.push_back(OutRecs.back());
      continue;
    }
    case 'A': {
      uint64_t A;
      uint32_t N, Line, LineFile;
      if (!R.u64(A) || (HavePrev && A <= Last) || !R.u32(Line) ||
          !R.u32(LineFile) || !R.u32(N) || N > (1u << 20) ||
          !name(LineFile, Ans.Line.File))
        break;
      Ans.Line.Line = Line;
      Ans.Frames.clear();
      bool Ok = true;
      for (uint32_t K = 0; K < N && Ok; ++K) {
        SourceFrame F;
        uint32_t Fn, File;
        Ok = R.u32(F.LineOffset) && R.u32(F.Discriminator) &&
             R.u32(F.DupFactor) && R.u32(F.Line) && R.u32(Fn) &&
             R.u32(File) && name(Fn, F.Function) && name(File, F.File);
        Ans.Frames.push_back(F);
      }
      if (!Ok)
        break;
      OutRecs.push_back(store(Ans, OutRecs.empty() ? nullptr : &OutRecs.back()));
      OutAddrs.push_back(Last = A);
      HavePrev = true;
      continue;
    }
    case 'W': {
      StringRef Msg;
      if (!R.str(Msg))
        break;
      warn(Msg);
      continue;
    }
    case 'E':
      return Error::success();
    default:
      break;
    }
    break;
  }
  return makeError("{0}: debug info: the DWARF reader's answer was cut short",
                   Path);
}

void Symbolizer::Impl::lookupAll(ArrayRef<uint64_t> Todo,
                                 std::vector<uint64_t> &NewAddrs,
                                 std::vector<Rec> &NewRecs) {
  Answer Ans;
  for (uint64_t A : Todo) {
    Ans.Frames.clear();
    Ans.Line = {};
    lookup(A, Ans);
    NewRecs.push_back(store(Ans, NewRecs.empty() ? nullptr : &NewRecs.back()));
    NewAddrs.push_back(A);
  }
}

namespace {
/// The addresses of Addrs not in Known (sorted), sorted and distinct.
std::vector<uint64_t> unknownAddresses(ArrayRef<uint64_t> Addrs,
                                       ArrayRef<uint64_t> Known) {
  std::vector<uint64_t> Todo(Addrs.begin(), Addrs.end());
  llvm::sort(Todo);
  Todo.erase(std::unique(Todo.begin(), Todo.end()), Todo.end());
  if (!Known.empty())
    llvm::erase_if(Todo, [&](uint64_t A) {
      return std::binary_search(Known.begin(), Known.end(), A);
    });
  return Todo;
}

/// One child process of prefetch(): its pid, the read end of its pipe, the
/// index of its chunk, and what it has written so far.
struct Child {
  pid_t Pid = -1;
  int Fd = -1;
  size_t Index = 0;
  std::string Answer;
};

/// prefetch() isolated: the sorted addresses go out in chunks, one child
/// each, at most Jobs at a time; each child's answer is absorbed as it
/// ends, and the chunks' records are joined in order at the end.
class ChildPool {
public:
  /// Addrs: sorted, distinct, not empty; MaxJobs: children at a time (0
  /// counts as 1).
  ChildPool(Symbolizer::Impl &Sym, ArrayRef<uint64_t> Addrs, unsigned MaxJobs);
  /// Runs every chunk's child; the first error (no pipe, no process, a
  /// child that failed or answered badly) stops new children, waits for
  /// the running ones and is returned.
  Error run();
  /// Appends the chunks' addresses and records, in order, to NewAddrs and
  /// NewRecs (freeing each chunk's as it goes).
  void join(std::vector<uint64_t> &NewAddrs,
            std::vector<Symbolizer::Impl::Rec> &NewRecs);
  /// The most compile units a child found.
  uint32_t units() const { return Units; }

private:
  /// Forks the child of chunk Next, which serves its addresses on a pipe.
  Error start();
  /// Waits for the running children's pipes to fill and reads them;
  /// finishes each child whose pipe has ended.
  void readReady();
  /// Reaps C (its pipe at its end) and absorbs its answer; the first
  /// failure goes to Err.
  void finish(Child &C);

  Symbolizer::Impl &I;
  ArrayRef<uint64_t> Todo;
  unsigned Jobs;
  size_t Chunk = 0, NumChunks = 0;
  std::vector<Child> Running;
  /// Each chunk's records, absorbed as its child ends.
  std::vector<std::vector<uint64_t>> ChunkAddrs;
  std::vector<std::vector<Symbolizer::Impl::Rec>> ChunkRecs;
  std::optional<Error> Err;
  uint32_t Units = 0;
  size_t Next = 0;
};

ChildPool::ChildPool(Symbolizer::Impl &Sym, ArrayRef<uint64_t> Addrs,
                     unsigned MaxJobs)
    : I(Sym), Todo(Addrs), Jobs(std::max(1u, MaxJobs)) {
  // A child parses only the units its chunk touches, so a chunk bounds the
  // memory of the DWARF parser. Chunks are few and large: a fork
  // write-protects the whole address space, and every page either process
  // writes afterwards costs a copy-on-write fault (with 16 chunks of 64k
  // addresses those faults took a quarter of the run).
  constexpr size_t MinChunk = 4096, MaxChunk = 1 << 20;
  Chunk =
      std::clamp<size_t>((Todo.size() + Jobs - 1) / Jobs, MinChunk, MaxChunk);
  NumChunks = (Todo.size() + Chunk - 1) / Chunk;
  Chunk = (Todo.size() + NumChunks - 1) / NumChunks;
  ChunkAddrs.resize(NumChunks);
  ChunkRecs.resize(NumChunks);
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
  ArrayRef<uint64_t> Run =
      Todo.slice(Begin, std::min(Chunk, Todo.size() - Begin));
  int P[2];
  if (::pipe(P) != 0)
    return makeError("{0}: debug info: cannot make a pipe: {1}", I.Path,
                     strerror(errno));
  fflush(nullptr);
  pid_t Pid = ::fork();
  if (Pid == 0) {
    ::close(P[0]);
    for (const Child &C : Running)
      ::close(C.Fd);
    I.serve(Run, P[1]);
  }
  ::close(P[1]);
  if (Pid < 0) {
    ::close(P[0]);
    return makeError("{0}: debug info: cannot start a process: {1}", I.Path,
                     strerror(errno));
  }
  Running.push_back({Pid, P[0], Next++, {}});
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
    char Buf[1 << 16];
    ssize_t N = ::read(Running[K].Fd, Buf, sizeof(Buf));
    if (N < 0 && errno == EINTR)
      continue;
    if (N > 0) {
      Running[K].Answer.append(Buf, size_t(N));
      continue;
    }
    finish(Running[K]);
    Running.erase(Running.begin() + K);
  }
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
  else if (Error E = I.absorb(C.Answer, Units, ChunkAddrs[C.Index],
                              ChunkRecs[C.Index]))
    Err = std::move(E);
  std::string().swap(C.Answer);
}

void ChildPool::join(std::vector<uint64_t> &NewAddrs,
                     std::vector<Symbolizer::Impl::Rec> &NewRecs) {
  for (size_t K = 0; K < NumChunks; ++K) {
    NewAddrs.insert(NewAddrs.end(), ChunkAddrs[K].begin(), ChunkAddrs[K].end());
    NewRecs.insert(NewRecs.end(), ChunkRecs[K].begin(), ChunkRecs[K].end());
    std::vector<uint64_t>().swap(ChunkAddrs[K]);
    std::vector<Symbolizer::Impl::Rec>().swap(ChunkRecs[K]);
  }
}
} // namespace

Error Symbolizer::prefetch(ArrayRef<uint64_t> Addrs, unsigned Jobs) {
  std::vector<uint64_t> Todo = unknownAddresses(Addrs, I->Addrs);
  if (Todo.empty())
    return Error::success();
  std::vector<uint64_t> NewAddrs;
  std::vector<Impl::Rec> NewRecs;
  NewAddrs.reserve(Todo.size());
  NewRecs.reserve(Todo.size());
  if (!I->Isolate) {
    I->lookupAll(Todo, NewAddrs, NewRecs);
    I->merge(NewAddrs, NewRecs);
    return Error::success();
  }
  ChildPool Pool(*I, Todo, Jobs);
  if (Error E = Pool.run())
    return E;
  Pool.join(NewAddrs, NewRecs);
  I->merge(NewAddrs, NewRecs);
  I->HasDebug = Pool.units() > 0;
  return Error::success();
}

} // namespace lbr2prof
