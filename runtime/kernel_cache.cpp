// Compiled-module cache: keys, entry (de)serialization, memory and disk tiers.
// See Note [Cache keys] and Note [Cache files] in kernel_cache.h.
#include "runtime/kernel_cache.h"

#include "runtime/files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <vector>

#include "runtime/sha256.h"

#ifndef KILN_VERSION
#error "KILN_VERSION must be defined by the build (CMakeLists.txt sets it for kiln_runtime)"
#endif

namespace kiln::runtime {
namespace {

// Bump when the key fields, the payload layout or the header change. The
// cache root's "v1" directory changes only with an incompatible layout of
// the directory itself.
constexpr uint32_t kCacheFormatVersion = 1;
constexpr char kEntryMagic[8] = {'K', 'I', 'L', 'N', 'K', 'C', '0', '1'};
// magic(8) + format version(4) + payload length(8) + payload SHA-256(32)
constexpr size_t kHeaderBytes = 8 + 4 + 8 + 32;
// Note [Regular cache files] (runtime/files.h): a larger file is not an entry
// (a compiled module is a few MB; a sparse or hostile file is never read).
constexpr uint64_t kMaxEntryBytes = uint64_t{256} << 20;

// --- little-endian fixed-width integers and length-prefixed fields ---

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(char(uint8_t(v >> (8 * i))));
}
void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(char(uint8_t(v >> (8 * i))));
}
void put_field(std::string& out, std::string_view s) {
  put_u64(out, s.size());
  out.append(s);
}

// Bounds-checked reader over a byte string; every read fails (returns false)
// instead of reading past the end.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool u32(uint32_t& v) {
    if (remaining() < 4) return false;
    v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(uint8_t(bytes_[pos_ + i])) << (8 * i);
    pos_ += 4;
    return true;
  }
  bool u64(uint64_t& v) {
    if (remaining() < 8) return false;
    v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(uint8_t(bytes_[pos_ + i])) << (8 * i);
    pos_ += 8;
    return true;
  }
  bool raw(size_t n, std::string_view& s) {
    if (remaining() < n) return false;
    s = bytes_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool field(std::string& s) {
    uint64_t n;
    std::string_view view;
    if (!u64(n) || n > remaining() || !raw(size_t(n), view)) return false;
    s.assign(view);
    return true;
  }
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};


// The payload of `file` if it is a whole, intact entry (Note [Cache files]);
// nullopt otherwise.
std::optional<std::string_view> entry_payload(std::string_view file) {
  Reader r(file);
  std::string_view magic, digest;
  uint32_t version;
  uint64_t payload_length;
  if (!r.raw(8, magic) || magic != std::string_view(kEntryMagic, 8)) return std::nullopt;
  if (!r.u32(version) || version != kCacheFormatVersion) return std::nullopt;
  if (!r.u64(payload_length) || !r.raw(32, digest)) return std::nullopt;
  if (payload_length != r.remaining()) return std::nullopt;
  std::string_view payload = file.substr(kHeaderBytes);
  Sha256 h;
  h.update(payload);
  auto actual = h.digest();
  if (std::memcmp(actual.data(), digest.data(), 32) != 0) return std::nullopt;
  return payload;
}

// The bytes at `path` if it is a regular file of at most kMaxEntryBytes
// (Note [Regular cache files]); `damaged` is set when something else is
// there (a FIFO, device, symlink, directory, or an oversized file): a miss
// that the caller's new entry replaces.
std::optional<std::string> read_entry(const std::string& path, bool& damaged) {
  std::optional<std::string> bytes = read_regular_file(path, kMaxEntryBytes);
  struct stat st {};
  if (!bytes && ::lstat(path.c_str(), &st) == 0) damaged = true;
  return bytes;
}

std::string make_entry(std::string_view payload) {
  Sha256 h;
  h.update(payload);
  auto digest = h.digest();
  std::string out;
  out.reserve(kHeaderBytes + payload.size());
  out.append(kEntryMagic, 8);
  put_u32(out, kCacheFormatVersion);
  put_u64(out, payload.size());
  out.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  out.append(payload);
  return out;
}

