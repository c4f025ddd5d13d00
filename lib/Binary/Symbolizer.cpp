//===- Symbolizer.cpp - DWARF inline stacks, cached per address -----------===//
//
// DWARFContext::getInliningInfoForAddress gives, per frame, the line (for
// outer frames: the call site's line), the discriminator and the frame
// function's DW_AT_decl_line (StartLine). Split units are found through
// DW_AT_dwo_name (relative to the comp dir) or the given .dwp.
//
// Isolation: prefetch() sorts and deduplicates the addresses, splits them
// into contiguous runs, and forks one child per run. Each child opens the
// DWARF (the object file is already mapped, shared copy-on-write), looks its
// addresses up and writes one message stream to its pipe:
//   'U' u32 units                      compile units found
//   'A' u64 addr, u32 n, n x frame     frame = u32 line offset, u32 base
//                                      discriminator, u32 duplication
//                                      factor, u32 line, function name,
//                                      file name (strings: u32 length,
//                                      bytes)
//   'W' u32 length, text               a warning from the DWARF parser
//   'E'                                end: the answer is complete
// then _exit(0)s. The parent reads each pipe to its end and reaps the child:
// a signal, a non-zero status or a missing 'E' is an error.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Binary/Symbolizer.h"
#include "lbr2prof/Support/Error.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
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
  BumpPtrAllocator Alloc;
  UniqueStringSaver Names{Alloc};
  std::string DwpFile;
  bool Isolate = true;
  /// What one address resolved to.
  struct Entry {
    /// The whole inline stack, or nothing (see lookup()).
    std::vector<SourceFrame> Frames;
    /// The innermost line, also when no subprogram encloses the address
    /// (assembler output has a line table and only labels).
    SourceLine Line;
  };
  DenseMap<uint64_t, Entry> Cache;
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
  /// Looks Addr up in the DWARF (in this process).
  void lookup(uint64_t Addr, Entry &Out);
  /// The child's side of prefetch(): answers Addrs on Fd, never returns.
  [[noreturn]] void serve(ArrayRef<uint64_t> Addrs, int Fd);
  /// The cached answer for Addr, looked up now unless isolated.
  Entry &entry(uint64_t Addr) {
    auto [It, New] = Cache.try_emplace(Addr);
    if (New && !Isolate)
      lookup(Addr, It->second);
    return It->second;
  }
  /// Reads one child's answer into the cache.
  Error absorb(StringRef Data, uint32_t &Units);
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
  if (I->Isolate)
    I->HasDebug = objectHasDebugInfo(*I->Obj);
  else
    I->HasDebug = I->context().getNumCompileUnits() > 0;
  return std::unique_ptr<Symbolizer>(new Symbolizer(std::move(I)));
}

void Symbolizer::Impl::lookup(uint64_t Addr, Entry &E) {
  std::vector<SourceFrame> &Out = E.Frames;
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
    F.Discriminator =
        DILocation::getBaseDiscriminatorFromDiscriminator(L.Discriminator,
                                                          /*IsFSD=*/false);
    F.DupFactor =
        DILocation::getDuplicationFactorFromDiscriminator(L.Discriminator);
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

ArrayRef<SourceFrame> Symbolizer::frames(uint64_t Addr) {
  return I->entry(Addr).Frames;
}

SourceLine Symbolizer::lineAt(uint64_t Addr) { return I->entry(Addr).Line; }

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
  Entry E;
  for (uint64_t A : Addrs) {
    E.Frames.clear();
    E.Line = {};
    lookup(A, E);
    W.byte('A');
    W.u64(A);
    W.u32(E.Line.Line);
    W.str(E.Line.File);
    W.u32(uint32_t(E.Frames.size()));
    for (const SourceFrame &F : E.Frames) {
      W.u32(F.LineOffset);
      W.u32(F.Discriminator);
      W.u32(F.DupFactor);
      W.u32(F.Line);
      W.str(F.Function);
      W.str(F.File);
    }
  }
  for (const std::string &Msg : Warnings) {
    W.byte('W');
    W.str(Msg);
  }
  W.byte('E');
  W.flush();
  _exit(0);
}

