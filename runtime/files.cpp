#include "runtime/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "runtime/errors.h"

namespace kiln::runtime {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return bytes;
}

std::string read_file_or_throw(const std::string& path, const std::string& what) {
  errno = 0;
  auto bytes = read_file(path);
  if (!bytes)
    throw Error(what + ": cannot read '" + path + "'" + (errno ? std::string(": ") + std::strerror(errno) : ""));
  return *bytes;
}

// Note [Regular cache files]
std::optional<std::string> read_regular_file(const std::string& path, uint64_t max_bytes, size_t prefix) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
      static_cast<uint64_t>(st.st_size) > max_bytes)
    return std::nullopt;
  size_t want = static_cast<size_t>(st.st_size) < prefix ? static_cast<size_t>(st.st_size) : prefix;
  std::string bytes(want, '\0');
  size_t got = 0;
  while (got < want) {
    ssize_t n = ::read(fd, bytes.data() + got, want - got);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;  // shrank while we read: what is there
    got += static_cast<size_t>(n);
  }
  bytes.resize(got);
  return bytes;
}

bool clear_for_entry(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return true;
  std::error_code ec;
  std::filesystem::remove_all(path, ec);  // removes symlinks inside, never their targets
  return !ec;
}

}  // namespace kiln::runtime
