//===- PseudoProbes.cpp - decode .pseudo_probe and .pseudo_probe_desc ------===//
//
// The probe sections are decoded here, as LLVM MC's MCPseudoProbeDecoder
// decodes them (its descriptor reader is used). Each section is first
// walked to check it, without recursion (LLVM's decoder recurses once per
// level of inlining, so a crafted deep nest would overflow its stack, and
// it only says "failed"): to bound the nesting and to name the byte offset
// of a fault.
// The layouts (documented in llvm/MC/MCPseudoProbe.h):
//
//   .pseudo_probe_desc:  { GUID u64, HASH u64, NAMELEN uleb, NAME bytes }*
//   .pseudo_probe:       FUNCTION*, where
//     FUNCTION = [SITE uleb (inlined only)] GUID u64 NPROBES uleb
//                NINLINED uleb PROBE{NPROBES} FUNCTION{NINLINED}
//     PROBE    = INDEX uleb, TYPE u8 (bits 0-3 kind, 4-6 attributes with
//                4 = has discriminator, bit 7 = address is a delta),
//                ADDRESS (sleb delta, or u64), [DISCRIMINATOR uleb]
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Binary/PseudoProbes.h"
#include "lbr2prof/Support/Error.h"
#include "llvm/MC/MCPseudoProbe.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/LEB128.h"
#include "llvm/Support/MD5.h"
#include <algorithm>
#include <optional>

using namespace llvm;
using namespace llvm::object;

