//===- X86CommonTest.cpp - the common-encoding decoder against MC ---------===//
//
// decodeCommonX86 may decline anything, but what it decodes must be what
// MC decodes: the same length, kind and direct target, and nothing MC
// rejects. Checked on random bytes (plain, and built from the prefixes and
// opcodes the decoder knows, so that most of them reach its every form),
// and on every instruction of this test program's code, where it must
// also take most instructions (a decoder that declined everything would
// pass the comparisons).
//
//===----------------------------------------------------------------------===//
#include "../../lib/Binary/X86Common.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Triple.h"
#include "gtest/gtest.h"
#include <random>

using namespace lbr2prof;
using namespace llvm;

namespace {

std::string hexOf(ArrayRef<uint8_t> B, size_t N) {
  return toHex(B.take_front(N), /*LowerCase=*/true);
}

/// Compares the two decoders at the start of Bytes; true if the common
/// decoder took the bytes.
bool agreesWithMc(ArrayRef<uint8_t> Bytes, uint64_t Addr) {
  Inst Fast;
  if (!decodeCommonX86(Bytes, Addr, Fast))
    return false;
  Inst Mc;
  bool Decoded = decodeWithMc("x86_64", Bytes, Addr, Mc);
  SCOPED_TRACE(hexOf(Bytes, 16));
  EXPECT_TRUE(Decoded) << "MC rejects what the common decoder took";
  EXPECT_EQ(Fast.Addr, Addr);
  EXPECT_EQ(unsigned(Fast.Size), unsigned(Mc.Size));
  EXPECT_EQ(int(Fast.Kind), int(Mc.Kind));
  EXPECT_EQ(Fast.target(), Mc.target());
  return true;
}

TEST(X86Common, RandomBytesAgreeWithMc) {
  std::mt19937_64 Rng(23);
  const uint8_t Prefix[] = {0x66, 0xf2, 0xf3, 0x2e, 0x3e, 0x64,
                            0x65, 0x26, 0x36, 0xf0, 0x67};
  size_t Taken = 0, Tried = 0;
  std::vector<uint8_t> B(20);
  for (int Round = 0; Round < 400000 && !HasFailure(); ++Round) {
    for (uint8_t &C : B)
      C = uint8_t(Rng());
    if (Round % 4) {
      // Built: up to three prefixes, often a REX, often 0F, then an
      // opcode and random bytes.
      size_t K = 0;
      for (unsigned P = Rng() % 4; P && Rng() % 2; --P)
        B[K++] = Prefix[Rng() % std::size(Prefix)];
      if (Rng() % 2)
        B[K++] = uint8_t(0x40 | (Rng() % 16));
      if (Rng() % 2)
        B[K++] = 0x0f;
    }
    ++Tried;
    Taken += agreesWithMc(B, 0x401000 + Rng() % 0x100000);
  }
  // Most of the built bytes are among the forms listed.
  EXPECT_GT(Taken, Tried / 5) << Taken << " of " << Tried;
}

// Direct branches: targets forwards and backwards, across 2^32.
TEST(X86Common, BranchTargets) {
  const std::vector<std::vector<uint8_t>> Cases = {
      {0x74, 0x05},                         // je +5
      {0x7f, 0x80},                         // jg -128
      {0xeb, 0xfe},                         // jmp to itself
      {0xe9, 0x00, 0x00, 0x00, 0x80},       // jmp -2^31
      {0xe8, 0xff, 0xff, 0xff, 0x7f},       // call +2^31-1
      {0x0f, 0x85, 0x10, 0x00, 0x00, 0x00}, // jne +16
      {0xc3},                               // ret
      {0xc2, 0x08, 0x00},                   // ret 8
      {0xff, 0xd0},                         // call *%rax
      {0x41, 0xff, 0xe4},                   // jmp *%r12
      {0xff, 0x24, 0xc5, 0, 0, 0, 0},       // jmp *0(,%rax,8)
      {0x0f, 0x0b},                         // ud2
      {0xf3, 0x0f, 0x1e, 0xfa},             // endbr64
  };
  for (uint64_t Addr : {0x1000ULL, 0xfffffff0ULL, 0x7fff00000000ULL})
    for (const std::vector<uint8_t> &C : Cases)
      EXPECT_TRUE(agreesWithMc(C, Addr)) << hexOf(C, C.size());
}

TEST(X86Common, TargetsAtEveryReach) {
  // The decoded target, worked out by hand: Inst keeps it as a 32-bit
  // distance from the instruction's end, so both ends of rel32's reach,
  // a jump to itself and targets that wrap around the address space must
  // come back exact (MC and the common decoder share the field, so
  // agreeing with MC alone would not show it).
  struct Case {
    std::vector<uint8_t> Bytes;
    int64_t FromEnd; ///< target - (address + size)
  };
  const Case Cases[] = {
      {{0x74, 0x05}, 5},
      {{0x7f, 0x80}, -128},
      {{0xeb, 0xfe}, -2},
      {{0xe9, 0x00, 0x00, 0x00, 0x80}, -(int64_t(1) << 31)},
      {{0xe8, 0xff, 0xff, 0xff, 0x7f}, (int64_t(1) << 31) - 1},
      {{0x0f, 0x85, 0x10, 0x00, 0x00, 0x00}, 16},
  };
  for (uint64_t Addr : {0x10ULL, 0x1000ULL, 0xfffffff0ULL,
                        0x7fff00000000ULL, 0xfffffffffffffff0ULL})
    for (const Case &C : Cases) {
      SCOPED_TRACE(hexOf(C.Bytes, C.Bytes.size()) + " at " + utohexstr(Addr));
      uint64_t Want = Addr + C.Bytes.size() + uint64_t(C.FromEnd);
      Inst Fast, Mc;
      ASSERT_TRUE(decodeCommonX86(C.Bytes, Addr, Fast));
      ASSERT_TRUE(decodeWithMc("x86_64", C.Bytes, Addr, Mc));
      EXPECT_EQ(Fast.target(), Want);
      EXPECT_EQ(Mc.target(), Want);
    }
  // Set directly: 0 is none, and so is a target beyond a 32-bit distance.
  Inst I;
  I.Addr = 0x400000;
  I.Size = 5;
  I.setTarget(0x400005);
  EXPECT_EQ(I.target(), 0x400005u);
  I.setTarget(0);
  EXPECT_EQ(I.target(), 0u);
  I.setTarget(0x400005 + (uint64_t(1) << 32));
  EXPECT_EQ(I.target(), 0u);
}

// The instructions of this program's code (LLVM's, the C++ library's,
// ours; clang's and GCC's), decoded in sequence through its .text as far
// as 4 MB; the common decoder takes most of them.
TEST(X86Common, ThisProgramAgreesWithMc) {
  auto Buf = MemoryBuffer::getFile(LBR2PROF_TEST_SELF);
  ASSERT_TRUE(bool(Buf));
  auto Obj = object::ObjectFile::createObjectFile((*Buf)->getMemBufferRef());
  ASSERT_TRUE(bool(Obj)) << toString(Obj.takeError());
  if ((*Obj)->getArch() != Triple::x86_64)
    GTEST_SKIP() << "not an x86-64 build";
  ArrayRef<uint8_t> Code;
  uint64_t Addr = 0;
  for (const object::SectionRef &S : (*Obj)->sections()) {
    Expected<StringRef> Name = S.getName();
    if (Name && *Name == ".text") {
      Expected<StringRef> C = S.getContents();
      ASSERT_TRUE(bool(C)) << toString(C.takeError());
      Code = arrayRefFromStringRef(*C).take_front(4 << 20);
      Addr = S.getAddress();
    }
  }
  size_t Insts = 0, Taken = 0;
  for (size_t K = 0; K < Code.size() && !HasFailure(); ++Insts) {
    ArrayRef<uint8_t> Rest = Code.drop_front(K);
    Inst Mc, Fast;
    bool Decoded = decodeWithMc("x86_64", Rest, Addr + K, Mc);
    if (decodeCommonX86(Rest, Addr + K, Fast)) {
      ++Taken;
      SCOPED_TRACE(hexOf(Rest, 16));
      EXPECT_TRUE(Decoded) << "MC rejects what the common decoder took";
      EXPECT_EQ(unsigned(Fast.Size), unsigned(Mc.Size));
      EXPECT_EQ(int(Fast.Kind), int(Mc.Kind));
      EXPECT_EQ(Fast.target(), Mc.target());
    }
    K += Mc.Size;
  }
  ASSERT_GT(Insts, 100000u);
  EXPECT_GT(Taken, Insts * 9 / 10) << Taken << " of " << Insts;
}

} // namespace
