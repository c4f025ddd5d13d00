//===- Disassemble.cpp - instruction boundaries and branch kinds ----------===//
//
// Decodes a function's bytes with the MC disassembler of its architecture
// and classifies each instruction by how it transfers control
// (MCInstrAnalysis): conditional/unconditional/indirect branch, direct or
// indirect call, return, trap. Undecodable bytes (data in code, padding)
// become 1-byte Other instructions so decoding resynchronises.
// hashedInstructions() decodes again, keeping what BOLT's profile hashes
// read: opcode names, mnemonics and operands.
//
//===----------------------------------------------------------------------===//
#include "BinaryImpl.h"
#include "X86Common.h"
#include "lbr2prof/Binary/McTarget.h"
#include "lbr2prof/Support/HugePages.h"
#include "lbr2prof/Support/Parallel.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/TargetParser/Triple.h"
#include <cctype>
#include <memory>
#include <thread>
#include <type_traits>

using namespace llvm;

extern "C" {
void LLVMInitializeX86TargetInfo();
void LLVMInitializeX86TargetMC();
void LLVMInitializeX86Disassembler();
void LLVMInitializeAArch64TargetInfo();
void LLVMInitializeAArch64TargetMC();
void LLVMInitializeAArch64Disassembler();
}

namespace lbr2prof {

namespace {

/// MC objects for one thread.
struct Decoder {
  std::unique_ptr<McTarget> M;
  std::unique_ptr<MCInstrAnalysis> MIA;
  /// For hashedInstructions() only, made on first use: the AT&T printer
  /// (BOLT's default variant) and opcodes by name.
  std::unique_ptr<MCInstPrinter> Printer;
  StringMap<unsigned> OpcodeByName;
  bool Ok = false;

  explicit Decoder(StringRef Arch) {
    Expected<std::unique_ptr<McTarget>> Made =
        McTarget::create(Triple(Arch == "aarch64" ? "aarch64-unknown-linux-gnu"
                                                  : "x86_64-unknown-linux-gnu"));
    if (!Made) {
      consumeError(Made.takeError());
      return;
    }
    M = std::move(*Made);
    MIA = M->makeAnalysis();
    Ok = bool(MIA);
  }

  bool preparePrinter() {
    if (Printer)
      return true;
    Printer = M->makePrinter();
    for (unsigned O = 0, N = M->MII->getNumOpcodes(); O < N; ++O)
      OpcodeByName[M->MII->getName(O)] = O;
    return bool(Printer);
  }

  std::string mnemonic(const MCInst &MI) const {
    std::string M = Printer->getMnemonic(&MI).first;
    llvm::erase_if(M, [](unsigned char C) { return std::isspace(C); });
    return M;
  }

  /// The instruction at the start of Bytes (at Addr), as MC decodes and
  /// classifies it; undecodable bytes are a 1-byte Other (false).
  bool decode(ArrayRef<uint8_t> Bytes, uint64_t Addr, Inst &I) const {
    MCInst MI;
    uint64_t Size = 0;
    I = Inst();
    I.Addr = Addr;
    if (M->Dis->getInstruction(MI, Size, Bytes, Addr, nulls()) ==
            MCDisassembler::Success &&
        Size) {
      I.Size = uint8_t(Size);
      I.Kind = classify(MI);
      uint64_t T;
      if ((I.Kind == InstKind::CondBranch || I.Kind == InstKind::UncondBranch ||
           I.Kind == InstKind::Call) &&
          MIA->evaluateBranch(MI, Addr, Size, T))
        I.setTarget(T);
      else if (I.Kind == InstKind::Call)
        I.Kind = InstKind::IndirectCall;
      return true;
    }
    I.Size = uint8_t(Size ? Size : 1);
    I.Kind = InstKind::Other;
    return false;
  }

