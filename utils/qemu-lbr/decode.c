/*===- decode.c - branch kind of one guest instruction ------------*- C -*-===*
 *
 * The plugin needs to know, for the last instruction of each block, whether
 * it is a conditional, direct, indirect, call or return branch: the kind
 * decides whether a jump to the next address is a taken branch, which
 * predictor structure judges it, and the perf branch type. QEMU hands us
 * the raw bytes at translation time, so this is a tiny opcode decoder for
 * exactly the control-flow instructions of x86-64 and AArch64 (A64), run
 * once per translated block, never per executed instruction.
 *
 *===----------------------------------------------------------------------===*/
#include "lbr.h"

#include <string.h>

/* Little-endian signed immediate of n bytes at b[at], if all are there. */
static int rel_imm(const uint8_t *b, size_t size, size_t at, size_t n,
                   int64_t *out) {
  if (at + n != size) /* the displacement ends the instruction */
    return 0;
  if (n == 1) {
    *out = (int8_t)b[at];
  } else {
    int32_t v;
    memcpy(&v, b + at, 4);
    *out = v;
  }
  return 1;
}

/* x86-64: skip legacy prefixes and REX, then look at the opcode. */
struct insn_class decode_x86_64(const uint8_t *b, size_t size, uint64_t pc) {
  struct insn_class c = {BK_NONE, 0, 0, 0};
  int64_t rel = 0;
  size_t i = 0;
  int rep = 0;
  for (; i < size; ++i) {
    uint8_t p = b[i];
    if (p == 0xf2 || p == 0xf3)
      rep = 1;
    else if (p != 0xf0 && p != 0x2e && p != 0x36 && p != 0x3e && p != 0x26 &&
             p != 0x64 && p != 0x65 && p != 0x66 && p != 0x67)
      break;
  }
  if (i < size && (b[i] & 0xf0) == 0x40) /* REX directly before opcode */
    ++i;
  if (i >= size)
    return c;
  uint8_t op = b[i];
  if ((op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3)) {
    c.kind = BK_COND; /* jcc rel8, loop/loope/loopne/jrcxz */
    c.has_target = rel_imm(b, size, i + 1, 1, &rel);
  } else if (op == 0xe8) {
    c.kind = BK_CALL;
    c.has_target = rel_imm(b, size, i + 1, 4, &rel);
  } else if (op == 0xe9 || op == 0xeb) {
    c.kind = BK_JUMP;
    c.has_target = rel_imm(b, size, i + 1, op == 0xeb ? 1 : 4, &rel);
  } else if (op == 0xc2 || op == 0xc3 || op == 0xca || op == 0xcb ||
             op == 0xcf) {
    c.kind = BK_RET; /* near/far ret, iret */
  } else if (op == 0xcc || op == 0xcd || op == 0xce) {
    c.kind = BK_SYSCALL; /* int3, int n, into: trap into the kernel */
  } else if (op == 0xff && i + 1 < size) {
    unsigned reg = (b[i + 1] >> 3) & 7;
    if (reg == 2 || reg == 3)
      c.kind = BK_IND_CALL;
    else if (reg == 4 || reg == 5)
      c.kind = BK_IND;
  } else if (op == 0x0f && i + 1 < size) {
    uint8_t op2 = b[i + 1];
    if (op2 >= 0x80 && op2 <= 0x8f) {
      c.kind = BK_COND; /* jcc rel32 */
      c.has_target = rel_imm(b, size, i + 2, 4, &rel);
    } else if (op2 == 0x05 || op2 == 0x34 || op2 == 0x0b)
      c.kind = BK_SYSCALL; /* syscall, sysenter, ud2 */
  } else if (rep && ((op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf) ||
                     (op >= 0x6c && op <= 0x6f))) {
    c.rep_string = 1; /* movs/cmps/stos/lods/scas/ins/outs with rep */
  }
  if (c.has_target)
    c.target = pc + size + (uint64_t)rel;
  return c;
}

static int64_t sign_extend(uint32_t v, unsigned bits) {
  return (int64_t)((uint64_t)v << (64 - bits)) >> (64 - bits);
}

/* AArch64: fixed 32-bit little-endian encodings. */
struct insn_class decode_aarch64(const uint8_t *b, size_t size, uint64_t pc) {
  struct insn_class c = {BK_NONE, 0, 0, 0};
  if (size != 4)
    return c;
  uint32_t w;
  memcpy(&w, b, 4);
  if ((w & 0x7c000000u) == 0x14000000u) {
    c.kind = (w & 0x80000000u) ? BK_CALL : BK_JUMP; /* bl / b, imm26 */
    c.has_target = 1;
    c.target = pc + (uint64_t)(sign_extend(w & 0x3ffffff, 26) * 4);
  } else if ((w & 0xff000000u) == 0x54000000u ||
             (w & 0x7e000000u) == 0x34000000u) {
    c.kind = BK_COND; /* b.cond / bc.cond, cbz/cbnz: imm19 at bit 5 */
    c.has_target = 1;
    c.target = pc + (uint64_t)(sign_extend((w >> 5) & 0x7ffff, 19) * 4);
  } else if ((w & 0x7e000000u) == 0x36000000u) {
    c.kind = BK_COND; /* tbz/tbnz: imm14 at bit 5 */
    c.has_target = 1;
    c.target = pc + (uint64_t)(sign_extend((w >> 5) & 0x3fff, 14) * 4);
  } else if ((w & 0xfe000000u) == 0xd6000000u) {
    /* Unconditional branch (register): opc in bits 24..21. */
    unsigned opc = (w >> 21) & 0xf;
    if (opc == 0 || opc == 8)
      c.kind = BK_IND; /* br, braa, brab, braaz, brabz */
    else if (opc == 1 || opc == 9)
      c.kind = BK_IND_CALL; /* blr and its pointer-auth forms */
    else if (opc == 2)
      c.kind = BK_RET; /* ret, retaa, retab */
  } else if ((w & 0xffe0001fu) == 0xd4000001u ||
             (w & 0xffe0001fu) == 0xd4200000u) {
    c.kind = BK_SYSCALL; /* svc, brk */
  }
  return c;
}

unsigned branch_kind_perf_type(enum branch_kind kind) {
  /* PERF_BR_* values of include/uapi/linux/perf_event.h. */
  switch (kind) {
  case BK_COND:
    return 1; /* PERF_BR_COND */
  case BK_JUMP:
    return 2; /* PERF_BR_UNCOND */
  case BK_IND:
    return 3; /* PERF_BR_IND */
  case BK_CALL:
    return 4; /* PERF_BR_CALL */
  case BK_IND_CALL:
    return 5; /* PERF_BR_IND_CALL */
  case BK_RET:
    return 6; /* PERF_BR_RET */
  case BK_SYSCALL:
    return 7; /* PERF_BR_SYSCALL */
  default:
    return 0; /* PERF_BR_UNKNOWN */
  }
}
