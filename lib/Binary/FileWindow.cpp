//===- FileWindow.cpp - reads of a file through a window ------------------===//
#include "FileWindow.h"
#include "lbr2prof/Support/ReadAt.h"
#include <algorithm>
#include <fcntl.h>
#include <unistd.h>

namespace lbr2prof {

FileWindow::FileWindow(llvm::StringRef Path, size_t MinRead)
    : Fd(::open(Path.str().c_str(), O_RDONLY | O_CLOEXEC)), MinRead(MinRead) {}

FileWindow::~FileWindow() {
  if (Fd >= 0)
    ::close(Fd);
}

llvm::StringRef FileWindow::read(uint64_t At, size_t Len) {
  if (Fd < 0 || Len == 0)
    return llvm::StringRef();
  if (At >= Begin && At - Begin <= Buf.size() && Len <= Buf.size() - (At - Begin))
    return llvm::StringRef(Buf).substr(At - Begin, Len);
  Buf.resize(std::max(Len, MinRead));
  ssize_t Got = preadFull(Fd, Buf.data(), Buf.size(), At);
  if (Got < ssize_t(Len)) {
    Buf.clear();
    return llvm::StringRef();
  }
  Buf.resize(size_t(Got));
  Begin = At;
  return llvm::StringRef(Buf).substr(0, Len);
}

} // namespace lbr2prof
