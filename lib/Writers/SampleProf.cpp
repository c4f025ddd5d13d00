//===- SampleProf.cpp - SampleProfileWriter into an AtomicOutputFile ------===//
//
// LLVM's writer wants a file name or a stream it owns, and an owned
// raw_fd_ostream reports a failed close as a fatal error. So the writer gets
// a stream of its own that forwards every write (and the ExtBinary format's
// pwrite of its section table) to the AtomicOutputFile's, whose commit()
// checks for errors and puts the output in place (a temporary renamed, or
// standard output and special files written through).
//
// The common extbinary profile (names, no MD5, no full contexts) is written
// by ExtBinaryWriter below instead, byte for byte as LLVM 19's writer
// writes it: that writer hashes every name with MD5 at each table lookup
// (FunctionId's hash), which was 15% of the write and the write a quarter
// of a 30,000-function line profile's run (0.37 of 1.5 s, bench/scale's
// 20 MB broad row). What it writes, in file order:
//   ULEB magic, ULEB version; u64 7 and 7 x {type, flags, offset, size}
//   (u64 LE, in LLVM's layout order, patched at the end);
//   summary: ULEB total, max count, max function count, number of counts,
//     number of functions, number of cutoffs, each {cutoff, min count,
//     number of counts} (LLVM's SampleProfileSummaryBuilder);
//   name table: ULEB count, the names sorted (FunctionId's order), each
//     followed by a NUL; flagged UniqSuffix if one holds ".__uniq.";
//   context name table: ULEB 0 (no full contexts);
//   profiles, hottest first (sortFuncProfiles): ULEB head samples, then the
//     body: ULEB name index, total, number of lines, each {ULEB line offset,
//     discriminator, samples, number of call targets, each {name index,
//     count} by count down then name}, number of inlined callees, each
//     {line offset, discriminator, body};
//   symbol list: empty;
//   function offset table: ULEB count, {name index, offset from the
//     profiles' start} in the order written;
//   metadata (probe-based or pre-inlined profiles only), per profile in the
//     map's order: ULEB name index, [checksum], [attributes], number of
//     inlined callees, each {line offset, discriminator, metadata}.
// test/Writers/extbinary-fast.test and SampleWriterTest check the bytes
// against LLVM's writer.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Writers/SampleProf.h"
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Support/OutputFile.h"
#include "lbr2prof/Support/Parallel.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ProfileData/ProfileCommon.h"
#include "llvm/ProfileData/SampleProfWriter.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/LEB128.h"

using namespace llvm;
using namespace llvm::sampleprof;

