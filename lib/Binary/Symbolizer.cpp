//===- Symbolizer.cpp - DWARF inline stacks, cached per address -----------===//
//
// DWARFContext::getInliningInfoForAddress gives, per frame, the line (for
// outer frames: the call site's line), the discriminator and the frame
// function's DW_AT_decl_line (StartLine). Split units are found through
// DW_AT_dwo_name (relative to the comp dir) or the given .dwp.
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
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/StringSaver.h"

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
  DenseMap<uint64_t, std::vector<SourceFrame>> Cache;
  bool HasDebug = false;
};

Symbolizer::Symbolizer(std::unique_ptr<Impl> I) : I(std::move(I)) {}
Symbolizer::~Symbolizer() = default;
bool Symbolizer::hasDebugInfo() const { return I->HasDebug; }
StringRef Symbolizer::debugPath() const { return I->Path; }

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
  I->Ctx = DWARFContext::create(
      *I->Obj, DWARFContext::ProcessDebugRelocations::Process, nullptr,
      Opts.DwpFile, WithColor::defaultErrorHandler,
      WithColor::defaultWarningHandler);
  I->HasDebug = I->Ctx->getNumCompileUnits() > 0;
  return std::unique_ptr<Symbolizer>(new Symbolizer(std::move(I)));
}

ArrayRef<SourceFrame> Symbolizer::frames(uint64_t Addr) {
  auto [It, New] = I->Cache.try_emplace(Addr);
  if (!New)
    return It->second;
  DILineInfoSpecifier Spec(
      DILineInfoSpecifier::FileLineInfoKind::RawValue,
      DILineInfoSpecifier::FunctionNameKind::LinkageName);
  DIInliningInfo Info = I->Ctx->getInliningInfoForAddress(
      {Addr, object::SectionedAddress::UndefSection}, Spec);
  std::vector<SourceFrame> &Out = It->second;
  for (uint32_t K = 0; K < Info.getNumberOfFrames(); ++K) {
    const DILineInfo &L = Info.getFrame(K);
    if (L.FunctionName == DILineInfo::BadString || L.Line == 0)
      continue;
    SourceFrame F;
    F.Function = I->Names.save(L.FunctionName);
    F.LineOffset = (L.Line - L.StartLine) & 0xffff;
    F.Discriminator =
        DILocation::getBaseDiscriminatorFromDiscriminator(L.Discriminator,
                                                          /*IsFSD=*/false);
    F.DupFactor =
        DILocation::getDuplicationFactorFromDiscriminator(L.Discriminator);
    Out.push_back(F);
  }
  // A stack is usable only whole: a missing frame would misplace counts.
  if (Out.size() != Info.getNumberOfFrames())
    Out.clear();
  return Out;
}

} // namespace lbr2prof