namespace lbr2prof {

ArrayRef<Probe> PseudoProbes::probesIn(uint64_t Begin, uint64_t End) const {
  auto Lo = std::lower_bound(
      Probes.begin(), Probes.end(), Begin,
      [](const Probe &P, uint64_t A) { return P.Addr < A; });
  auto Hi = std::lower_bound(
      Lo, Probes.end(), End,
      [](const Probe &P, uint64_t A) { return P.Addr < A; });
  return ArrayRef<Probe>(Probes).slice(Lo - Probes.begin(), Hi - Lo);
}

const ProbeFunctionDesc *PseudoProbes::desc(uint64_t Guid) const {
  auto It = DescIndex.find(Guid);
  return It == DescIndex.end() ? nullptr : &Descs[It->second];
}

bool PseudoProbes::inlineChain(
    const Probe &Q,
    std::vector<std::pair<const ProbeFunctionDesc *, uint32_t>> &Out,
    bool *Restarted) const {
  Out.clear();
  ArrayRef<InlineFrame> Ctx = Contexts[Q.Context];
  size_t First = 0;
  for (size_t K = 0; K < Ctx.size(); ++K)
    if (Ctx[K].SiteIndex == 0)
      First = K + 1;
  if (Restarted)
    *Restarted = First != 0;
  for (size_t K = First; K <= Ctx.size(); ++K) {
    const ProbeFunctionDesc *D =
        desc(K < Ctx.size() ? Ctx[K].CallerGuid : Q.Guid);
    if (!D)
      return false;
    Out.emplace_back(D, K < Ctx.size() ? Ctx[K].SiteIndex : 0);
  }
  return true;
}

StringRef PseudoProbes::nameOf(const FunctionSym &F) const {
  for (const Probe &Q : probesIn(F.Start, F.End))
    if (Q.Context == 0)
      if (const ProbeFunctionDesc *D = desc(Q.Guid))
        return D->Name;
  return "";
}

const Probe *PseudoProbes::callProbeAt(uint64_t Addr) const {
  const Probe *C = nullptr;
  for (const Probe &Q : probesAt(Addr))
    if (Q.isCall())
      C = &Q; // sorted by inline depth: the last is the innermost
  return C;
}

void PseudoProbes::print(raw_ostream &OS) const {
  auto nameOf = [&](uint64_t G) -> std::string {
    if (const ProbeFunctionDesc *D = desc(G))
      return D->Name;
    return "guid:" + std::to_string(G);
  };
  for (const ProbeFunctionDesc &D : Descs)
    OS << "desc " << D.Guid << " " << D.Hash << " " << D.Name << "\n";
  for (const Probe &P : Probes) {
    OS << format_hex(P.Addr, 0) << " " << nameOf(P.Guid) << " " << P.Index
       << " "
       << (P.Kind == ProbeKind::Block          ? "block"
           : P.Kind == ProbeKind::DirectCall   ? "call"
                                               : "indirect-call");
    if (P.Discriminator)
      OS << " disc " << P.Discriminator;
    const std::vector<InlineFrame> &C = Contexts[P.Context];
    for (const InlineFrame &IF : C)
      OS << " @ " << nameOf(IF.CallerGuid) << ":" << IF.SiteIndex;
    OS << "\n";
  }
}

namespace {

/// Reads LEB128 and fixed-size fields from a section, remembering where
/// the first fault was.
class SectionCursor {
public:
  explicit SectionCursor(ArrayRef<uint8_t> D) : D(D) {}
  bool atEnd() const { return Pos >= D.size(); }
  size_t pos() const { return Pos; }
  bool uleb(uint64_t &V) {
    unsigned N = 0;
    const char *Err = nullptr;
    V = decodeULEB128(D.data() + Pos, &N, D.data() + D.size(), &Err);
    Pos += Err ? 0 : N;
    return !Err;
  }
  bool sleb(int64_t &V) {
    unsigned N = 0;
    const char *Err = nullptr;
    V = decodeSLEB128(D.data() + Pos, &N, D.data() + D.size(), &Err);
    Pos += Err ? 0 : N;
    return !Err;
  }
  bool u64(uint64_t &V) {
    if (D.size() - Pos < 8)
      return false;
    V = support::endian::read64le(D.data() + Pos);
    Pos += 8;
    return true;
  }
  bool skip(uint64_t N) {
    if (D.size() - Pos < N)
      return false;
    Pos += N;
    return true;
  }
  bool byte(uint8_t &B) {
    if (atEnd())
      return false;
    B = D[Pos++];
    return true;
  }

private:
  ArrayRef<uint8_t> D;
  size_t Pos = 0;
};

/// Deepest inline nesting accepted (real programs stay far below).
constexpr size_t MaxInlineDepth = 1024;

struct SectionData {
  ArrayRef<uint8_t> Bytes;
  uint64_t FileOffset = 0;
  StringRef Name;
};

/// A fault in a probe section, at byte Pos of it.
Error sectionError(StringRef Path, const SectionData &S, size_t Pos,
                   const Twine &Msg) {
  InputLocation L;
  L.File = Path.str();
  L.Offset = S.FileOffset + Pos;
  return inputError(L, "section " + S.Name + ": " + Msg);
}

Error checkDescSection(StringRef Path, const SectionData &S) {
  SectionCursor C(S.Bytes);
  while (!C.atEnd()) {
    size_t At = C.pos();
    uint64_t Len = 0;
    if (!C.skip(16) || !C.uleb(Len) || !C.skip(Len))
      return sectionError(Path, S, At,
                          "function descriptor runs past the section's end");
  }
  return Error::success();
}

/// Checks a probe section and, when Wanted is set, adds to Keep the GUID
/// of every top-level record with a probe (its own or an inlinee's) at an
/// address Wanted accepts. Addresses are decoded as MCPseudoProbeDecoder
/// does: a delta from the previous probe of the section, or absolute; a
/// top-level record starts from its function's address (Starts, by GUID)
/// unless the section is of the older, address-based encoding (an
/// absolute probe address was seen: AddrBased, kept across sections as
/// the decoder keeps it); a sentinel probe (a split fragment's entry)
/// gives the GUID of the fragment's symbol, also resolved through Starts.
/// Where Starts has no answer for a record (a copy of a function whose
/// symbol the linker dropped), the decoder resumes from the previous
/// record's last probe: the record it restarted at is then kept too, so a
/// kept record's addresses do not depend on the filter. A sentinel that
/// Starts does not resolve sets All: the whole section is decoded.
Error checkProbeSection(StringRef Path, const SectionData &S,
                        function_ref<bool(uint64_t)> Wanted,
                        const MCPseudoProbeDecoder::Uint64Map &Starts,
                        MCPseudoProbeDecoder::Uint64Set &Keep, bool &AddrBased,
                        bool &All) {
  SectionCursor C(S.Bytes);
  // Inlined records still to read at each open level.
  std::vector<uint64_t> Pending;
  uint64_t LastAddr = 0, TopGuid = 0;
  bool TopWanted = false;
  // Each top-level record's GUID, and whether Starts resolved it.
  std::vector<std::pair<uint64_t, bool>> Tops;
  while (!C.atEnd() || !Pending.empty()) {
    if (!Pending.empty() && Pending.back() == 0) {
      Pending.pop_back();
      continue;
    }
    bool Inlined = !Pending.empty();
    if (Inlined)
      --Pending.back();
    size_t At = C.pos();
    uint64_t Site = 0, Guid = 0, NProbes = 0, NInlined = 0;
    if ((Inlined && !C.uleb(Site)) || !C.u64(Guid) || !C.uleb(NProbes) ||
        !C.uleb(NInlined))
      return sectionError(Path, S, At,
                          "function record header runs past the section's "
                          "end");
    if (!Inlined) {
      if (TopWanted)
        Keep.insert(TopGuid);
      TopGuid = Guid;
      TopWanted = false;
      if (!AddrBased) {
        auto It = Starts.find(Guid);
        if (It != Starts.end())
          LastAddr = It->second;
        Tops.push_back({Guid, It != Starts.end()});
      }
    }
    for (uint64_t K = 0; K < NProbes; ++K) {
      size_t P = C.pos();
      uint64_t Index = 0, Disc = 0, Abs = 0;
      int64_t Delta = 0;
      uint8_t Type = 0;
      bool Ok = C.uleb(Index) && C.byte(Type);
      if (Ok)
        Ok = (Type & 0x80) ? C.sleb(Delta) : C.u64(Abs);
      if (Ok && (Type & 0x40))
        Ok = C.uleb(Disc);
      if (!Ok)
        return sectionError(Path, S, P,
                            "probe " + Twine(K + 1) + " of " + Twine(NProbes) +
                                " runs past the section's end");
      if ((Type & 0xf) > 2)
        return sectionError(Path, S, P,
                            "probe kind " + Twine(Type & 0xf) +
                                " (expected 0 block, 1 indirect call, 2 "
                                "direct call)");
      if (Type & 0x80)
        LastAddr += uint64_t(Delta);
      else if (Type & 0x20) {
        auto It = Starts.find(Abs);
        if (It == Starts.end())
          All = true;
        else
          LastAddr = It->second;
      } else {
        LastAddr = Abs;
        AddrBased = true;
      }
      if (Wanted && !TopWanted && Wanted(LastAddr))
        TopWanted = true;
    }
    if (NInlined && Pending.size() >= MaxInlineDepth)
      return sectionError(Path, S, At,
                          "inline nesting deeper than " +
                              Twine(MaxInlineDepth) + " levels");
    Pending.push_back(NInlined);
  }
  if (TopWanted)
    Keep.insert(TopGuid);
  // A record that Starts does not resolve starts where the previous record
  // ended, and so on back to the last record it resolves, where the
  // decoder restarted: when such a record is kept, that one is kept too,
  // so the decoder restarts there as it does without a filter.
  std::optional<uint64_t> Restart;
  std::vector<uint64_t> Also;
  for (const auto &[Guid, Resolved] : Tops) {
    if (Resolved)
      Restart = Guid;
    else if (Restart && Keep.count(Guid))
      Also.push_back(*Restart);
  }
  Keep.insert(Also.begin(), Also.end());
  return Error::success();
}

/// The probes of a section as MCPseudoProbeDecoder::buildAddress2ProbeMap
/// decodes them, with the inline tree nodes it would make, in its order.
/// LLVM 19's decoder keeps a std::map of std::lists and a tree node of hash
/// maps, ~120 bytes a probe: decoding and walking them was 30 of the 44 ms
/// re2's probe profiles spent on probes (bench/pgo), for 3 ms here.
class ProbeDecoder {
public:
  /// A probe in decoding order, with its inline tree node.
  struct Decoded {
    uint64_t Addr, Guid;
    uint32_t Index, Discriminator, Node;
    /// Its place in decoding order.
    uint32_t Seq;
    ProbeKind Kind;
  };
  /// An inline tree node: a kept top-level record (Parent == Root), or an
  /// inlinee's record under its inliner's node, shared by every record of
  /// the same callee and call site there (the decoder's getOrAddNode).
  struct Node {
    uint32_t Parent;
    uint32_t Site;
    uint64_t Guid;
  };
  static constexpr uint32_t Root = 0, Discarded = ~0u;
  std::vector<Decoded> Probes;
  std::vector<Node> Nodes{{Root, 0, 0}};

