// Compiled-module cache: memory first, then disk, then the compiler.
//
//   auto module = kernel_cache().get_or_compile(request, backend(), arch);
//
// Note [Cache keys]
// key = SHA-256 over (cache format version, kiln version, backend name,
// target arch, compiler identity, a fingerprint of the stdlib_kernels headers,
// options, name expressions, source name, source), each field
// length-prefixed so no two field lists hash alike. Computing a key runs
// no compiler: Backend::compiler_identity() answers from a version call or the
// compiler binary's path, size and mtime.
//
// Note [Cache files]
// Entries live at $KILN_CACHE_DIR (default ~/.cache/kiln)/v1/<key[0:2]>/<key>.
// An entry is a header (magic, format version, payload length, payload
// SHA-256) and the serialized CompiledModule. Writes go to a temporary file in
// the same directory and are renamed into place, so readers see a whole entry
// or none. A file that is truncated, corrupt or of another format, or that is
// no regular file at all (Note [Regular cache files] in files.h: a FIFO, a
// device, a symlink, a directory, or over the size bound) is ignored,
// recompiled and overwritten; it never crashes or blocks the process. An unwritable
// cache directory degrades to the in-memory cache.
// Text entries (load_text/store_text: the transpiler's generated source, kept
// so that a new process skips transpiling) are the same header over the text,
// at v1/text/<key[0:2]>/<key>, published and checked the same way: one disk
// cache, one integrity scheme, for hand-written and transpiled kernels alike.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "runtime/backend.h"

namespace kiln::runtime {

std::string cache_key(const CompileRequest& request, std::string_view backend_name,
                      std::string_view arch, std::string_view compiler_identity);

// SHA-256 of the stdlib_kernels headers under `dir` (Note [Stdlib fingerprint]).
std::string stdlib_fingerprint(const std::string& dir);

std::string serialize_module(const CompiledModule& module);
std::optional<CompiledModule> deserialize_module(std::string_view bytes);  // nullopt if invalid

class KernelCache {
 public:
  struct Stats {
    size_t memory_hits = 0, disk_hits = 0, compiles = 0, corrupt_entries = 0;
  };

  explicit KernelCache(std::string directory);  // "" = memory only
  std::shared_ptr<const CompiledModule> get_or_compile(const CompileRequest& request,
                                                       Backend& backend,
                                                       const std::string& arch);
  const std::string& directory() const { return directory_; }
  std::string entry_path(const std::string& key) const;

  // A text entry by key (a SHA-256 hex digest the caller computed): nullopt
  // when absent, unreadable or corrupt (a corrupt one counts in stats()).
  std::optional<std::string> load_text(const std::string& key);
  void store_text(const std::string& key, std::string_view text);
  std::string text_path(const std::string& key) const;   // "" when memory-only
  Stats stats() const;
  void clear_memory();  // drop the in-memory map (tests use it to force disk reads)

 private:
  std::string directory_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const CompiledModule>> memory_;
  Stats stats_;
};

// The process-wide cache rooted at $KILN_CACHE_DIR or ~/.cache/kiln.
KernelCache& kernel_cache();

}  // namespace kiln::runtime
