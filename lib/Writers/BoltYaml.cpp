//===- BoltYaml.cpp - BOLT's YAML profile writer --------------------------===//
//
// Rebuilds BOLT's view of each profiled function (its blocks, edges and
// hashes; BoltYaml.h says which BOLT 19 functions each step follows),
// places lbr2prof's edge counts on it, and prints the YAML. Output is in
// address order with fixed formatting, so equal inputs give equal files.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Writers/BoltYaml.h"
#include "lbr2prof/Writers/Fdata.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

using namespace llvm;

namespace lbr2prof {

namespace {

/// How BOLT classifies one instruction of the function [Start, End).
struct Role {
  /// A direct branch to an instruction of this function (a CFG edge).
  bool LocalBranch = false;
  /// BOLT's isUnconditionalBranch: a local `jmp` (not a tail call).
  bool UncondJump = false;
  /// A jump out of the function (direct or indirect): a tail call, with
  /// BOLT's opcode for it.
  bool TailJump = false;
  /// A conditional branch out of the function (conditional tail call).
  bool CondTail = false;
  bool Terminator = false;
};

class Roles {
public:
  Roles(ArrayRef<HashedInst> Insts, uint64_t Start, uint64_t End,
        const std::vector<uint64_t> *IndirectTails = nullptr)
      : Insts(Insts), Start(Start), End(End), IndirectTails(IndirectTails) {}

  /// Index of the instruction at A, or -1.
  int at(uint64_t A) const {
    auto It = std::lower_bound(
        Insts.begin(), Insts.end(), A,
        [](const HashedInst &I, uint64_t V) { return I.Addr < V; });
    return It != Insts.end() && It->Addr == A ? int(It - Insts.begin()) : -1;
  }

  Role of(const HashedInst &I) const {
    Role R;
    bool Inside = I.Target >= Start && I.Target < End;
    bool Direct =
        I.Kind == InstKind::CondBranch || I.Kind == InstKind::UncondBranch;
    R.LocalBranch = Direct && I.Target && Inside && at(I.Target) >= 0;
    R.UncondJump = R.LocalBranch && I.Kind == InstKind::UncondBranch;
    R.TailJump = (I.Kind == InstKind::UncondBranch && I.Target && !Inside) ||
                 (I.Kind == InstKind::IndirectBranch && IndirectTails &&
                  std::binary_search(IndirectTails->begin(),
                                     IndirectTails->end(), I.Addr));
    R.CondTail = I.Kind == InstKind::CondBranch && I.Target && !Inside;
    R.Terminator = isTerminator(I.Kind);
    return R;
  }

  ArrayRef<HashedInst> Insts;
  uint64_t Start, End;
  const std::vector<uint64_t> *IndirectTails;
};

/// BOLT's hashBlock: opcode names (and, for the instruction hash, operand
/// hashes) of every instruction but local jumps.
std::string hashBlock(const Roles &R, const BoltBlock &B, bool Operands) {
  std::string S;
  for (unsigned K = B.First; K < B.First + B.Count; ++K) {
    const HashedInst &I = R.Insts[K];
    Role Ro = R.of(I);
    if (Ro.UncondJump)
      continue;
    S += Ro.TailJump ? I.TailOpcode : I.Opcode;
    if (Operands)
      S += I.Operands;
  }
  return S;
}

/// BOLT's hashBlockLoose: the sorted set of mnemonics, nops and local
/// jumps left out, every conditional branch as "JMP".
std::string hashBlockLoose(const Roles &R, const BoltBlock &B) {
  std::set<std::string> Names;
  for (unsigned K = B.First; K < B.First + B.Count; ++K) {
    const HashedInst &I = R.Insts[K];
    Role Ro = R.of(I);
    if (I.Nop || Ro.UncondJump)
      continue;
    if (I.Kind == InstKind::CondBranch)
      Names.insert("JMP");
    else
      Names.insert(Ro.TailJump ? I.TailMnemonic : I.Mnemonic);
  }
  std::string S;
  for (const std::string &N : Names)
    S += N;
  return S;
}

uint64_t xxh3(StringRef S) {
  return xxh3_64bits(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(S.data()), S.size()));
}

} // namespace