namespace lbr2prof {

namespace {
/// An unbuffered stream that forwards to a stream it does not own.
class ForwardingStream : public raw_pwrite_stream {
public:
  explicit ForwardingStream(raw_pwrite_stream &Target) : Target(Target) {
    SetUnbuffered();
  }

private:
  void write_impl(const char *P, size_t N) override { Target.write(P, N); }
  void pwrite_impl(const char *P, size_t N, uint64_t Offset) override {
    Target.pwrite(P, N, Offset);
  }
  uint64_t current_pos() const override { return Target.tell(); }
  raw_pwrite_stream &Target;
};

/// The largest count clang turns into a 32-bit branch weight: body samples
/// and call-target counts, inlined callees included.
uint64_t maxWeightCount(const FunctionSamples &FS) {
  uint64_t M = 0;
  for (const auto &[L, R] : FS.getBodySamples()) {
    M = std::max(M, R.getSamples());
    for (const auto &[F, C] : R.getCallTargets())
      M = std::max(M, C);
  }
  for (const auto &[L, Callees] : FS.getCallsiteSamples())
    for (const auto &[N, Callee] : Callees)
      M = std::max(M, maxWeightCount(Callee));
  return M;
}

/// C / D rounded, but a count that was not 0 stays at least 1 (ran, if
/// rarely, is not the explicit 0 of code that never ran).
uint64_t scaleDown(uint64_t C, uint64_t D) {
  return C ? std::max<uint64_t>(1, C / D + (C % D >= D - D / 2)) : 0;
}

/// FS with every count divided by D (LLVM can only scale up, by merging).
FunctionSamples scaledDown(const FunctionSamples &FS, uint64_t D) {
  FunctionSamples R;
  R.setContext(FS.getContext());
  R.setFunctionHash(FS.getFunctionHash());
  R.addTotalSamples(scaleDown(FS.getTotalSamples(), D));
  R.addHeadSamples(scaleDown(FS.getHeadSamples(), D));
  for (const auto &[L, Rec] : FS.getBodySamples()) {
    R.addBodySamples(L.LineOffset, L.Discriminator,
                     scaleDown(Rec.getSamples(), D));
    for (const auto &[F, C] : Rec.getCallTargets())
      R.addCalledTargetSamples(L.LineOffset, L.Discriminator, F,
                               scaleDown(C, D));
  }
  for (const auto &[L, Callees] : FS.getCallsiteSamples())
    for (const auto &[N, Callee] : Callees)
      R.functionSamplesAt(L).emplace(N, scaledDown(Callee, D));
  return R;
}

/// LLVM 19's extbinary writer for profiles with names, no MD5 and no full
/// contexts (the file comment has the layout), with names numbered through
/// a table keyed by the name's bytes' address (names are interned, but a
/// name may come from two places: equal strings at two addresses share
/// one number) instead of FunctionId's MD5 hash.
class ExtBinaryWriter {
public:
  ExtBinaryWriter(raw_pwrite_stream &OS, bool ProbeBased, bool PreInlined,
                  unsigned Threads)
      : OS(OS), ProbeBased(ProbeBased), PreInlined(PreInlined),
        Threads(std::max(1u, Threads)) {}

  /// False (nothing written) if Profiles needs LLVM's writer: a name kept
  /// as a hash, or a full context.
  bool write(const SampleProfileMap &Profiles);

private:
  // LLVM's section order in the header table, and the order written.
  enum Layout : unsigned {
    LSummary,
    LNames,
    LCSNames,
    LOffsets,
    LProfiles,
    LSymbols,
    LMetadata,
    NumSections
  };
  struct Section {
    SecType Type;
    uint64_t Flags = 0, Offset = 0, Size = 0;
  };
  raw_pwrite_stream &OS;
  bool ProbeBased, PreInlined;
  unsigned Threads;
  Section Sections[NumSections] = {
      {SecProfSummary},       {SecNameTable}, {SecCSNameTable},
      {SecFuncOffsetTable},   {SecLBRProfile}, {SecProfileSymbolList},
      {SecFuncMetadata}};
  /// What one walk over some profiles finds: their names, each once per
  /// address, and what LLVM's SampleProfileSummaryBuilder counts (every
  /// body sample's count, inlined callees too but not those marked
  /// duplicated into their base profile, by how often each occurs).
  struct Scan {
    /// Each name's bytes -> its number in the sorted table (numberNames).
    DenseMap<const char *, uint32_t> Index;
    /// Each name met, one entry per address.
    std::vector<FunctionId> Met;
    uint64_t Total = 0, Max = 0, MaxFunction = 0, NumCounts = 0;
    uint64_t NumFunctions = 0;
    DenseMap<uint64_t, uint32_t> Frequency;

