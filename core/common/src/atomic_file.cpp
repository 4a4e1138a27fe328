#include "tb/common/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

namespace tb {
namespace {

std::string describeErrno(int code) { return std::generic_category().message(code); }

// write(2) may write less than asked; loop until all is out or it fails.
bool writeAll(int fd, std::string_view content) {
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

ErrorKind writeFailureKind(int code) {
  return code == ENOTDIR || code == EISDIR || code == EEXIST ? ErrorKind::BadInput : ErrorKind::Io;
}

Status writeFileAtomically(const std::filesystem::path& path, std::string_view content) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  if (ec) {
    return makeError(writeFailureKind(ec.value()),
                     "cannot create directory '" + parent.string() + "': " + ec.message());
  }

  std::string tmpl = (parent / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) {
    const int openErrno = errno;
    return makeError(writeFailureKind(openErrno),
                     "cannot write '" + path.string() + "': " + describeErrno(openErrno));
  }
  // mkstemp creates 0600; a report or config should be as readable as any file.
  ::fchmod(fd, 0644);
  const bool written = writeAll(fd, content) && ::fsync(fd) == 0;
  const int writeErrno = errno;
  ::close(fd);
  if (!written) {
    ::unlink(tmpl.c_str());
    return makeError(ErrorKind::Io,
                     "cannot write '" + path.string() + "': " + describeErrno(writeErrno));
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int renameErrno = errno;
    ::unlink(tmpl.c_str());
    return makeError(writeFailureKind(renameErrno),
                     "cannot write '" + path.string() + "': " + describeErrno(renameErrno));
  }
  return {};
}

Expected<std::string> readFile(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return makeError(ErrorKind::NotFound, "file '" + path.string() + "' does not exist");
  }
  if (std::filesystem::is_directory(path, ec)) {
    return makeError(ErrorKind::BadInput, "'" + path.string() + "' is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return makeError(ErrorKind::Io, "cannot read '" + path.string() + "': " + describeErrno(errno));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    return makeError(ErrorKind::Io, "cannot read '" + path.string() + "'");
  }
  return buffer.str();
}

}  // namespace tb
