// Whole-file reads for the runtime (cache entries, compiler outputs, modules),
// and the temporary directories and child processes that compilers run in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kiln::runtime {

// The file's bytes, or nullopt when it cannot be opened or read.
std::optional<std::string> read_file(const std::string& path);

// The file's bytes; Error naming `what` and the reason when it cannot be read.
std::string read_file_or_throw(const std::string& path, const std::string& what);

// Note [Regular cache files]
// A disk cache reads only what it wrote: regular files. Anything else at an
// entry's path (a FIFO, whose open() would block forever; a symlink to
// /dev/zero, read until memory runs out; a device, socket or directory) is
// not an entry. read_regular_file opens with O_NOFOLLOW | O_NONBLOCK (a
// symlink at the last component fails, a FIFO opens at once), checks fstat's
// S_ISREG and the size bound, and only then reads. The cache treats every
// refusal as a miss and publishes a fresh entry over the path
// (clear_for_entry first removes a directory, which rename() cannot replace).

// The bytes of the regular file at `path`, at most `max_bytes` of them, or
// its first `prefix` bytes (fewer if it is shorter); nullopt when the path is
// not a regular file (symlinks are not followed), is larger than `max_bytes`
// or cannot be read. Never blocks on a FIFO or a device.
std::optional<std::string> read_regular_file(const std::string& path, uint64_t max_bytes,
                                             size_t prefix = SIZE_MAX);

// Makes `path` free for a rename() of a new entry onto it: a directory there
// (with its contents; symlinks inside are removed, never followed) is
// removed; a regular file, FIFO, socket, device node or symlink is left, as
// rename() replaces it. Returns false when a directory could not be removed.
bool clear_for_entry(const std::string& path);

// A private directory under the system's temporary one (`prefix` + 6 random
// characters), removed with its contents when this goes out of scope.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const char* prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

// Runs argv (argv[0] found on PATH) in directory `cwd` with stdout and stderr
// to `log_path`; its exit status, 128 + the signal when one ended it. Throws
// Error when the program cannot be started.
int run_process(const std::vector<std::string>& argv, const std::string& cwd, const std::string& log_path);

}  // namespace kiln::runtime