BoltCfg buildBoltCfg(ArrayRef<HashedInst> Insts, uint64_t Start, uint64_t End) {
  BoltCfg G;
  if (Insts.empty())
    return G;
  Roles R(Insts, Start, End);
  std::vector<Role> Role(Insts.size());
  std::set<uint64_t> Labels = {Insts.front().Addr};
  for (size_t K = 0; K < Insts.size(); ++K) {
    Role[K] = R.of(Insts[K]);
    if (Role[K].LocalBranch)
      Labels.insert(Insts[K].Target);
  }
  // Blocks (BinaryFunction::buildCFG): a label starts one; so does the
  // instruction after a terminator, unless it is a local jmp after a
  // conditional branch (or another terminator that is neither a jump, an
  // indirect branch, a return nor a conditional tail call).
  std::vector<unsigned> BlockOf(Insts.size());
  bool Ended = true;
  for (size_t K = 0; K < Insts.size(); ++K) {
    bool New = Labels.count(Insts[K].Addr) != 0;
    if (!New && Ended) {
      const HashedInst &P = Insts[K - 1];
      const struct Role &PR = Role[K - 1];
      bool Joins = Role[K].UncondJump && P.Kind != InstKind::IndirectBranch &&
                   !PR.UncondJump && !PR.CondTail && P.Kind != InstKind::Return;
      New = !Joins;
    }
    if (New) {
      BoltBlock B;
      B.Start = Insts[K].Addr;
      B.First = unsigned(K);
      G.Blocks.push_back(B);
    }
    BoltBlock &B = G.Blocks.back();
    ++B.Count;
    B.End = Insts[K].Addr + Insts[K].Size;
    BlockOf[K] = unsigned(G.Blocks.size() - 1);
    Ended = Role[K].Terminator;
  }
  // An indirect jump is a tail call to BOLT (postProcessIndirectBranches)
  // in a one-block function or in a block with a pop or leave (an
  // epilogue); otherwise it stays a jump of unknown control flow (or a
  // jump table, which lbr2prof does not analyse).
  for (const BoltBlock &B : G.Blocks) {
    const HashedInst &Last = Insts[B.First + B.Count - 1];
    if (Last.Kind != InstKind::IndirectBranch)
      continue;
    bool Epilogue = G.Blocks.size() == 1;
    for (unsigned K = B.First; K < B.First + B.Count; ++K)
      Epilogue |= StringRef(Insts[K].Mnemonic).starts_with("pop") ||
                  StringRef(Insts[K].Mnemonic).starts_with("leave");
    if (Epilogue)
      G.IndirectTails.push_back(Last.Addr);
  }
  R.IndirectTails = &G.IndirectTails;
  for (size_t K = 0; K < Insts.size(); ++K)
    Role[K] = R.of(Insts[K]);
  auto blockAt = [&](uint64_t A) { return BlockOf[R.at(A)]; };
  auto addEdge = [&](unsigned From, unsigned To, uint64_t Branch) {
    G.Blocks[From].Succs.push_back(To);
    G.Blocks[From].SuccBranch.push_back(Branch);
    G.Blocks[To].Preds.push_back(From);
  };
  // Taken edges in instruction order, then fall-throughs in block order.
  for (size_t K = 0; K < Insts.size(); ++K)
    if (Role[K].LocalBranch)
      addEdge(BlockOf[K], blockAt(Insts[K].Target), Insts[K].Addr);
  for (unsigned B = 0; B + 1 < G.Blocks.size(); ++B) {
    const BoltBlock &BB = G.Blocks[B];
    unsigned Last = BB.First + BB.Count - 1;
    const struct Role &LR = Role[Last];
    bool FallsThrough =
        BB.Succs.empty()
            ? !LR.Terminator || LR.CondTail
            : BB.Succs.size() == 1 && Insts[Last].Kind == InstKind::CondBranch;
    if (FallsThrough)
      addEdge(B, B + 1, 0);
  }

  // Hashes: the function's over its blocks in layout order; each block's
  // blended from its offset, its loose and full hashes, and its
  // neighbours' loose hashes.
  std::string FuncStr;
  std::vector<uint64_t> Loose(G.Blocks.size());
  for (size_t B = 0; B < G.Blocks.size(); ++B) {
    FuncStr += hashBlock(R, G.Blocks[B], /*Operands=*/false);
    Loose[B] = xxh3(hashBlockLoose(R, G.Blocks[B]));
  }
  G.Hash = xxh3(FuncStr);
  for (size_t B = 0; B < G.Blocks.size(); ++B) {
    BoltBlock &BB = G.Blocks[B];
    uint64_t Succ = 0, Pred = 0;
    for (unsigned S : BB.Succs)
      Succ = hashing::detail::hash_16_bytes(Succ, Loose[S]);
    for (unsigned P : BB.Preds)
      Pred = hashing::detail::hash_16_bytes(Pred, Loose[P]);
    uint64_t Instr = xxh3(hashBlock(R, BB, /*Operands=*/true));
    BB.Hash = uint64_t(uint16_t(BB.Start - Start)) |
              uint64_t(uint16_t(Loose[B])) << 16 |
              uint64_t(uint16_t(Instr)) << 32 | uint64_t(uint8_t(Pred)) << 48 |
              uint64_t(uint8_t(Succ)) << 56;
  }
  return G;
}