// Publishes `bytes` at `path` atomically: a unique temporary file in the same
// directory, then rename(). Returns false (and leaves nothing behind) on any
// failure; the caller carries on memory-only.
bool write_entry_atomically(const std::string& path, const std::string& bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path target(path);
  fs::create_directories(target.parent_path(), ec);
  if (ec) return false;
  std::string tmpl = path + ".tmp.XXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return false;
  const char* p = bytes.data();
  size_t left = bytes.size();
  bool ok = true;
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    p += n;
    left -= size_t(n);
  }
  // mkstemp creates 0600; entries are shareable like any cache file.
  ::fchmod(fd, 0644);
  if (::close(fd) != 0) ok = false;
  // A directory in the entry's place is removed first: rename() replaces
  // anything else (Note [Regular cache files]).
  if (ok && (!clear_for_entry(path) || ::rename(tmpl.c_str(), path.c_str()) != 0)) ok = false;
  if (!ok) ::unlink(tmpl.c_str());
  return ok;
}

}  // namespace

// Note [Stdlib fingerprint]
// Generated kernels #include stdlib_kernels headers, so a header edit must
// change every key. The fingerprint is SHA-256 over (relative path, contents)
// of every regular file under the directory, in sorted path order. It is
// computed once per process for each directory string (in practice once: the
// directory is set at start-up); "" gives "".
std::string stdlib_fingerprint(const std::string& dir) {
  if (dir.empty()) return "";
  static std::mutex mutex;
  static std::map<std::string, std::string> computed;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = computed.find(dir);
  if (it != computed.end()) return it->second;

  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator walk(dir, ec), end; !ec && walk != end;
       walk.increment(ec)) {
    if (walk->is_regular_file(ec)) files.push_back(walk->path());
  }
  std::sort(files.begin(), files.end());
  Sha256 h;
  std::string framed;
  for (const auto& path : files) {
    framed.clear();
    put_field(framed, path.lexically_relative(dir).generic_string());
    put_field(framed, read_file(path.string()).value_or(""));
    h.update(framed);
  }
  if (ec) h.update("<directory walk failed: " + ec.message() + ">");
  std::string fingerprint = h.hex_digest();
  computed.emplace(dir, fingerprint);
  return fingerprint;
}

namespace {

// Note [Source on compile errors]
// KILN_DUMP_CUDA_SOURCE_ON_ERROR=1 (CuPy's CUPY_DUMP_CUDA_SOURCE_ON_ERROR)
// appends the source that failed, with line numbers, to the CompileError's
// message, for every kernel kiln compiles (generated ones included).
bool dump_source_on_error() {
  const char* v = std::getenv("KILN_DUMP_CUDA_SOURCE_ON_ERROR");
  return v && std::string_view(v) == "1";
}

std::string numbered_source(const CompileRequest& request) {
  std::string out = "==== " + request.source_name + " ====\n";
  size_t line = 1, start = 0;
  while (start < request.source.size()) {
    size_t end = request.source.find('\n', start);
    if (end == std::string::npos) end = request.source.size();
    std::string number = std::to_string(line++);
    out += std::string(number.size() < 4 ? 4 - number.size() : 0, ' ') + number + " " +
           request.source.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out + "====";
}

}  // namespace

std::string cache_key(const CompileRequest& request, std::string_view backend_name,
                      std::string_view arch, std::string_view compiler_identity) {
  std::string framed;
  put_u32(framed, kCacheFormatVersion);
  put_field(framed, KILN_VERSION);
  put_field(framed, backend_name);
  put_field(framed, arch);
  put_field(framed, compiler_identity);
  put_field(framed, stdlib_fingerprint(stdlib_include_dir()));
  put_u64(framed, request.options.size());
  for (const auto& o : request.options) put_field(framed, o);
  put_u64(framed, request.name_expressions.size());
  for (const auto& e : request.name_expressions) put_field(framed, e);
  put_field(framed, request.source_name);
  put_field(framed, request.source);
  // Only a request for another compiler adds a field, so every other key
  // stays what it was (the source, last and length-prefixed, ends the frame).
  if (!request.compiler.empty()) put_field(framed, "compiler=" + request.compiler);
  return sha256_hex(framed);
}

// Payload layout: binary, count of lowered names, (expression, symbol) pairs,
// log; every string length-prefixed (u64 LE). deserialize_module accepts
// exactly this and nothing longer or shorter.
std::string serialize_module(const CompiledModule& module) {
  std::string out;
  size_t size = 8 * 3 + module.binary.size() + module.log.size();
  for (const auto& [e, s] : module.lowered_names) size += 16 + e.size() + s.size();
  out.reserve(size);
  put_field(out, module.binary);
  put_u64(out, module.lowered_names.size());
  for (const auto& [expression, symbol] : module.lowered_names) {
    put_field(out, expression);
    put_field(out, symbol);
  }
  put_field(out, module.log);
  return out;
}

std::optional<CompiledModule> deserialize_module(std::string_view bytes) {
  Reader r(bytes);
  CompiledModule m;
  uint64_t n_names;
  if (!r.field(m.binary) || !r.u64(n_names)) return std::nullopt;
  // Each pair takes at least 16 bytes: a count larger than that is a lie.
  if (n_names > r.remaining() / 16) return std::nullopt;
  m.lowered_names.resize(size_t(n_names));
  for (auto& [expression, symbol] : m.lowered_names) {
    if (!r.field(expression) || !r.field(symbol)) return std::nullopt;
  }
  if (!r.field(m.log) || r.remaining() != 0) return std::nullopt;
  return m;
}

KernelCache::KernelCache(std::string directory) : directory_(std::move(directory)) {}

std::string KernelCache::entry_path(const std::string& key) const {
  if (directory_.empty()) return "";
  return directory_ + "/v1/" + key.substr(0, 2) + "/" + key;
}

KernelCache::Stats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void KernelCache::clear_memory() {
  std::lock_guard<std::mutex> lock(mutex_);
  memory_.clear();
}

// The lock covers only the map and the counters: disk reads, compiles and
// disk writes run unlocked, so two threads may compile one key at once. Both
// results are valid; the first one inserted wins and both callers get it.
std::shared_ptr<const CompiledModule> KernelCache::get_or_compile(const CompileRequest& request,
                                                                  Backend& backend,
                                                                  const std::string& arch) {
  std::string key = cache_key(request, backend.name(), arch, backend.compiler_identity());
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = memory_.find(key);
    if (it != memory_.end()) {
      ++stats_.memory_hits;
      return it->second;
    }
  }