  InstKind classify(const MCInst &MI) const {
    const MCInstrDesc &D = M->MII->get(MI.getOpcode());
    if (MIA->isReturn(MI))
      return InstKind::Return;
    if (MIA->isCall(MI))
      return MIA->isIndirectBranch(MI) || !D.getNumOperands() ||
                     !MI.getOperand(0).isImm()
                 ? InstKind::IndirectCall
                 : InstKind::Call;
    if (MIA->isConditionalBranch(MI))
      return InstKind::CondBranch;
    if (MIA->isIndirectBranch(MI))
      return InstKind::IndirectBranch;
    if (MIA->isUnconditionalBranch(MI))
      return InstKind::UncondBranch;
    if (D.isTrap())
      return InstKind::Trap;
    return InstKind::Other;
  }
};

Decoder &threadDecoder(StringRef Arch) {
  thread_local std::unique_ptr<Decoder> D;
  thread_local std::string DArch;
  if (!D || DArch != Arch) {
    D = std::make_unique<Decoder>(Arch);
    DArch = Arch.str();
  }
  return *D;
}

} // namespace

void BinaryImage::Impl::decode(const FunctionSym &F,
                               std::vector<Inst> &Out) const {
  Out.clear();
  const CodeSection *Sec = nullptr;
  for (const CodeSection &C : Code)
    if (F.Start >= C.Addr && F.Start < C.Addr + C.Bytes.size())
      Sec = &C;
  if (!Sec)
    return;
  Decoder &D = threadDecoder(Arch);
  if (!D.Ok)
    return;
  uint64_t End = std::min<uint64_t>(F.End, Sec->Addr + Sec->Bytes.size());
  // A corrupt symbol size can wrap F.End below F.Start.
  if (End <= F.Start)
    return;
  // bench/scale's 20 MB broad fdata: 1.2M instructions, 0.2 s of CPU
  // through MC alone (X86Common.h).
  bool X86 = Arch == "x86_64";
  for (uint64_t A = F.Start; A < End;) {
    ArrayRef<uint8_t> Bytes = Sec->Bytes.slice(A - Sec->Addr, End - A);
    Inst I;
    if (!X86 || !decodeCommonX86(Bytes, A, I))
      (void)D.decode(Bytes, A, I);
    Out.push_back(I);
    A += I.Size;
  }
}

bool decodeWithMc(StringRef Arch, ArrayRef<uint8_t> Bytes, uint64_t Addr,
                  Inst &I) {
  Decoder &D = threadDecoder(Arch);
  return D.Ok && D.decode(Bytes, Addr, I);
}

namespace {
/// BOLT's hashInteger: the value's bytes from the lowest, "\\0" for 0.
void appendInteger(std::string &S, uint64_t V) {
  if (V == 0)
    S.push_back(0);
  for (; V; V >>= 8)
    S.push_back(char(V & 0xff));
}

/// The name BOLT gives opcode Name once it made the jump a tail call
/// (X86MCPlusBuilder::convertJmpToTailCall): one size per kind.
StringRef tailCallOpcode(StringRef Name) {
  if (Name == "JMP_1" || Name == "JMP_2" || Name == "JMP_4")
    return "JMP_4";
  if (Name == "JMP16m" || Name == "JMP32m" || Name == "JMP64m")
    return "JMP32m";
  if (Name == "JMP16r" || Name == "JMP32r" || Name == "JMP64r")
    return "JMP32r";
  return Name;
}
} // namespace

std::vector<HashedInst>
BinaryImage::hashedInstructions(unsigned FuncIndex) const {
  std::vector<HashedInst> Out;
  if (I->Arch != "x86_64" || FuncIndex >= I->Functions.size())
    return Out;
  Decoder &D = threadDecoder(I->Arch);
  if (!D.Ok || !D.preparePrinter())
    return Out;
  const FunctionSym &F = I->Functions[FuncIndex];
  const std::vector<Inst> Insts = instructions(FuncIndex).vec();
  const CodeSection *Sec = nullptr;
  for (const CodeSection &C : I->Code)
    if (F.Start >= C.Addr && F.Start < C.Addr + C.Bytes.size())
      Sec = &C;
  if (!Sec)
    return Out;
  uint64_t SecEnd = Sec->Addr + Sec->Bytes.size();
  for (const Inst &In : Insts) {
    HashedInst H;
    H.Addr = In.Addr;
    H.Target = In.target();
    H.Size = In.Size;
    H.Kind = In.Kind;
    MCInst MI;
    uint64_t Size = 0;
    if (In.Addr + In.Size > SecEnd ||
        D.M->Dis->getInstruction(MI, Size,
                              Sec->Bytes.slice(In.Addr - Sec->Addr, In.Size),
                              In.Addr, nulls()) != MCDisassembler::Success ||
        Size != In.Size) {
      // Undecodable bytes: BOLT would not build a CFG here; hash as an
      // opcode 0 (its rule for an unknown opcode).
      H.Opcode = std::string(1, '\0');
      Out.push_back(std::move(H));
      continue;
    }
    StringRef Name = D.M->MII->getName(MI.getOpcode());
    H.Nop = Name.starts_with("NOOP");
    H.Mnemonic = D.mnemonic(MI);
    // BOLT hashes a conditional branch by its short form: the encoding
    // of the displacement is layout's choice, not the program's.
    if (In.Kind == InstKind::CondBranch && (Name == "JCC_2" || Name == "JCC_4"))
      H.Opcode = "JCC_1";
    else
      H.Opcode = Name.str();
    StringRef Tail = tailCallOpcode(Name);
    H.TailOpcode = Tail.str();
    H.TailMnemonic = H.Mnemonic;
    if (Tail != Name) {
      MCInst T = MI;
      T.setOpcode(D.OpcodeByName.lookup(Tail));
      H.TailMnemonic = D.mnemonic(T);
    }
    // Operands as BOLT symbolizes them: a direct target becomes a label
    // or function symbol (hashed empty); a RIP-relative displacement the
    // data it reaches (its address; a function's address is hashed empty).
    bool Direct = In.target() && (In.Kind == InstKind::CondBranch ||
                                In.Kind == InstKind::UncondBranch ||
                                In.Kind == InstKind::Call);
    for (unsigned K = 0; K < MI.getNumOperands(); ++K) {
      const MCOperand &Op = MI.getOperand(K);
      if (K == 0 && Direct)
        continue;
      // RIP is only ever the base of a memory operand (base, scale,
      // index, displacement, segment); lea's is typed as no memory.
      if (Op.isReg() && Op.getReg() && K + 4 < MI.getNumOperands() &&
          StringRef(D.M->MRI->getName(Op.getReg())) == "RIP" &&
          MI.getOperand(K + 3).isImm()) {
        appendInteger(H.Operands, Op.getReg());
        appendInteger(H.Operands, uint64_t(MI.getOperand(K + 1).getImm()));
        appendInteger(H.Operands, MI.getOperand(K + 2).getReg());
        uint64_t To = In.Addr + In.Size + MI.getOperand(K + 3).getImm();
        int G = functionAt(To);
        if (G < 0 || I->Functions[G].Start != To)
          appendInteger(H.Operands, To);
        appendInteger(H.Operands, MI.getOperand(K + 4).getReg());
        K += 4;
        continue;
      }
      if (Op.isReg())
        appendInteger(H.Operands, Op.getReg());
      else if (Op.isImm())
        appendInteger(H.Operands, uint64_t(Op.getImm()));
    }
    Out.push_back(std::move(H));
  }
  return Out;
}

ArrayRef<Inst> BinaryImage::Impl::keep(ArrayRef<Inst> Insts) const {
  if (Insts.empty())
    return {};
  // Blocks of 96 KB, each twice its predecessor up to 4 MiB: a few dozen
  // for a large binary's hot code, and a small program's instructions
  // (bench/pgo's jq: ~20k) do not come with a megabyte that nothing uses.
  // The largest are two huge pages (HugePages.h; at 1.5 MB they were
  // none: bench/scale's 20 MB broad fdata 12.6k -> 10.6k faults).
  // Raw storage: a block's pages are touched only as instructions are
  // copied in (zeroing each block first was 1.5 MB written per block).
  constexpr size_t FirstBlock = 1 << 12,
                   LargestBlock = 2 * HugePageBytes / sizeof(Inst);
  static_assert(std::is_trivially_copyable_v<Inst> &&
                    std::is_trivially_destructible_v<Inst>,
                "blocks hold instructions copied into raw storage");
  Inst *At;
  {
    std::lock_guard<std::mutex> Lock(BlocksLock);
    if (Blocks.empty() || BlockFree < Insts.size()) {
      size_t Next = Blocks.empty() ? FirstBlock
                                   : std::min(2 * BlockCap, LargestBlock);
      BlockCap = std::max(Next, Insts.size());
      Blocks.emplace_back(
          static_cast<Inst *>(::operator new(BlockCap * sizeof(Inst))));
      BlockFree = BlockCap;
    }
    At = Blocks.back().get() + (BlockCap - BlockFree);
    BlockFree -= Insts.size();
  }
  // The space is this caller's alone: copied outside the lock.
  std::uninitialized_copy(Insts.begin(), Insts.end(), At);
  return {At, Insts.size()};
}

ArrayRef<Inst> BinaryImage::instructions(unsigned FuncIndex) const {
  Impl::Slot &S = I->slot(FuncIndex);
  if (S.Ready.load(std::memory_order_acquire))
    return S.Insts;
  std::call_once(S.Once, [&] {
    // One scratch array per thread, reused: decoding allocates nothing
    // once it has grown to the largest function.
    thread_local std::vector<Inst> Scratch;
    I->decode(I->Functions[FuncIndex], Scratch);
    S.Insts = I->keep(Scratch);
    S.Ready.store(true, std::memory_order_release);
  });
  return S.Insts;
}

void BinaryImage::decodeFunctions(ArrayRef<unsigned> FuncIndices,
                                  unsigned Threads) const {
  // Chunks of 64 functions, taken by each thread as it frees up.
  parallelChunks(FuncIndices.size(), Threads, 64, [&](size_t B, size_t E) {
    for (size_t K = B; K < E; ++K)
      (void)instructions(FuncIndices[K]);
  });
}

} // namespace lbr2prof
