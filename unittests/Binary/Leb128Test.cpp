//===- Leb128Test.cpp - our bounded LEB128 reads against LLVM's ----------===//
//
// uleb()/sleb() take the common one- and two-byte values (and sleb's
// three-byte ones) without their loop (line programs' columns and line
// advances, address indexes); every length must decode as LLVM's
// decodeULEB128/decodeSLEB128 does, and a value cut by the end of the data
// must be refused without reading past it.
//
//===----------------------------------------------------------------------===//
#include "Leb128.h"
#include "llvm/Support/LEB128.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <random>
#include <string>

using namespace lbr2prof;

namespace {

/// Values of every encoded length, 1 to 10 bytes, both signs.
std::vector<int64_t> samples() {
  std::vector<int64_t> V = {0, 1, -1, 63, 64, -64, -65, 127, 128, 8191,
                            8192, -8192, -8193, 1048575, 1048576, -1048576,
                            -1048577, INT64_MAX, INT64_MIN};
  std::mt19937_64 Rng(128);
  for (unsigned Bits = 1; Bits <= 64; ++Bits)
    for (int K = 0; K < 20; ++K) {
      uint64_t X = Rng() >> (64 - Bits);
      V.push_back(int64_t(X));
      V.push_back(-int64_t(X));
    }
  return V;
}

TEST(Leb128, SameValuesAsLLVM) {
  unsigned Lengths[11] = {};
  for (int64_t X : samples()) {
    for (bool Signed : {false, true}) {
      std::string Buf;
      llvm::raw_string_ostream OS(Buf);
      unsigned N = Signed ? llvm::encodeSLEB128(X, OS)
                          : llvm::encodeULEB128(uint64_t(X), OS);
      OS.flush();
      ++Lengths[N];
      Buf += "\x05"; // the next byte, not to be read
      const uint8_t *Begin = reinterpret_cast<const uint8_t *>(Buf.data());
      const uint8_t *End = Begin + Buf.size();
      const uint8_t *P = Begin;
      if (Signed) {
        int64_t Got;
        ASSERT_TRUE(sleb(P, End, Got)) << X;
        EXPECT_EQ(Got, llvm::decodeSLEB128(Begin)) << X;
      } else {
        uint64_t Got;
        ASSERT_TRUE(uleb(P, End, Got)) << X;
        EXPECT_EQ(Got, llvm::decodeULEB128(Begin)) << X;
      }
      EXPECT_EQ(unsigned(P - Begin), N) << X;
      // Cut one byte short: refused.
      for (unsigned Cut = 0; Cut < N; ++Cut) {
        const uint8_t *Q = Begin;
        int64_t S;
        uint64_t U;
        EXPECT_FALSE(Signed ? sleb(Q, Begin + Cut, S) : uleb(Q, Begin + Cut, U))
            << X << " cut to " << Cut;
      }
    }
  }
  // The fast lengths and the loop's are all met.
  for (unsigned N = 1; N <= 10; ++N)
    EXPECT_GT(Lengths[N], 0u) << N << "-byte values";
}

} // namespace