  /// Decodes a section that checkProbeSection() accepted. Keep: the GUIDs
  /// of the top-level records to keep (empty: all). False where a field
  /// does not fit the decoder's 32 bits.
  bool decode(ArrayRef<uint8_t> Bytes,
              const MCPseudoProbeDecoder::Uint64Set &Keep,
              const MCPseudoProbeDecoder::Uint64Map &Starts) {
    SectionCursor C(Bytes);
    uint64_t LastAddr = 0;
    // Per open record: its node, and its inlinees still to read.
    std::vector<std::pair<uint32_t, uint64_t>> Open;
    auto u32 = [](uint64_t V) { return V <= UINT32_MAX; };
    while (!C.atEnd() || !Open.empty()) {
      if (!Open.empty() && Open.back().second == 0) {
        Open.pop_back();
        continue;
      }
      bool Top = Open.empty();
      uint32_t Parent = Top ? Root : Open.back().first;
      if (!Top)
        --Open.back().second;
      uint64_t Site = 0, Guid = 0, NProbes = 0, NInlined = 0;
      if ((!Top && (!C.uleb(Site) || !u32(Site))) || !C.u64(Guid) ||
          !C.uleb(NProbes) || !u32(NProbes) || !C.uleb(NInlined) ||
          !u32(NInlined))
        return false;
      uint32_t Cur = Discarded;
      if (Top ? Keep.empty() || Keep.count(Guid) : Parent != Discarded) {
        if (Top) {
          // Every top-level record gets a node of its own.
          Cur = newNode(Root, 0, Guid);
          if (!AddrBased)
            if (uint64_t A = Starts.lookup(Guid))
              LastAddr = A;
        } else {
          auto [It, New] = Children.try_emplace(
              {Guid, (uint64_t(Parent) << 32) | Site}, uint32_t(Nodes.size()));
          if (New)
            newNode(Parent, uint32_t(Site), Guid);
          Cur = It->second;
        }
      }
      for (uint64_t K = 0; K < NProbes; ++K) {
        uint64_t Index = 0, Disc = 0, Abs = 0;
        int64_t Delta = 0;
        uint8_t Type = 0;
        if (!C.uleb(Index) || !u32(Index) || !C.byte(Type))
          return false;
        bool Sentinel = Type & 0x20;
        uint64_t Addr;
        if (Type & 0x80) {
          if (!C.sleb(Delta))
            return false;
          Addr = LastAddr + uint64_t(Delta);
        } else {
          if (!C.u64(Abs))
            return false;
          Addr = Abs;
          if (Sentinel) {
            if (uint64_t A = Starts.lookup(Abs))
              Addr = A;
          } else {
            AddrBased = true;
          }
        }
        if ((Type & 0x40) && (!C.uleb(Disc) || !u32(Disc)))
          return false;
        if (Cur != Discarded && !Sentinel) {
          uint8_t Kind = Type & 0xf;
          Probes.push_back({Addr, Guid, uint32_t(Index), uint32_t(Disc), Cur,
                            uint32_t(Probes.size()),
                            Kind == 0   ? ProbeKind::Block
                            : Kind == 2 ? ProbeKind::DirectCall
                                        : ProbeKind::IndirectCall});
        }
        LastAddr = Addr;
      }
      Open.push_back({Cur, NInlined});
    }
    return true;
  }

