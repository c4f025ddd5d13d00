//===- X86Common.cpp - x86-64's common encodings without MC ---------------===//
//
// An instruction is: legacy prefixes, an optional REX byte, the opcode (one
// byte, or 0F and one byte), then for most opcodes a ModRM byte, a SIB byte
// when ModRM's r/m field is 100b with a memory operand, a displacement of
// 0, 1 or 4 bytes, and an immediate whose size the opcode (and the 66
// operand-size prefix, REX.W for mov's 64-bit immediate) gives. Only
// opcodes whose form is listed below are decoded here, each with the
// prefixes it takes in compiled code; anything else is left to MC.
//
//===----------------------------------------------------------------------===//
#include "X86Common.h"
#include "llvm/Support/Endian.h"

namespace lbr2prof {
namespace {

/// What follows an opcode.
enum class Form : uint8_t {
  None,      ///< not one of the common encodings: MC decides
  Bare,      ///< nothing
  ModRM,     ///< ModRM (and SIB, displacement)
  ModRMImm8, ///< ModRM, then an 8-bit immediate
  ModRMImmZ, ///< ModRM, then a 16-bit (66 without REX.W) or 32-bit one
  Imm8,      ///< an 8-bit immediate
  Imm16,     ///< a 16-bit immediate
  ImmZ,      ///< a 16-bit (66 without REX.W) or 32-bit immediate
  Rel8,      ///< an 8-bit displacement from the next instruction
  Rel32,     ///< a 32-bit displacement from the next instruction
};

/// The prefixes met, as far as they matter here.
struct Prefixes {
  bool OpSize = false;  ///< 66
  uint8_t Rep = 0;      ///< F2 or F3 (at most one)
  bool Segment = false; ///< 26 2E 36 3E 64 65 (at most one)
  uint8_t Rex = 0;      ///< 40-4F, or 0
  bool any() const { return OpSize || Rep || Segment; }
};

/// The one-byte opcodes decoded here, with Kind set for control transfers
/// (the rest are Other). In the groups whose members differ by ModRM's reg
/// field (80-83, C0-C7, D0-D3, F6-F7, FE-FF, 8F), the caller checks the
/// field once it has read the ModRM byte.
Form oneByteForm(uint8_t Op, const Prefixes &P, InstKind &Kind) {
  Kind = InstKind::Other;
  // Control transfers: never with legacy prefixes (branch hints, bnd,
  // notrack, 16-bit operands) or REX; MC decides those.
  if ((Op >= 0x70 && Op <= 0x7f) || Op == 0xeb || Op == 0xe9 || Op == 0xe8 ||
      Op == 0xc3 || Op == 0xc2) {
    if (P.any() || P.Rex)
      return Form::None;
    switch (Op) {
    case 0xe8:
      Kind = InstKind::Call;
      return Form::Rel32;
    case 0xe9:
      Kind = InstKind::UncondBranch;
      return Form::Rel32;
    case 0xeb:
      Kind = InstKind::UncondBranch;
      return Form::Rel8;
    case 0xc3:
      Kind = InstKind::Return;
      return Form::Bare;
    case 0xc2:
      Kind = InstKind::Return;
      return Form::Imm16;
    default:
      Kind = InstKind::CondBranch;
      return Form::Rel8;
    }
  }
  // String instructions, alone or repeated (rep movs/stos, repe/repne
  // cmps/scas).
  if ((Op >= 0xa4 && Op <= 0xa7) || (Op >= 0xaa && Op <= 0xaf)) {
    if (P.Segment || (P.Rep && P.OpSize))
      return Form::None;
    if (P.Rep == 0xf3 && (Op == 0xac || Op == 0xad))
      return Form::None;
    if (P.Rep == 0xf2 && !(Op == 0xa6 || Op == 0xa7 || Op == 0xae ||
                           Op == 0xaf))
      return Form::None;
    return Form::Bare;
  }
  // pause (F3 90); otherwise F2 and F3 go only with the forms above.
  if (Op == 0x90 && P.Rep == 0xf3 && !P.OpSize && !P.Segment && !P.Rex)
    return Form::Bare;
  if (P.Rep)
    return Form::None;
  // Arithmetic: 00-3F in groups of eight, the first six of each
  // (r/m,r / r,r/m in two sizes, then AL,imm8 and eAX,imm).
  if (Op < 0x40) {
    switch (Op & 7) {
    case 0: case 1: case 2: case 3:
      return Form::ModRM;
    case 4:
      return Form::Imm8;
    case 5:
      return Form::ImmZ;
    default: // segment prefixes and opcodes invalid in 64-bit mode
      return Form::None;
    }
  }
  switch (Op) {
  case 0x50: case 0x51: case 0x52: case 0x53: // push, pop
  case 0x54: case 0x55: case 0x56: case 0x57:
  case 0x58: case 0x59: case 0x5a: case 0x5b:
  case 0x5c: case 0x5d: case 0x5e: case 0x5f:
  case 0x90: case 0x91: case 0x92: case 0x93: // nop, xchg
  case 0x94: case 0x95: case 0x96: case 0x97:
  case 0x98: case 0x99:                       // cwde/cdqe, cdq/cqo
  case 0xc9:                                  // leave
  case 0xf5: case 0xf8: case 0xf9: case 0xfc: // cmc, clc, stc, cld
    return Form::Bare;
  case 0x63:                                  // movsxd
  case 0x84: case 0x85: case 0x86: case 0x87: // test, xchg
  case 0x88: case 0x89: case 0x8a: case 0x8b: // mov
  case 0x8d:                                  // lea (memory only)
  case 0x8f:                                  // pop r/m (/0 only)
  case 0xd0: case 0xd1: case 0xd2: case 0xd3: // shifts by 1, by cl
  case 0xf6: case 0xf7:                       // test/not/neg/mul/div
  case 0xfe: case 0xff:                       // inc, dec, call, jmp, push
    return Form::ModRM;
  case 0x68: // push imm
    return Form::ImmZ;
  case 0x6a: // push imm8
    return Form::Imm8;
  case 0x69: // imul r, r/m, imm
  case 0x81: // arithmetic r/m, imm
  case 0xc7: // mov r/m, imm (/0 only)
    return Form::ModRMImmZ;
  case 0x6b: // imul r, r/m, imm8
  case 0x80: case 0x83: // arithmetic r/m, imm8
  case 0xc0: case 0xc1: // shifts by imm8
  case 0xc6:            // mov r/m8, imm8 (/0 only)
    return Form::ModRMImm8;
  case 0xa8: // test al, imm8
    return Form::Imm8;
  case 0xa9: // test eax, imm
    return Form::ImmZ;
  case 0xb0: case 0xb1: case 0xb2: case 0xb3: // mov r8, imm8
  case 0xb4: case 0xb5: case 0xb6: case 0xb7:
    return Form::Imm8;
  case 0xb8: case 0xb9: case 0xba: case 0xbb: // mov r, imm (imm64: REX.W)
  case 0xbc: case 0xbd: case 0xbe: case 0xbf:
    return Form::ImmZ;
  default:
    return Form::None;
  }
}

/// The two-byte opcodes (0F Op) decoded here. The SSE ones take a
/// mandatory prefix (none, 66, F3, F2) that picks the instruction; each is
/// listed with the prefixes for which it exists.
Form twoByteForm(uint8_t Op, const Prefixes &P, InstKind &Kind) {
  Kind = InstKind::Other;
  if (Op >= 0x80 && Op <= 0x8f) { // jcc rel32
    if (P.any() || P.Rex)
      return Form::None;
    Kind = InstKind::CondBranch;
    return Form::Rel32;
  }
  if (Op == 0x0b) { // ud2
    if (P.any() || P.Rex)
      return Form::None;
    Kind = InstKind::Trap;
    return Form::Bare;
  }
  if (P.OpSize && P.Rep)
    return Form::None;
  // Which mandatory prefix: 0 none, 1 66, 2 F3, 3 F2.
  unsigned M = P.Rep == 0xf3 ? 2 : P.Rep == 0xf2 ? 3 : P.OpSize ? 1 : 0;
  auto onlyWith = [&](unsigned Mask, Form F) {
    return (Mask >> M) & 1 ? F : Form::None;
  };
  constexpr unsigned None = 1, O66 = 2, F3 = 4, All = 15;
  // SSE and MMX: REX.W only where it makes a general register operand 64
  // bits (cvtsi2ss, cvt(t)ss2si, movd/movq); MC rejects it elsewhere.
  bool Sse = Op < 0x40 || (Op >= 0x50 && Op < 0x80) || Op == 0xc6 ||
             Op >= 0xd0;
  if (Sse && (P.Rex & 8) && Op != 0x2a && Op != 0x2c && Op != 0x2d &&
      Op != 0x6e && Op != 0x7e)
    return Form::None;
  switch (Op) {
  case 0x1f: // nop r/m (/0 only)
    return onlyWith(None | O66, Form::ModRM);
  case 0x1e: // endbr64 (F3 0F 1E FA), checked by the caller
    return onlyWith(F3, Form::ModRM);
  case 0x10: case 0x11: // movups, movupd, movss, movsd
  case 0x2a:            // cvtpi2ps, cvtpi2pd, cvtsi2ss, cvtsi2sd
  case 0x2c: case 0x2d: // cvtt/cvt ps2pi, pd2pi, ss2si, sd2si
  case 0x51: case 0x58: case 0x59: case 0x5a: // sqrt, add, mul, cvt
  case 0x5c: case 0x5d: case 0x5e: case 0x5f: // sub, min, div, max
    return Form::ModRM;
  case 0x28: case 0x29: // movaps, movapd
  case 0x2e: case 0x2f: // ucomis, comis
  case 0x54: case 0x55: case 0x56: case 0x57: // and, andn, or, xor
  case 0x14: case 0x15: // unpcklps/pd, unpckhps/pd
  case 0x6e:            // movd/movq to mm/xmm
  case 0x60: case 0x61: case 0x62: case 0x63: // punpck, packsswb
  case 0x64: case 0x65: case 0x66: case 0x67: // pcmpgt, packuswb
  case 0x68: case 0x69: case 0x6a: case 0x6b: // punpckh, packssdw
  case 0x74: case 0x75: case 0x76:            // pcmpeq
  case 0xd1: case 0xd2: case 0xd3: case 0xd4: case 0xd5: // psrl, paddq, pmullw
  case 0xd8: case 0xd9: case 0xda: case 0xdb: // psubus, pminub, pand
  case 0xdc: case 0xdd: case 0xde: case 0xdf: // paddus, pmaxub, pandn
  case 0xe0: case 0xe1: case 0xe2: case 0xe3: // pavg, psra
  case 0xe4: case 0xe5:                       // pmulhuw, pmulhw
  case 0xe8: case 0xe9: case 0xea: case 0xeb: // psubs, pminsw, por
  case 0xec: case 0xed: case 0xee: case 0xef: // padds, pmaxsw, pxor
  case 0xf1: case 0xf2: case 0xf3: case 0xf4: // psll, pmuludq
  case 0xf5: case 0xf6:                       // pmaddwd, psadbw
  case 0xf8: case 0xf9: case 0xfa: case 0xfb: // psub
  case 0xfc: case 0xfd: case 0xfe:            // padd
    return onlyWith(None | O66, Form::ModRM);
  case 0x5b: // cvtdq2ps, cvtps2dq, cvttps2dq
  case 0x6f: case 0x7f: // movq mm, movdqa, movdqu
  case 0x7e: // movd/movq from mm/xmm, movq xmm (F3)
    return onlyWith(None | O66 | F3, Form::ModRM);
  case 0xd6: // movq xmm/m64, xmm
    return onlyWith(O66, Form::ModRM);
  case 0x70: // pshufw, pshufd, pshufhw, pshuflw
    return onlyWith(All, Form::ModRMImm8);
  case 0xc6: // shufps, shufpd
    return onlyWith(None | O66, Form::ModRMImm8);
  case 0x40: case 0x41: case 0x42: case 0x43: // cmovcc
  case 0x44: case 0x45: case 0x46: case 0x47:
  case 0x48: case 0x49: case 0x4a: case 0x4b:
  case 0x4c: case 0x4d: case 0x4e: case 0x4f:
  case 0x90: case 0x91: case 0x92: case 0x93: // setcc (/0 only)
  case 0x94: case 0x95: case 0x96: case 0x97:
  case 0x98: case 0x99: case 0x9a: case 0x9b:
  case 0x9c: case 0x9d: case 0x9e: case 0x9f:
  case 0xa3: case 0xab: case 0xb3: case 0xbb: // bt, bts, btr, btc
  case 0xa5: case 0xad: // shld, shrd by cl
  case 0xaf:            // imul r, r/m
  case 0xb6: case 0xb7: case 0xbe: case 0xbf: // movzx, movsx
  case 0xc0: case 0xc1: // xadd
    return onlyWith(None | O66, Form::ModRM);
  case 0xa4: case 0xac: // shld, shrd by imm8
    return onlyWith(None | O66, Form::ModRMImm8);
  case 0xb8: // popcnt
    return onlyWith(F3, Form::ModRM);
  case 0xbc: case 0xbd: // bsf, bsr; tzcnt, lzcnt
    return onlyWith(None | O66 | F3, Form::ModRM);
  case 0xc8: case 0xc9: case 0xca: case 0xcb: // bswap
  case 0xcc: case 0xcd: case 0xce: case 0xcf:
    return onlyWith(None, Form::Bare);
  default:
    return Form::None;
  }
}

/// The size of an immediate of the operand size: 16 bits with 66, unless
/// REX.W makes the operand 64 bits (whose immediates are 32).
unsigned immZ(const Prefixes &P) { return P.OpSize && !(P.Rex & 8) ? 2 : 4; }

int64_t readSigned(const uint8_t *P, unsigned Bytes) {
  return Bytes == 1 ? int8_t(P[0])
                    : int32_t(llvm::support::endian::read32le(P));
}

} // namespace

bool decodeCommonX86(llvm::ArrayRef<uint8_t> Bytes, uint64_t Addr, Inst &I) {
  // The longest instruction is 15 bytes; MC rejects anything longer.
  const size_t N = Bytes.size() < 15 ? Bytes.size() : 15;
  const uint8_t *B = Bytes.data();
  size_t K = 0;
  Prefixes P;
  for (; K < N; ++K) {
    uint8_t C = B[K];
    if (C == 0x66) {
      P.OpSize = true;
    } else if (C == 0xf2 || C == 0xf3) {
      if (P.Rep)
        return false;
      P.Rep = C;
    } else if (C == 0x26 || C == 0x2e || C == 0x36 || C == 0x3e ||
               C == 0x64 || C == 0x65) {
      if (P.Segment)
        return false;
      P.Segment = true;
    } else if (C == 0xf0 || C == 0x67) { // lock, address size
      return false;
    } else {
      break;
    }
  }
  if (K < N && (B[K] & 0xf0) == 0x40)
    P.Rex = B[K++];
  if (K >= N)
    return false;
  uint8_t Op = B[K++];
  bool TwoByte = Op == 0x0f;
  InstKind Kind;
  Form F;
  if (TwoByte) {
    if (K >= N)
      return false;
    Op = B[K++];
    F = twoByteForm(Op, P, Kind);
  } else {
    F = oneByteForm(Op, P, Kind);
  }
  if (F == Form::None)
    return false;

  bool HasModRM =
      F == Form::ModRM || F == Form::ModRMImm8 || F == Form::ModRMImmZ;
  // A segment prefix only goes with a memory operand here.
  if (P.Segment && !HasModRM)
    return false;
  unsigned Imm = 0;
  if (HasModRM) {
    if (K >= N)
      return false;
    uint8_t ModRM = B[K++];
    unsigned Mod = ModRM >> 6, Reg = (ModRM >> 3) & 7, Rm = ModRM & 7;
    if (P.Segment && Mod == 3)
      return false;
    if (!TwoByte) {
      switch (Op) {
      case 0x8d: // lea: a memory operand
        if (Mod == 3)
          return false;
        break;
      case 0x8f: case 0xc6: case 0xc7: // /0 only (others: XOP, xabort, xbegin)
        if (Reg != 0)
          return false;
        break;
      case 0xc0: case 0xc1: case 0xd0: case 0xd1: case 0xd2: case 0xd3:
        if (Reg == 6) // an alias of shl MC may or may not take
          return false;
        break;
      case 0xf6: case 0xf7:
        if (Reg == 1) // an alias of test
          return false;
        if (Reg == 0) // test r/m, imm
          Imm = Op == 0xf6 ? 1 : immZ(P);
        break;
      case 0xfe:
        if (Reg > 1)
          return false;
        break;
      case 0xff:
        if (Reg == 2)
          Kind = InstKind::IndirectCall;
        else if (Reg == 4)
          Kind = InstKind::IndirectBranch;
        else if (Reg != 0 && Reg != 1 && Reg != 6)
          return false;
        if ((Reg == 2 || Reg == 4) && P.any())
          return false;
        break;
      default:
        break;
      }
    } else if (Op == 0x1f || (Op >= 0x90 && Op <= 0x9f)) {
      if (Reg != 0)
        return false;
    } else if (Op == 0x1e) {
      if (ModRM != 0xfa || P.Segment || P.OpSize || P.Rex) // endbr64
        return false;
    }
    if (Mod != 3 && Rm == 4) {
      if (K >= N)
        return false;
      uint8_t Sib = B[K++];
      if (Mod == 0 && (Sib & 7) == 5)
        K += 4;
    }
    if (Mod == 1)
      K += 1;
    else if (Mod == 2 || (Mod == 0 && Rm == 5))
      K += 4;
  }
  switch (F) {
  case Form::ModRMImm8:
  case Form::Imm8:
    Imm = 1;
    break;
  case Form::Imm16:
    Imm = 2;
    break;
  case Form::ModRMImmZ:
  case Form::ImmZ:
    Imm = !TwoByte && Op >= 0xb8 && Op <= 0xbf && (P.Rex & 8) ? 8 : immZ(P);
    break;
  case Form::Rel8:
    Imm = 1;
    break;
  case Form::Rel32:
    Imm = 4;
    break;
  default:
    break;
  }
  size_t Size = K + Imm;
  if (Size > N)
    return false;
  I.Addr = Addr;
  I.Size = uint8_t(Size);
  I.Kind = Kind;
  I.setTarget(F == Form::Rel8 || F == Form::Rel32
                  ? Addr + Size + uint64_t(readSigned(B + K, Imm))
                  : 0);
  return true;
}

} // namespace lbr2prof
