//===- ByteSource.cpp - file, pipe and buffer byte sources ----------------===//
//
// FdSource reads with read(2)/pread(2), which keeps the resident set bounded
// by the reader's window rather than the file size (an mmap of a 10 GB file
// would count every touched page). A file descriptor that cannot seek (a
// pipe, a FIFO, a terminal) is streamed.
//
//===----------------------------------------------------------------------===//
#include "ByteSource.h"
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Support/ReadAt.h"
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace llvm;
namespace lbr2prof {

ByteSource::~ByteSource() = default;

namespace {

class FdSource : public ByteSource {
public:
  FdSource(int FD, bool Own, bool Seekable, uint64_t Size, StringRef N)
      : FD(FD), Own(Own), Seekable(Seekable), Size(Size) {
    Name = N.str();
  }
  ~FdSource() override {
    if (Own)
      ::close(FD);
  }
  Expected<size_t> read(uint8_t *Dst, size_t N) override {
    size_t Got = 0;
    while (Got < N) {
      ssize_t R = ::read(FD, Dst + Got, N - Got);
      if (R < 0) {
        if (errno == EINTR)
          continue;
        return makeError("{0}: read failed: {1}", Name, strerror(errno));
      }
      if (R == 0)
        break;
      Got += size_t(R);
    }
    return Got;
  }
  bool seekable() const override { return Seekable; }
  Expected<size_t> readAt(uint8_t *Dst, size_t N, uint64_t Off) override {
    ssize_t Got = preadFull(FD, Dst, N, Off);
    if (Got < 0)
      return makeError("{0}: read failed: {1}", Name, strerror(errno));
    return size_t(Got);
  }
  Error seek(uint64_t Off) override {
    if (::lseek(FD, off_t(Off), SEEK_SET) < 0)
      return makeError("{0}: seek failed: {1}", Name, strerror(errno));
    return Error::success();
  }
  uint64_t size() const override { return Size; }

private:
  int FD;
  bool Own;
  bool Seekable;
  uint64_t Size;
};

class BufferSource : public ByteSource {
public:
  BufferSource(ArrayRef<uint8_t> B, StringRef N) : Bytes(B) { Name = N.str(); }
  Expected<size_t> read(uint8_t *Dst, size_t N) override {
    Expected<size_t> R = readAt(Dst, N, Pos);
    if (R)
      Pos += *R;
    return R;
  }
  bool seekable() const override { return true; }
  Expected<size_t> readAt(uint8_t *Dst, size_t N, uint64_t Off) override {
    // Dst may be null when N is 0 (an empty vector's data()).
    if (Off >= Bytes.size() || N == 0)
      return 0;
    size_t K = std::min<uint64_t>(N, Bytes.size() - Off);
    memcpy(Dst, Bytes.data() + Off, K);
    return K;
  }
  Error seek(uint64_t Off) override {
    Pos = Off;
    return Error::success();
  }
  uint64_t size() const override { return Bytes.size(); }

private:
  ArrayRef<uint8_t> Bytes;
  uint64_t Pos = 0;
};

class PrefixSource : public ByteSource {
public:
  PrefixSource(std::unique_ptr<ByteSource> In, ArrayRef<uint8_t> P)
      : Inner(std::move(In)), Prefix(P.begin(), P.end()) {
    Name = Inner->name();
  }
  Expected<size_t> read(uint8_t *Dst, size_t N) override {
    size_t K = std::min(N, Prefix.size() - Used);
    if (K)
      memcpy(Dst, Prefix.data() + Used, K);
    Used += K;
    if (K == N)
      return K;
    Expected<size_t> R = Inner->read(Dst + K, N - K);
    if (!R)
      return R.takeError();
    return K + *R;
  }
  bool seekable() const override { return false; }
  Expected<size_t> readAt(uint8_t *, size_t, uint64_t) override {
    return makeError("{0}: cannot seek in a pipe", Name);
  }
  Error seek(uint64_t) override {
    return makeError("{0}: cannot seek in a pipe", Name);
  }
  uint64_t size() const override { return 0; }

private:
  std::unique_ptr<ByteSource> Inner;
  std::vector<uint8_t> Prefix;
  size_t Used = 0;
};

} // namespace

std::unique_ptr<ByteSource>
ByteSource::withPrefix(std::unique_ptr<ByteSource> Inner,
                       ArrayRef<uint8_t> Prefix) {
  return std::make_unique<PrefixSource>(std::move(Inner), Prefix);
}

Expected<std::unique_ptr<ByteSource>> ByteSource::openFile(StringRef Path) {
  int FD;
  bool Own = true;
  std::string Name = Path.str();
  if (Path == "-") {
    FD = STDIN_FILENO;
    Own = false;
    Name = "<stdin>";
  } else {
    FD = ::open(Name.c_str(), O_RDONLY | O_CLOEXEC);
    if (FD < 0)
      return makeError("{0}: cannot open: {1}", Path, strerror(errno));
  }
  struct stat St;
  if (::fstat(FD, &St) != 0) {
    int E = errno;
    if (Own)
      ::close(FD);
    return makeError("{0}: cannot stat: {1}", Name, strerror(E));
  }
  if (S_ISDIR(St.st_mode)) {
    if (Own)
      ::close(FD);
    return makeError("{0}: is a directory (perf record --threads writes a "
                     "directory; give its data files one by one)",
                     Name);
  }
  bool Seekable = S_ISREG(St.st_mode) || S_ISBLK(St.st_mode);
  if (Seekable && ::lseek(FD, 0, SEEK_CUR) < 0)
    Seekable = false;
  posix_fadvise(FD, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<ByteSource>(
      new FdSource(FD, Own, Seekable, Seekable ? St.st_size : 0, Name));
}

std::unique_ptr<ByteSource> ByteSource::fromBuffer(ArrayRef<uint8_t> Bytes,
                                                   StringRef Name) {
  return std::make_unique<BufferSource>(Bytes, Name);
}

} // namespace lbr2prof