Error Symbolizer::Impl::absorb(StringRef Data, uint32_t &Units) {
  StreamReader R(Data);
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
    case 'A': {
      uint64_t A;
      uint32_t N, Line;
      StringRef LineFile;
      if (!R.u64(A) || !R.u32(Line) || !R.str(LineFile) || !R.u32(N) ||
          N > (1u << 20))
        break;
      Entry &En = Cache[A];
      En.Line = {LineFile.empty() ? StringRef() : Names.save(LineFile), Line};
      std::vector<SourceFrame> &Out = En.Frames;
      Out.clear();
      bool Ok = true;
      for (uint32_t K = 0; K < N && Ok; ++K) {
        SourceFrame F;
        StringRef Name, File;
        Ok = R.u32(F.LineOffset) && R.u32(F.Discriminator) &&
             R.u32(F.DupFactor) && R.u32(F.Line) && R.str(Name) &&
             R.str(File);
        F.Function = Names.save(Name);
        F.File = File.empty() ? StringRef() : Names.save(File);
        Out.push_back(F);
      }
      if (!Ok)
        break;
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

Error Symbolizer::prefetch(ArrayRef<uint64_t> Addrs, unsigned Jobs) {
  std::vector<uint64_t> Todo;
  Todo.reserve(Addrs.size());
  for (uint64_t A : Addrs)
    if (!I->Cache.count(A))
      Todo.push_back(A);
  llvm::sort(Todo);
  Todo.erase(std::unique(Todo.begin(), Todo.end()), Todo.end());
  if (Todo.empty())
    return Error::success();
  if (!I->Isolate) {
    for (uint64_t A : Todo)
      (void)frames(A);
    return Error::success();
  }
  // One child per run of at least 4096 addresses (forking costs more than
  // looking up a few).
  Jobs = std::max(1u, std::min<unsigned>(Jobs, (Todo.size() + 4095) / 4096));
  struct Child {
    pid_t Pid = -1;
    int Fd = -1;
  };
  std::vector<Child> Children;
  size_t Per = (Todo.size() + Jobs - 1) / Jobs;
  for (size_t Begin = 0; Begin < Todo.size(); Begin += Per) {
    ArrayRef<uint64_t> Run =
        ArrayRef(Todo).slice(Begin, std::min(Per, Todo.size() - Begin));
    int P[2];
    if (::pipe(P) != 0)
      return makeError("{0}: debug info: cannot make a pipe: {1}", I->Path,
                       strerror(errno));
    fflush(nullptr);
    pid_t Pid = ::fork();
    if (Pid == 0) {
      ::close(P[0]);
      for (const Child &C : Children)
        ::close(C.Fd);
      I->serve(Run, P[1]);
    }
    ::close(P[1]);
    if (Pid < 0) {
      ::close(P[0]);
      return makeError("{0}: debug info: cannot start a process: {1}",
                       I->Path, strerror(errno));
    }
    Children.push_back({Pid, P[0]});
  }
  // Read every answer, then reap every child, so none is left behind.
  std::vector<std::string> Answers(Children.size());
  for (size_t K = 0; K < Children.size(); ++K) {
    char Buf[1 << 16];
    for (;;) {
      ssize_t N = ::read(Children[K].Fd, Buf, sizeof(Buf));
      if (N < 0 && errno == EINTR)
        continue;
      if (N <= 0)
        break;
      Answers[K].append(Buf, size_t(N));
    }
    ::close(Children[K].Fd);
  }
  std::optional<Error> Err;
  uint32_t Units = 0;
  for (size_t K = 0; K < Children.size(); ++K) {
    int Status = 0;
    while (::waitpid(Children[K].Pid, &Status, 0) < 0 && errno == EINTR) {
    }
    if (Err)
      continue;
    if (WIFSIGNALED(Status))
      Err = makeError(
          "{0}: debug info: LLVM's DWARF parser crashed on it (signal {1}, "
          "{2}): the DWARF is corrupt; fdata output (-o x.fdata) does not "
          "need debug info",
          I->Path, WTERMSIG(Status), strsignal(WTERMSIG(Status)));
    else if (WIFEXITED(Status) && WEXITSTATUS(Status) == 4)
      Err = makeError("{0}: debug info: LLVM's DWARF parser gave up on it "
                      "(fatal error): the DWARF is corrupt; fdata output "
                      "(-o x.fdata) does not need debug info",
                      I->Path);
    else if (!WIFEXITED(Status) || WEXITSTATUS(Status) != 0)
      Err = makeError("{0}: debug info: the DWARF reader failed (exit status "
                      "{1}); the DWARF may be corrupt",
                      I->Path, WEXITSTATUS(Status));
    else if (Error E = I->absorb(Answers[K], Units))
      Err = std::move(E);
  }
  if (Err)
    return std::move(*Err);
  I->HasDebug = Units > 0;
  return Error::success();
}

} // namespace lbr2prof
