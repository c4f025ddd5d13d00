//===- SampleWriterTest.cpp - our extbinary bytes against LLVM's writer ---===//
//
// writeSampleProfile() writes the common extbinary profile (names, no MD5,
// no full contexts) itself, byte for byte as LLVM 19's SampleProfileWriter
// does, and leaves the rest to LLVM. LLVM's writer is the judge here: each
// profile is written both ways (SampleWriterOptions::LLVMWriter) and the
// files must be equal. The cases are the ones where the two could part:
// call targets of equal counts (ordered by name), one name at two
// addresses (one number in the name table), ".__uniq." names (a flag),
// nested inlined callees, several callees at one call site, checksums
// (probe-based) and attributes (pre-inlined), the summary's counts
// (inlined callees duplicated into their base profile are left out), an
// empty profile, random profiles of every shape, and a profile large
// enough to be written on several threads. LLVM's reader reads ours back too.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Writers/SampleProf.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/ProfileData/SampleProfReader.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "gtest/gtest.h"
#include <deque>
#include <random>

using namespace llvm;
using namespace llvm::sampleprof;
using namespace lbr2prof;

namespace {

/// Names kept alive for the FunctionIds that point at them; each call
/// gives a new copy, so equal names can sit at different addresses.
struct NamePool {
  std::deque<std::string> Strings;
  FunctionId name(StringRef S) {
    Strings.emplace_back(S.str());
    return FunctionId(StringRef(Strings.back()));
  }
};

std::string readAll(StringRef Path) {
  auto B = MemoryBuffer::getFile(Path);
  EXPECT_TRUE(bool(B)) << Path.str();
  return B ? (*B)->getBuffer().str() : std::string();
}

/// The profile written by LLVM's writer and by ours: both bytes.
std::pair<std::string, std::string> writeBoth(SampleProfileMap &M,
                                              SampleWriterOptions O) {
  SmallString<128> Dir;
  EXPECT_FALSE(sys::fs::createUniqueDirectory("sample-writer", Dir));
  std::string A = (Dir + "/llvm.prof").str(), B = (Dir + "/ours.prof").str();
  O.Format = SampleFormat::ExtBinary;
  O.LLVMWriter = true;
  EXPECT_FALSE(bool(errorToErrorCode(writeSampleProfile(M, A, O))));
  O.LLVMWriter = false;
  EXPECT_FALSE(bool(errorToErrorCode(writeSampleProfile(M, B, O))));
  std::pair<std::string, std::string> R{readAll(A), readAll(B)};
  sys::fs::remove(A);
  sys::fs::remove(B);
  sys::fs::remove(Dir);
  return R;
}

/// LLVM's reader takes Bytes as an extbinary profile with N functions.
void expectReadable(const std::string &Bytes, size_t N) {
  LLVMContext Ctx;
  auto FS = vfs::getRealFileSystem();
  std::unique_ptr<MemoryBuffer> B =
      MemoryBuffer::getMemBuffer(Bytes, "", false);
  auto R = SampleProfileReader::create(B, Ctx, *FS);
  ASSERT_TRUE(bool(R));
  ASSERT_FALSE(bool((*R)->read()));
  EXPECT_EQ((*R)->getFormat(), SPF_Ext_Binary);
  EXPECT_EQ((*R)->getProfiles().size(), N);
}

FunctionSamples &profile(SampleProfileMap &M, FunctionId F) {
  FunctionSamples &S = M.create(SampleContext(F));
  S.setFunction(F);
  return S;
}

TEST(SampleWriter, SameBytesAsLLVMOnTheHardCases) {
  NamePool N;
  SampleProfileMap M;
  FunctionSamples &Main = profile(M, N.name("main"));
  Main.addHeadSamples(7);
  Main.addTotalSamples(1000);
  Main.addBodySamples(1, 0, 500);
  Main.addBodySamples(1, 3, 20);
  Main.addBodySamples(2, 0, 0);
  // Equal counts: by name, whatever the order added.
  Main.addCalledTargetSamples(3, 0, N.name("zeta"), 40);
  Main.addCalledTargetSamples(3, 0, N.name("alpha"), 40);
  Main.addCalledTargetSamples(3, 0, N.name("mid"), 90);
  // Inlined callees, two at one site, one nested.
  FunctionSamplesMap &Site = Main.functionSamplesAt(LineLocation(4, 0));
  FunctionSamples &A = Site[N.name("inl_a")];
  A.setFunction(N.name("inl_a"));
  A.addTotalSamples(30);
  A.addBodySamples(0, 0, 30);
  A.addCalledTargetSamples(1, 0, N.name("main"), 2); // main at a 2nd address
  FunctionSamples &B = Site[N.name("inl_b")];
  B.setFunction(N.name("inl_b"));
  B.addTotalSamples(10);
  B.addBodySamples(5, 2, 10);
  FunctionSamples &C =
      B.functionSamplesAt(LineLocation(6, 1))[N.name("f.__uniq.123")];
  C.setFunction(N.name("f.__uniq.123"));
  C.addTotalSamples(3);
  C.addBodySamples(0, 0, 3);
  FunctionSamples &Cold = profile(M, N.name("cold"));
  Cold.addBodySamples(9, 0, 0);
  FunctionSamples &Tie = profile(M, N.name("tie"));
  Tie.addTotalSamples(1000); // as hot as main: the order is by name
  Tie.addBodySamples(1, 0, 1000);

  auto [L, O] = writeBoth(M, {});
  EXPECT_FALSE(L.empty());
  EXPECT_TRUE(L == O) << "extbinary bytes differ from LLVM's writer";
  expectReadable(O, 3);

  SampleWriterOptions Probe;
  Probe.ProbeBased = true;
  Main.setFunctionHash(0x1234567890ULL);
  A.setFunctionHash(77);
  Tie.setFunctionHash(5);
  auto [LP, OP] = writeBoth(M, Probe);
  EXPECT_TRUE(LP == OP) << "probe-based bytes differ";

  SampleWriterOptions Pre;
  Pre.PreInlined = true;
  A.getContext().setAttribute(ContextShouldBeInlined);
  Tie.getContext().setAttribute(ContextWasInlined);
  auto [LI, OI] = writeBoth(M, Pre);
  EXPECT_TRUE(LI == OI) << "pre-inlined bytes differ";
}

TEST(SampleWriter, SameBytesAsLLVMOnAnEmptyProfile) {
  SampleProfileMap M;
  auto [L, O] = writeBoth(M, {});
  EXPECT_FALSE(L.empty());
  EXPECT_TRUE(L == O);
}

/// A random profile: Functions functions, lines with and without calls,
/// ties in counts, inlined callees down to Depth levels.
void randomBody(FunctionSamples &S, std::mt19937 &G, NamePool &N,
                unsigned Depth) {
  std::uniform_int_distribution<int> Lines(0, 12), Line(0, 40), Disc(0, 3),
      Count(0, 5), Names(0, 30);
  auto count = [&] { return uint64_t(Count(G) * Count(G) * 10); };
  auto name = [&] { return N.name("fn" + std::to_string(Names(G))); };
  for (int I = 0, E = Lines(G); I < E; ++I) {
    uint32_t L = Line(G), D = Disc(G);
    S.addBodySamples(L, D, count());
    for (int T = 0, TE = Count(G) / 2; T < TE; ++T)
      S.addCalledTargetSamples(L, D, name(), count());
  }
  if (Depth == 0)
    return;
  for (int I = 0, E = Count(G) / 2; I < E; ++I) {
    FunctionSamplesMap &Site =
        S.functionSamplesAt(LineLocation(Line(G), Disc(G)));
    FunctionId F = name();
    FunctionSamples &C = Site[F];
    C.setFunction(F);
    C.setFunctionHash(G());
    if (G() % 2)
      C.getContext().setAttribute(ContextShouldBeInlined);
    // Left out of the summary's counts, as LLVM's builder leaves it.
    if (G() % 5 == 0)
      C.getContext().setAttribute(ContextDuplicatedIntoBase);
    randomBody(C, G, N, Depth - 1);
  }
  S.addTotalSamples(count());
}

TEST(SampleWriter, SameBytesAsLLVMOnRandomProfiles) {
  for (unsigned Seed = 1; Seed <= 40; ++Seed) {
    std::mt19937 G(Seed);
    NamePool N;
    SampleProfileMap M;
    for (unsigned F = 0, E = G() % 50; F < E; ++F) {
      FunctionSamples &S = profile(M, N.name("fn" + std::to_string(F)));
      S.addHeadSamples(G() % 4);
      S.setFunctionHash(G());
      randomBody(S, G, N, 3);
    }
    SampleWriterOptions O;
    O.ProbeBased = Seed % 3 == 1;
    O.PreInlined = Seed % 3 == 2;
    auto [L, Ours] = writeBoth(M, O);
    ASSERT_TRUE(L == Ours) << "seed " << Seed << ": bytes differ";
    if (!O.ProbeBased)
      expectReadable(Ours, M.size());
  }
}

TEST(SampleWriter, SameBytesAsLLVMOnThreads) {
  // Past 1,024 profiles our writer walks and encodes them on the threads it
  // is given, in parts joined in order: the bytes must not change.
  std::mt19937 G(7);
  NamePool N;
  SampleProfileMap M;
  for (unsigned F = 0; F < 3000; ++F) {
    FunctionSamples &S = profile(M, N.name("f" + std::to_string(F)));
    S.addHeadSamples(G() % 4);
    randomBody(S, G, N, 2);
  }
  for (unsigned Threads : {2u, 3u}) {
    SampleWriterOptions O;
    O.Threads = Threads;
    auto [L, Ours] = writeBoth(M, O);
    ASSERT_TRUE(L == Ours) << Threads << " threads: bytes differ";
    expectReadable(Ours, M.size());
  }
}

} // namespace