    bool addName(FunctionId F) {
      if (!F.isStringRef())
        return false;
      if (Index.try_emplace(F.stringRef().data(), 0).second)
        Met.push_back(F);
      return true;
    }
    void count(uint64_t C) {
      Total += C;
      Max = std::max(Max, C);
      ++NumCounts;
      ++Frequency[C];
    }
    /// Walks S (a top-level profile unless Nested); false if a name is
    /// kept as a hash.
    bool walk(const FunctionSamples &S, bool Nested, bool Counted);
    /// Adds what O found.
    void add(const Scan &O);
  } All;
  /// One walk of Profiles, on Threads threads; false if a profile needs
  /// LLVM's writer.
  bool scan(ArrayRef<const FunctionSamples *> Profiles);
  void writeSummary();
  void numberNames();
  void uleb(uint64_t V) { encodeULEB128(V, OS); }
  void nameIdx(raw_ostream &O, FunctionId F) const {
    encodeULEB128(All.Index.find(F.stringRef().data())->second, O);
  }
  /// Writes the number of S's inlined callees, then each one's call site
  /// (line offset, discriminator) and what Write writes of it.
  template <typename Fn>
  static void writeInlined(raw_ostream &O, const FunctionSamples &S,
                           Fn Write) {
    uint64_t N = 0;
    for (const auto &[Loc, Callees] : S.getCallsiteSamples())
      N += Callees.size();
    encodeULEB128(N, O);
    for (const auto &[Loc, Callees] : S.getCallsiteSamples())
      for (const auto &[Name, Callee] : Callees) {
        encodeULEB128(Loc.LineOffset, O);
        encodeULEB128(Loc.Discriminator, O);
        Write(Callee);
      }
  }
  /// Writes S's body to O (threads write bodies at once, each its own O).
  void writeBody(raw_ostream &O, const FunctionSamples &S) const;
  void writeMetadata(const FunctionSamples &S);
  template <typename Fn> void section(Layout L, Fn Write) {
    uint64_t Start = OS.tell();
    Write();
    Sections[L].Offset = Start;
    Sections[L].Size = OS.tell() - Start;
  }
  void flag(Layout L, uint32_t F) { Sections[L].Flags |= uint64_t(F) << 32; }
};

bool ExtBinaryWriter::Scan::walk(const FunctionSamples &S, bool Nested,
                                 bool Counted) {
  if (!Nested) {
    ++NumFunctions;
    MaxFunction = std::max(MaxFunction, S.getHeadSamples());
  } else if (S.getContext().hasAttribute(ContextDuplicatedIntoBase)) {
    Counted = false;
  }
  for (const auto &[Loc, Rec] : S.getBodySamples()) {
    if (Counted)
      count(Rec.getSamples());
    for (const auto &[F, C] : Rec.getCallTargets())
      if (!addName(F))
        return false;
  }
  for (const auto &[Loc, Callees] : S.getCallsiteSamples())
    for (const auto &[Name, Callee] : Callees)
      if (!addName(Callee.getFunction()) || !walk(Callee, true, Counted))
        return false;
  return true;
}

void ExtBinaryWriter::Scan::add(const Scan &O) {
  for (FunctionId F : O.Met)
    addName(F);
  Total += O.Total;
  Max = std::max(Max, O.Max);
  MaxFunction = std::max(MaxFunction, O.MaxFunction);
  NumCounts += O.NumCounts;
  NumFunctions += O.NumFunctions;
  for (const auto &[C, N] : O.Frequency)
    Frequency[C] += N;
}

bool ExtBinaryWriter::scan(ArrayRef<const FunctionSamples *> Profiles) {
  // A part per thread, added up in order: the result is one walk's.
  unsigned T = Profiles.size() >= 1024 ? Threads : 1;
  std::vector<Scan> Part(T);
  std::vector<char> Ok(T, 1);
  parallelParts(Profiles.size(), T, T, [&](size_t K, size_t B, size_t E) {
    for (size_t I = B; I < E; ++I) {
      const FunctionSamples &S = *Profiles[I];
      if (S.getContext().hasContext() || !Part[K].addName(S.getFunction()) ||
          !Part[K].walk(S, false, true)) {
        Ok[K] = 0;
        break;
      }
    }
  });
  for (unsigned K = 0; K < T; ++K) {
    if (!Ok[K])
      return false;
    if (K == 0)
      All = std::move(Part[0]);
    else
      All.add(Part[K]);
  }
  return true;
}

void ExtBinaryWriter::writeSummary() {
  // ProfileSummaryBuilder's detailed summary: for each cutoff (parts per
  // million of the total, ascending), the count at which the hottest
  // counts, taken a distinct count at a time, first reach that share, and
  // how many counts that took.
  std::vector<std::pair<uint64_t, uint32_t>> Freq(All.Frequency.begin(),
                                                  All.Frequency.end());
  llvm::sort(Freq, [](const auto &A, const auto &B) { return A > B; });
  std::vector<uint32_t> Cutoffs(ProfileSummaryBuilder::DefaultCutoffs.begin(),
                                ProfileSummaryBuilder::DefaultCutoffs.end());
  llvm::sort(Cutoffs);
  uleb(All.Total);
  uleb(All.Max);
  uleb(All.MaxFunction);
  uleb(All.NumCounts);
  uleb(All.NumFunctions);
  uleb(Cutoffs.size());
  size_t I = 0;
  uint32_t Seen = 0;
  uint64_t Acc = 0, Count = 0;
  for (uint32_t Cutoff : Cutoffs) {
    uint64_t Desired = uint64_t((unsigned __int128)All.Total * Cutoff /
                                ProfileSummary::Scale);
    for (; Acc < Desired && I < Freq.size(); ++I) {
      Count = Freq[I].first;
      Acc += Count * Freq[I].second;
      Seen += Freq[I].second;
    }
    uleb(Cutoff);
    uleb(Count);
    uleb(Seen);
  }
}

void ExtBinaryWriter::numberNames() {
  std::vector<uint32_t> Order(All.Met.size());
  for (uint32_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  // Equal names get one number whatever their order.
  parallelSort(
      Order.begin(), Order.end(),
      [&](uint32_t A, uint32_t B) { return All.Met[A] < All.Met[B]; },
      Threads);
  uint64_t Count = 0;
  for (size_t I = 0; I < Order.size(); ++I)
    Count += I == 0 || All.Met[Order[I - 1]] != All.Met[Order[I]];
  uleb(Count);
  uint32_t N = 0;
  bool Uniq = false;
  for (size_t I = 0; I < Order.size(); ++I) {
    const FunctionId &F = All.Met[Order[I]];
    if (I != 0 && All.Met[Order[I - 1]] != F)
      ++N;
    All.Index[F.stringRef().data()] = N;
    if (I == 0 || All.Met[Order[I - 1]] != F) {
      OS << F.stringRef();
      uleb(0);
      Uniq |= F.stringRef().contains(FunctionSamples::UniqSuffix);
    }
  }
  if (Uniq)
    flag(LNames, uint32_t(SecNameTableFlags::SecFlagUniqSuffix));
}

void ExtBinaryWriter::writeBody(raw_ostream &O,
                                const FunctionSamples &S) const {
  auto uleb = [&](uint64_t V) { encodeULEB128(V, O); };
  nameIdx(O, S.getFunction());
  uleb(S.getTotalSamples());
  uleb(S.getBodySamples().size());
  SmallVector<std::pair<FunctionId, uint64_t>, 4> Targets;
  for (const auto &[Loc, Rec] : S.getBodySamples()) {
    uleb(Loc.LineOffset);
    uleb(Loc.Discriminator);
    uleb(Rec.getSamples());
    uleb(Rec.getCallTargets().size());
    Targets.assign(Rec.getCallTargets().begin(), Rec.getCallTargets().end());
    // SampleRecord's sorted call targets: by count down, then by name.
    llvm::sort(Targets, [](const auto &A, const auto &B) {
      return A.second != B.second ? A.second > B.second : A.first < B.first;
    });
    for (const auto &[F, C] : Targets) {
      nameIdx(O, F);
      uleb(C);
    }
  }
  writeInlined(O, S, [&](const FunctionSamples &C) { writeBody(O, C); });
}

void ExtBinaryWriter::writeMetadata(const FunctionSamples &S) {
  nameIdx(OS, S.getFunction());
  if (ProbeBased)
    uleb(S.getFunctionHash());
  if (PreInlined)
    uleb(S.getContext().getAllAttributes());
  writeInlined(OS, S, [&](const FunctionSamples &C) { writeMetadata(C); });
}

bool ExtBinaryWriter::write(const SampleProfileMap &Profiles) {
  std::vector<const FunctionSamples *> InMapOrder;
  InMapOrder.reserve(Profiles.size());
  for (const auto &[Hash, S] : Profiles)
    InMapOrder.push_back(&S);
  if (!scan(InMapOrder))
    return false;
  uint64_t Start = OS.tell();
  uleb(SPMagic(SPF_Ext_Binary));
  uleb(SPVersion());
  support::endian::Writer W(OS, llvm::endianness::little);
  W.write<uint64_t>(NumSections);
  uint64_t TableAt = OS.tell();
  for (unsigned I = 0; I < 4 * NumSections; ++I)
    W.write<uint64_t>(~0ULL);

  if (PreInlined)
    flag(LSummary, uint32_t(SecProfSummaryFlags::SecFlagIsPreInlined));
  section(LSummary, [&] { writeSummary(); });
  section(LNames, [&] { numberNames(); });
  section(LCSNames, [&] { uleb(0); });
  std::vector<std::pair<const FunctionSamples *, uint64_t>> Offsets;
  section(LProfiles, [&] {
    // sortFuncProfiles' order (hottest first, then by context: a total
    // order, so any sort gives it), sorted on the threads.
    std::vector<NameFunctionSamples> Sorted;
    Sorted.reserve(Profiles.size());
    for (const auto &[Hash, S] : Profiles)
      Sorted.push_back({Hash, &S});
    parallelSort(
        Sorted.begin(), Sorted.end(),
        [](const NameFunctionSamples &A, const NameFunctionSamples &B) {
          if (A.second->getTotalSamples() == B.second->getTotalSamples())
            return A.second->getContext() < B.second->getContext();
          return A.second->getTotalSamples() > B.second->getTotalSamples();
        },
        Threads);
    Offsets.reserve(Sorted.size());
    // Bodies are encoded in parts on the threads (a part's buffer and its
    // profiles' offsets in it), then written in order.
    unsigned T = Sorted.size() >= 1024 ? Threads : 1;
    size_t NumParts = T == 1 ? 1 : 4 * size_t(T);
    std::vector<std::string> Buf(NumParts);
    std::vector<uint64_t> Local(Sorted.size());
    parallelParts(Sorted.size(), NumParts, T,
                  [&](size_t K, size_t B, size_t E) {
                    // Buffered: unbuffered, each ULEB was an append
                    // of its own to the string.
                    raw_string_ostream O(Buf[K]);
                    O.SetBuffered();
                    for (size_t I = B; I < E; ++I) {
                      Local[I] = O.tell();
                      encodeULEB128(Sorted[I].second->getHeadSamples(), O);
                      writeBody(O, *Sorted[I].second);
                    }
                    O.flush();
                  });
    uint64_t At = 0;
    for (size_t K = 0; K < NumParts; ++K) {
      auto [B, E] = partOf(Sorted.size(), NumParts, K);
      for (size_t I = B; I < E; ++I)
        Offsets.push_back({Sorted[I].second, At + Local[I]});
      OS << Buf[K];
      At += Buf[K].size();
    }
  });
  section(LSymbols, [] {});
  section(LOffsets, [&] {
    uleb(Offsets.size());
    for (const auto &[S, Offset] : Offsets) {
      nameIdx(OS, S->getFunction());
      uleb(Offset);
    }
  });
  if (ProbeBased)
    flag(LMetadata, uint32_t(SecFuncMetadataFlags::SecFlagIsProbeBased));
  if (PreInlined)
    flag(LMetadata, uint32_t(SecFuncMetadataFlags::SecFlagHasAttribute));
  section(LMetadata, [&] {
    if (ProbeBased || PreInlined)
      for (const auto &[Hash, S] : Profiles)
        writeMetadata(S);
  });

  SmallString<4 * NumSections * 8> Table;
  raw_svector_ostream TS(Table);
  support::endian::Writer TW(TS, llvm::endianness::little);
  for (const Section &S : Sections) {
    TW.write<uint64_t>(S.Type);
    TW.write<uint64_t>(S.Flags);
    TW.write<uint64_t>(S.Offset - Start);
    TW.write<uint64_t>(S.Size);
  }
  OS.pwrite(Table.data(), Table.size(), TableAt);
  return true;
}

} // namespace

uint64_t fitBranchWeights(SampleProfileMap &Profiles, unsigned Threads) {
  // The largest count, on the threads: a walk of every count (0.015-0.025 s
  // of bench/scale's 20 MB broad line profile on one thread).
  std::vector<const FunctionSamples *> All;
  All.reserve(Profiles.size());
  for (const auto &KV : Profiles)
    All.push_back(&KV.second);
  std::vector<uint64_t> PartMax(std::max(1u, Threads), 0);
  parallelParts(All.size(), PartMax.size(), Threads,
                [&](size_t K, size_t B, size_t E) {
                  for (size_t I = B; I < E; ++I)
                    PartMax[K] = std::max(PartMax[K], maxWeightCount(*All[I]));
                });
  uint64_t Max = *std::max_element(PartMax.begin(), PartMax.end());
  if (Max <= MaxWeightCount)
    return 1;
  uint64_t D = Max / MaxWeightCount + (Max % MaxWeightCount != 0);
  SampleProfileMap Scaled;
  for (const auto &KV : Profiles)
    Scaled.create(KV.second.getContext()) = scaledDown(KV.second, D);
  Profiles = std::move(Scaled);
  return D;
}

Error writeSampleProfile(SampleProfileMap &Profiles, StringRef Path,
                         const SampleWriterOptions &Opts) {
  if (Opts.UseMD5 && Opts.Format != SampleFormat::ExtBinary)
    return makeError("--use-md5 needs the extbinary format");
  // The binary format stores no checksums, and LLVM's reader would take
  // the profile for a line-based one (llvm-profgen refuses it too).
  if (Opts.ProbeBased && Opts.Format == SampleFormat::Binary)
    return makeError("{0}: a probe-based profile cannot be written in the "
                     "binary format (it has no room for CFG checksums): use "
                     "extbinary or text, or --use-dwarf-correlation for a "
                     "line-based profile",
                     Path);
  SampleProfileFormat F = Opts.Format == SampleFormat::Text     ? SPF_Text
                          : Opts.Format == SampleFormat::Binary ? SPF_Binary
                                                                : SPF_Ext_Binary;
  Expected<std::unique_ptr<AtomicOutputFile>> Out =
      AtomicOutputFile::create(Path);
  if (!Out)
    return Out.takeError();
  // The common case, LLVM's bytes without its name hashing; global flags
  // that change what LLVM writes send the rest to LLVM's writer.
  if (F == SPF_Ext_Binary && !Opts.UseMD5 && !FunctionSamples::ProfileIsCS &&
      !FunctionSamples::ProfileIsFS && !Opts.LLVMWriter) {
    ExtBinaryWriter W((*Out)->os(), Opts.ProbeBased, Opts.PreInlined,
                      Opts.Threads);
    if (W.write(Profiles))
      return (*Out)->commit();
  }
  {
    std::unique_ptr<raw_ostream> S =
        std::make_unique<ForwardingStream>((*Out)->os());
    auto W = SampleProfileWriter::create(S, F);
    if (!W)
      return makeError("{0}: cannot write the profile: {1}", Path,
                       W.getError().message());
    if (Opts.UseMD5)
      (*W)->setUseMD5();
    // LLVM's writers read these process-wide flags; set them for this
    // write only.
    bool WasProbeBased = FunctionSamples::ProfileIsProbeBased;
    bool WasPreInlined = FunctionSamples::ProfileIsPreInlined;
    FunctionSamples::ProfileIsProbeBased = Opts.ProbeBased;
    FunctionSamples::ProfileIsPreInlined = Opts.PreInlined;
    std::error_code EC = (*W)->write(Profiles);
    FunctionSamples::ProfileIsProbeBased = WasProbeBased;
    FunctionSamples::ProfileIsPreInlined = WasPreInlined;
    if (EC)
      return makeError("{0}: cannot write the profile: {1}", Path,
                       EC.message());
  }
  return (*Out)->commit();
}

} // namespace lbr2prof