  /// An absolute probe address was decoded (kept across sections).
  bool AddrBased = false;

private:
  uint32_t newNode(uint32_t Parent, uint32_t Site, uint64_t Guid) {
    Nodes.push_back({Parent, Site, Guid});
    return uint32_t(Nodes.size() - 1);
  }
  /// Inlinee nodes by (GUID, parent node << 32 | call site).
  DenseMap<std::pair<uint64_t, uint64_t>, uint32_t> Children;
};

} // namespace

Expected<PseudoProbes> readPseudoProbes(StringRef Path,
                                        ArrayRef<FunctionSym> Functions,
                                        function_ref<bool(uint64_t)> Wanted) {
  auto Bin = ObjectFile::createObjectFile(Path);
  if (!Bin)
    return makeError("{0}: {1}", Path, toString(Bin.takeError()));
  const ObjectFile &Obj = *Bin->getBinary();
  PseudoProbes R;
  if (!Obj.isELF())
    return R;
  std::vector<SectionData> Desc, Prob;
  for (const SectionRef &Sec : Obj.sections()) {
    Expected<StringRef> Name = Sec.getName();
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    if (*Name != ".pseudo_probe_desc" && *Name != ".pseudo_probe")
      continue;
    Expected<StringRef> Bytes = Sec.getContents();
    if (!Bytes)
      return makeError("{0}: section {1}: {2}", Path, *Name,
                       toString(Bytes.takeError()));
    SectionData D;
    D.Bytes = arrayRefFromStringRef(*Bytes);
    D.FileOffset = ELFSectionRef(Sec).getOffset();
    D.Name = *Name;
    (*Name == ".pseudo_probe" ? Prob : Desc).push_back(D);
  }
  // As llvm-profgen: probes are used only when both sections are there.
  if (Desc.empty() || Prob.empty())
    return R;
  R.HasSections = true;

  MCPseudoProbeDecoder Dec;
  for (const SectionData &S : Desc) {
    if (Error E = checkDescSection(Path, S))
      return std::move(E);
    if (!Dec.buildGUID2FuncDescMap(S.Bytes.data(), S.Bytes.size()))
      return sectionError(Path, S, 0, "cannot be decoded");
  }
  // Split-function (sentinel) probes name their fragment by the GUID of
  // its symbol name; the decoder turns that into the fragment's address.
  MCPseudoProbeDecoder::Uint64Map Starts;
  for (const FunctionSym &F : Functions) {
    Starts[MD5Hash(F.Name)] = F.Start;
    for (StringRef A : F.Aliases)
      Starts[MD5Hash(A)] = F.Start;
  }
  // Only the records of functions that ran are decoded: the decoder's
  // tables cost ~120 bytes a probe, for every probe of the binary
  // (bench/pgo's re2: 141k probes, 17 of the 35 MB of its probe profile's
  // run). Its filter is by GUID; an empty one means "all".
  bool AddrBased = false;
  ProbeDecoder PD;
  for (const SectionData &S : Prob) {
    MCPseudoProbeDecoder::Uint64Set Keep;
    bool All = !Wanted, WasAddrBased = AddrBased;
    if (Error E =
            checkProbeSection(Path, S, Wanted, Starts, Keep, AddrBased, All))
      return std::move(E);
    // Nothing wanted: the section is skipped, unless the decoder would
    // have learnt the encoding from it (then it is decoded whole).
    if (All)
      Keep.clear();
    else if (Keep.empty() && WasAddrBased == AddrBased)
      continue;
    if (!PD.decode(S.Bytes, Keep, Starts))
      return sectionError(Path, S, 0, "cannot be decoded");
  }

  for (const auto &[Guid, D] : Dec.getGUID2FuncDescMap())
    R.Descs.push_back({D.FuncGUID, D.FuncHash, D.FuncName});
  std::sort(R.Descs.begin(), R.Descs.end(),
            [](const ProbeFunctionDesc &A, const ProbeFunctionDesc &B) {
              return A.Guid < B.Guid;
            });
  for (size_t K = 0; K < R.Descs.size(); ++K)
    R.DescIndex[R.Descs[K].Guid] = K;

  // Inline contexts, one per inline tree node met, in the decoder's
  // address order (the probes of one address in decoding order), outermost
  // caller first; a top-level record's node is context 0.
  std::sort(PD.Probes.begin(), PD.Probes.end(),
            [](const ProbeDecoder::Decoded &A, const ProbeDecoder::Decoded &B) {
              return std::tie(A.Addr, A.Seq) < std::tie(B.Addr, B.Seq);
            });
  R.Contexts.emplace_back();
  std::vector<uint32_t> ContextOf(PD.Nodes.size(), ~0u);
  auto contextOf = [&](uint32_t N) {
    if (ContextOf[N] != ~0u)
      return ContextOf[N];
    std::vector<InlineFrame> Frames;
    for (uint32_t K = N; PD.Nodes[K].Parent != ProbeDecoder::Root;
         K = PD.Nodes[K].Parent)
      Frames.push_back({PD.Nodes[PD.Nodes[K].Parent].Guid, PD.Nodes[K].Site});
    if (Frames.empty())
      return ContextOf[N] = 0;
    std::reverse(Frames.begin(), Frames.end());
    R.Contexts.push_back(std::move(Frames));
    return ContextOf[N] = uint32_t(R.Contexts.size() - 1);
  };
  R.Probes.reserve(PD.Probes.size());
  for (const ProbeDecoder::Decoded &P : PD.Probes)
    R.Probes.push_back({P.Addr, P.Guid, P.Index, P.Discriminator, P.Kind,
                        contextOf(P.Node)});
  PD = ProbeDecoder();
  std::sort(R.Probes.begin(), R.Probes.end(),
            [&](const Probe &A, const Probe &B) {
              size_t DA = R.Contexts[A.Context].size();
              size_t DB = R.Contexts[B.Context].size();
              return std::tie(A.Addr, DA, A.Guid, A.Index, A.Context) <
                     std::tie(B.Addr, DB, B.Guid, B.Index, B.Context);
            });
  return R;
}

} // namespace lbr2prof
