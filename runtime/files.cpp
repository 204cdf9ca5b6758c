#include "runtime/files.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "runtime/errors.h"

extern char** environ;

namespace kiln::runtime {

TempDir::TempDir(const char* prefix) {
  std::string tmpl = (std::filesystem::temp_directory_path() / (std::string(prefix) + "XXXXXX")).string();
  if (!mkdtemp(tmpl.data())) throw Error("cannot create a temporary directory " + tmpl + ": " + std::strerror(errno));
  path = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

int run_process(const std::vector<std::string>& argv, const std::string& cwd, const std::string& log_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw Error("cannot start '" + argv[0] + "': " + std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

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