  std::string path = entry_path(key);
  bool corrupt = false;
  std::shared_ptr<const CompiledModule> module;
  if (!path.empty()) {
    if (std::optional<std::string> file = read_entry(path, corrupt)) {
      auto payload = entry_payload(*file);
      auto parsed = payload ? deserialize_module(*payload) : std::nullopt;
      if (parsed) {
        module = std::make_shared<const CompiledModule>(std::move(*parsed));
      } else {
        corrupt = true;
      }
    }
  }
  bool from_disk = module != nullptr;
  if (!module) {
    // CompileError propagates; nothing is cached for this key.
    try {
      module = std::make_shared<const CompiledModule>(backend.compile(request, arch));
    } catch (const CompileError& e) {
      if (!dump_source_on_error()) throw;
      throw CompileError(std::string(e.what()) + "\n" + numbered_source(request), e.log);
    }
    if (!path.empty()) write_entry_atomically(path, make_entry(serialize_module(*module)));
  }

  std::lock_guard<std::mutex> lock(mutex_);
  if (corrupt) ++stats_.corrupt_entries;
  if (from_disk) {
    ++stats_.disk_hits;
  } else {
    ++stats_.compiles;
  }
  auto [it, inserted] = memory_.emplace(key, module);
  return it->second;
}

std::string KernelCache::text_path(const std::string& key) const {
  if (directory_.empty()) return "";
  return directory_ + "/v1/text/" + key.substr(0, 2) + "/" + key;
}

std::optional<std::string> KernelCache::load_text(const std::string& key) {
  std::string path = text_path(key);
  if (path.empty()) return std::nullopt;
  bool damaged = false;
  std::optional<std::string> file = read_entry(path, damaged);
  if (file) {
    if (auto payload = entry_payload(*file)) return std::string(*payload);
  } else if (!damaged) {
    return std::nullopt;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.corrupt_entries;
  return std::nullopt;
}

void KernelCache::store_text(const std::string& key, std::string_view text) {
  std::string path = text_path(key);
  if (!path.empty()) write_entry_atomically(path, make_entry(text));
}

KernelCache& kernel_cache() {
  // Never destroyed: modules may be looked up from other static destructors.
  static KernelCache* cache = [] {
    std::string dir;
    if (const char* env = std::getenv("KILN_CACHE_DIR")) {
      dir = env;  // set but empty: memory-only
    } else if (const char* home = std::getenv("HOME"); home && *home) {
      dir = std::string(home) + "/.cache/kiln";
    }
    return new KernelCache(dir);
  }();
  return *cache;
}

}  // namespace kiln::runtime