namespace {

std::string quoted(StringRef S) {
  std::string Q = "'";
  for (char C : S) {
    if (C == '\'')
      Q += '\'';
    Q += C;
  }
  return Q + "'";
}

std::string hex(uint64_t V) { return "0x" + utohexstr(V); }

struct CallSite {
  uint64_t Off = 0, Fid = 0, Count = 0, Mispred = 0;
  std::string Name;
};

} // namespace

size_t writeBoltYaml(const BinaryProfile &P, const BinaryImage &Image,
                     const BoltYamlHeader &H, raw_ostream &OS) {
  size_t Written = 0;
  OS << "---\nheader:\n"
     << "  profile-version: 1\n"
     << "  binary-name:     " << quoted(H.BinaryName) << '\n'
     << "  binary-build-id: "
     << quoted(H.BuildId.empty() ? "<unknown>" : H.BuildId) << '\n'
     << "  profile-flags:   [ lbr ]\n"
     << "  profile-origin:  lbr2prof\n"
     << "  profile-events:  " << quoted(H.Events) << '\n'
     << "  dfs-order:       false\n"
     << "  hash-func:       xxh3\n"
     << "functions:\n";
  ArrayRef<FunctionSym> Funcs = Image.functions();
  // fid: the function's index + 1 (0 is BOLT's "unknown function").
  auto fidOf = [&](uint64_t A, std::string &Name) -> uint64_t {
    int F = A == ExternalAddr ? -1 : Image.functionAt(A);
    if (F < 0)
      return 0;
    Name = boltName(Image, Funcs[F]);
    return uint64_t(F) + 1;
  };
  for (const auto &[F, Cfg] : P.Functions) {
    const FunctionSym &FS = Funcs[F];
    if (FS.Plt)
      continue;
    std::vector<HashedInst> Insts = Image.hashedInstructions(F);
    if (Insts.empty())
      continue;
    BoltCfg G = buildBoltCfg(Insts, FS.Start, FS.End);
    // Taken branches by (source, target), all targets by source.
    std::map<std::pair<uint64_t, uint64_t>, const Edge *> Taken;
    std::multimap<uint64_t, const Edge *> From;
    for (const Edge &E : Cfg.Taken) {
      Taken[{E.From, E.To}] = &E;
      From.insert({E.From, &E});
    }
    auto blockOf = [&](uint64_t A) {
      auto It = std::upper_bound(
          G.Blocks.begin(), G.Blocks.end(), A,
          [](uint64_t V, const BoltBlock &B) { return V < B.Start; });
      return It == G.Blocks.begin() ? -1 : int(It - G.Blocks.begin()) - 1;
    };
    // Fall-throughs of lbr2prof's blocks that cross one of BOLT's block
    // boundaries (lbr2prof's leaders include BOLT's).
    std::vector<uint64_t> FallCount(G.Blocks.size());
    for (const Edge &E : Cfg.FallThrough) {
      int B = blockOf(E.From);
      if (B >= 0 && size_t(B) + 1 < G.Blocks.size() &&
          G.Blocks[B].End == E.To && G.Blocks[B + 1].Start == E.To)
        FallCount[B] += E.Count;
    }
    // Edge counts in BOLT's successor order; block counts from them.
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> SuccCounts(
        G.Blocks.size());
    std::vector<uint64_t> Exec(G.Blocks.size()), InCount(G.Blocks.size());
    uint64_t Any = Cfg.EntryCount;
    for (size_t B = 0; B < G.Blocks.size(); ++B) {
      const BoltBlock &BB = G.Blocks[B];
      for (size_t K = 0; K < BB.Succs.size(); ++K) {
        std::pair<uint64_t, uint64_t> C{0, 0};
        if (BB.SuccBranch[K]) {
          auto It = Taken.find({BB.SuccBranch[K], G.Blocks[BB.Succs[K]].Start});
          if (It != Taken.end())
            C = {It->second->Count, It->second->Mispred};
        } else {
          C = {FallCount[B], 0};
        }
        SuccCounts[B].push_back(C);
        InCount[BB.Succs[K]] += C.first;
        Any += C.first;
      }
    }
    // Calls and tail calls, by block.
    std::vector<std::vector<CallSite>> Calls(G.Blocks.size());
    Roles R(Insts, FS.Start, FS.End, &G.IndirectTails);
    for (size_t B = 0; B < G.Blocks.size(); ++B) {
      const BoltBlock &BB = G.Blocks[B];
      for (unsigned K = BB.First; K < BB.First + BB.Count; ++K) {
        const HashedInst &I = Insts[K];
        Role Ro = R.of(I);
        bool Call =
            I.Kind == InstKind::Call || I.Kind == InstKind::IndirectCall;
        if (!Call && !Ro.TailJump && !Ro.CondTail)
          continue;
        std::vector<CallSite> Here;
        auto [Lo, Hi] = From.equal_range(I.Addr);
        for (auto It = Lo; It != Hi; ++It) {
          const Edge &E = *It->second;
          CallSite C;
          C.Off = I.Addr - BB.Start;
          C.Fid = fidOf(E.To, C.Name);
          C.Count = E.Count;
          // Direct calls carry no mispredictions in BOLT's profile.
          C.Mispred = I.Kind == InstKind::Call ? 0 : E.Mispred;
          if (C.Count)
            Here.push_back(C);
        }
        llvm::sort(Here, [](const CallSite &A, const CallSite &B) {
          return std::tie(A.Name, A.Fid) < std::tie(B.Name, B.Fid);
        });
        for (CallSite &C : Here) {
          Any += C.Count;
          Calls[B].push_back(std::move(C));
        }
      }
    }
    if (!Any)
      continue;
    ++Written;
    // BOLT keeps the entry block's count and sums the edges into the
    // others (BinaryFunction::postProcessProfile); so does this.
    for (size_t B = 0; B < G.Blocks.size(); ++B)
      Exec[B] = B == 0 ? Cfg.EntryCount : InCount[B];

    OS << "  - name:            " << quoted(boltName(Image, FS)) << '\n'
       << "    fid:             " << F + 1 << '\n'
       << "    hash:            " << hex(G.Hash) << '\n'
       << "    exec:            " << Cfg.EntryCount << '\n'
       << "    nblocks:         " << G.Blocks.size() << '\n'
       << "    blocks:\n";
    for (size_t B = 0; B < G.Blocks.size(); ++B) {
      const BoltBlock &BB = G.Blocks[B];
      bool Counted = B == 0 || !Calls[B].empty() || InCount[B];
      for (auto &C : SuccCounts[B])
        Counted |= C.first != 0;
      if (!Counted)
        continue;
      unsigned NumInsts = BB.Count;
      OS << "      - bid:             " << B << '\n'
         << "        insns:           " << NumInsts << '\n'
         << "        hash:            " << hex(BB.Hash) << '\n';
      if (Exec[B])
        OS << "        exec:            " << Exec[B] << '\n';
      if (!Calls[B].empty()) {
        OS << "        calls:           [ ";
        for (size_t K = 0; K < Calls[B].size(); ++K) {
          const CallSite &C = Calls[B][K];
          OS << (K ? ", " : "") << "{ off: " << hex(C.Off) << ", fid: " << C.Fid
             << ", cnt: " << C.Count;
          if (C.Mispred)
            OS << ", mis: " << C.Mispred;
          OS << " }";
        }
        OS << " ]\n";
      }
      if (!BB.Succs.empty()) {
        OS << "        succ:            [ ";
        for (size_t K = 0; K < BB.Succs.size(); ++K) {
          OS << (K ? ", " : "") << "{ bid: " << BB.Succs[K]
             << ", cnt: " << SuccCounts[B][K].first;
          if (SuccCounts[B][K].second)
            OS << ", mis: " << SuccCounts[B][K].second;
          OS << " }";
        }
        OS << " ]\n";
      }
    }
  }
  OS << "...\n";
  return Written;
}

} // namespace lbr2prof
