#include "runtime/files.h"

#include <cerrno>
#include <cstring>
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

}  // namespace kiln::runtime
