// Cache keys, entry serialization, and the memory/disk/compile tiers of
// KernelCache, against the counting compiler of FakeBackend.
#include "runtime/kernel_cache.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "runtime/files.h"
#include "runtime/sha256.h"
#include "tests/cpp/fake_backend.h"

namespace kiln::runtime {
namespace {

namespace fs = std::filesystem;

// A fresh directory under the system temp dir, removed with the object.
class CacheTestDir {
 public:
  CacheTestDir() {
    std::string tmpl = (fs::temp_directory_path() / "kiln-cache-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~CacheTestDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

CompileRequest sample_request() {
  CompileRequest r;
  r.source = "extern \"C\" __global__ void k(float* x) { x[0] = 1; }";
  r.options = {"-std=c++17", "-DN=4"};
  r.name_expressions = {"k"};
  r.source_name = "sample.cu";
  return r;
}

// Restores the process-wide stdlib include dir on scope exit.
class IncludeDirGuard {
 public:
  IncludeDirGuard() : saved_(stdlib_include_dir()) {}
  ~IncludeDirGuard() { set_stdlib_include_dir(saved_); }

 private:
  std::string saved_;
};

// --- cache_key ---

TEST(CacheKey, IsStableAndHex) {
  auto r = sample_request();
  std::string k1 = cache_key(r, "fake", "sm_90", "nvrtc 12.4");
  std::string k2 = cache_key(sample_request(), "fake", "sm_90", "nvrtc 12.4");
  EXPECT_EQ(k1, k2);
  ASSERT_EQ(k1.size(), 64u);
  EXPECT_EQ(k1.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(CacheKey, ChangesWhenAnyFieldChanges) {
  auto base = sample_request();
  std::vector<std::string> keys;
  keys.push_back(cache_key(base, "fake", "sm_90", "id"));
  keys.push_back(cache_key(base, "host", "sm_90", "id"));
  keys.push_back(cache_key(base, "fake", "sm_80", "id"));
  keys.push_back(cache_key(base, "fake", "sm_90", "id2"));
  auto vary = [&](auto mutate) {
    auto r = sample_request();
    mutate(r);
    keys.push_back(cache_key(r, "fake", "sm_90", "id"));
  };
  vary([](CompileRequest& r) { r.source += " "; });
  vary([](CompileRequest& r) { r.source_name = "other.cu"; });
  vary([](CompileRequest& r) { r.options.push_back("-O3"); });
  vary([](CompileRequest& r) { r.options[1] = "-DN=5"; });
  vary([](CompileRequest& r) { r.options.clear(); });
  vary([](CompileRequest& r) { r.name_expressions.push_back("k2"); });
  vary([](CompileRequest& r) { r.name_expressions.clear(); });
  // Field boundaries matter: the same bytes split differently hash apart.
  vary([](CompileRequest& r) { r.options = {"-std=c++17-DN=4"}; });
  vary([](CompileRequest& r) { r.options = {"-std=c++17", "-DN=4", ""}; });
  // An option moved into the name expressions is a different request.
  vary([](CompileRequest& r) { r.options = {"-std=c++17"}, r.name_expressions = {"-DN=4", "k"}; });
  std::set<std::string> distinct(keys.begin(), keys.end());
  EXPECT_EQ(distinct.size(), keys.size());
}

TEST(CacheKey, ChangesWithStdlibHeaders) {
  IncludeDirGuard guard;
  CacheTestDir a, b, c;
  fs::create_directories(a.path() + "/sub");
  spit(a.path() + "/sub/kiln.h", "int x = 1;");
  spit(b.path() + "/kiln.h", "int x = 1;");  // same contents, other path
  fs::create_directories(c.path() + "/sub");
  spit(c.path() + "/sub/kiln.h", "int x = 2;");  // same path, other contents
  auto r = sample_request();

  set_stdlib_include_dir("");
  std::string k_none = cache_key(r, "fake", "a", "id");
  set_stdlib_include_dir(a.path());
  std::string k_a = cache_key(r, "fake", "a", "id");
  EXPECT_EQ(cache_key(r, "fake", "a", "id"), k_a);
  set_stdlib_include_dir(b.path());
  std::string k_b = cache_key(r, "fake", "a", "id");
  set_stdlib_include_dir(c.path());
  std::string k_c = cache_key(r, "fake", "a", "id");
  std::set<std::string> distinct{k_none, k_a, k_b, k_c};
  EXPECT_EQ(distinct.size(), 4u);
  set_stdlib_include_dir("");
  EXPECT_EQ(cache_key(r, "fake", "a", "id"), k_none);
}

// --- serialization ---

CompiledModule sample_module() {
  CompiledModule m;
  m.binary = std::string("\x7f" "ELF\0\0\x01\xff", 8) + std::string(100, 'b');
  m.lowered_names = {{"k<float>", "_Z1kIfEvPT_"}, {"k<int>", "_Z1kIiEvPT_"}, {"", ""}};
  m.log = "warning: something";
  return m;
}

void expect_same(const CompiledModule& a, const CompiledModule& b) {
  EXPECT_EQ(a.binary, b.binary);
  EXPECT_EQ(a.lowered_names, b.lowered_names);
  EXPECT_EQ(a.log, b.log);
}

TEST(ModuleSerialization, RoundTrips) {
  auto m = sample_module();
  auto back = deserialize_module(serialize_module(m));
  ASSERT_TRUE(back.has_value());
  expect_same(*back, m);

  auto empty = deserialize_module(serialize_module(CompiledModule{}));
  ASSERT_TRUE(empty.has_value());
  expect_same(*empty, CompiledModule{});
}

TEST(ModuleSerialization, RejectsEveryTruncation) {
  std::string blob = serialize_module(sample_module());
  ASSERT_GT(blob.size(), 100u);
  for (size_t n = 0; n < blob.size(); ++n) {
    EXPECT_FALSE(deserialize_module(std::string_view(blob).substr(0, n)).has_value())
        << "prefix of " << n << " bytes accepted";
  }
}

TEST(ModuleSerialization, RejectsTrailingBytesAndHugeLengths) {
  std::string blob = serialize_module(sample_module());
  EXPECT_FALSE(deserialize_module(blob + "x").has_value());
  std::string huge_binary = blob;
  huge_binary[7] = char(0x7f);  // binary length ~2^63
  EXPECT_FALSE(deserialize_module(huge_binary).has_value());
  std::string bad_count = blob;
  size_t count_at = 8 + sample_module().binary.size();
  bad_count[count_at + 6] = char(0x01);  // 2^48 + 3 name pairs
  EXPECT_FALSE(deserialize_module(bad_count).has_value());
}

// --- KernelCache ---

class KernelCacheTest : public ::testing::Test {
 protected:
  CacheTestDir dir_;
  testing::FakeBackend fake_;
};

TEST_F(KernelCacheTest, MemoryHitThenDiskHit) {
  KernelCache cache(dir_.path());
  auto r = sample_request();
  auto first = cache.get_or_compile(r, fake_, "fake_arch");
  EXPECT_EQ(first->binary, "fake-binary|fake_arch|" + r.source);
  ASSERT_EQ(first->lowered_names.size(), 1u);
  EXPECT_EQ(first->lowered_names[0].second, "_Z_k");
  EXPECT_EQ(fake_.compile_calls, 1);

  auto second = cache.get_or_compile(r, fake_, "fake_arch");
  EXPECT_EQ(second.get(), first.get());
  EXPECT_EQ(cache.stats().memory_hits, 1u);

  cache.clear_memory();
  auto third = cache.get_or_compile(r, fake_, "fake_arch");
  EXPECT_EQ(fake_.compile_calls, 1);
  expect_same(*third, *first);
  auto s = cache.stats();
  EXPECT_EQ(s.memory_hits, 1u);
  EXPECT_EQ(s.disk_hits, 1u);
  EXPECT_EQ(s.compiles, 1u);
  EXPECT_EQ(s.corrupt_entries, 0u);

  // A second cache on the same directory (another process) reads the entry.
  KernelCache other(dir_.path());
  other.get_or_compile(r, fake_, "fake_arch");
  EXPECT_EQ(other.stats().disk_hits, 1u);
  EXPECT_EQ(fake_.compile_calls, 1);
}

TEST_F(KernelCacheTest, EntryLayoutAndNoTemporaryFilesLeft) {
  KernelCache cache(dir_.path());
  auto r = sample_request();
  cache.get_or_compile(r, fake_, "fake_arch");
  std::string key = cache_key(r, "fake", "fake_arch", fake_.identity);
  std::string path = cache.entry_path(key);
  EXPECT_EQ(path, dir_.path() + "/v1/" + key.substr(0, 2) + "/" + key);
  std::string bytes = slurp(path);
  ASSERT_GE(bytes.size(), 52u);
  EXPECT_EQ(bytes.substr(0, 8), "KILNKC01");
  size_t n_files = 0;
  for (auto& e : fs::recursive_directory_iterator(dir_.path())) {
    if (e.is_regular_file()) {
      ++n_files;
      EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
    }
  }
  EXPECT_EQ(n_files, 1u);
}

TEST_F(KernelCacheTest, TextEntriesShareTheHeaderAndTheIntegrityCheck) {
  KernelCache cache(dir_.path());
  const std::string key = sha256_hex("some transpiled kernel");
  EXPECT_FALSE(cache.load_text(key).has_value());
  cache.store_text(key, "// generated\nextern \"C\" __global__ void k() {}\n");
  EXPECT_EQ(cache.text_path(key), dir_.path() + "/v1/text/" + key.substr(0, 2) + "/" + key);
  std::string bytes = slurp(cache.text_path(key));
  EXPECT_EQ(bytes.substr(0, 8), "KILNKC01");
  KernelCache other(dir_.path());   // a new process
  EXPECT_EQ(other.load_text(key), std::optional<std::string>("// generated\nextern \"C\" __global__ void k() {}\n"));
  // One flipped byte of the text: ignored and counted, never returned.
  bytes.back() ^= 1;
  std::ofstream(cache.text_path(key), std::ios::binary) << bytes;
  EXPECT_FALSE(other.load_text(key).has_value());
  EXPECT_EQ(other.stats().corrupt_entries, 1u);
  EXPECT_FALSE(KernelCache("").load_text(key).has_value());   // memory-only: no disk
}

// Note [Regular cache files]: a FIFO (open() would block), a symlink to a
// device (read until memory runs out), a directory or an oversized file at an
// entry's path is a miss, counted as damage, and replaced by a regular entry.
TEST_F(KernelCacheTest, EntriesThatAreNotRegularFilesAreMissesAndReplaced) {
  auto r = sample_request();
  const std::string path = KernelCache(dir_.path()).entry_path(cache_key(r, "fake", "fake_arch", fake_.identity));
  const std::string key = sha256_hex("a transpiled kernel");
  const std::string text_path = KernelCache(dir_.path()).text_path(key);
  for (int kind = 0; kind < 4; ++kind) {
    for (const std::string& p : {path, text_path}) {
      fs::remove_all(p);
      fs::create_directories(fs::path(p).parent_path());
      if (kind == 0) ASSERT_EQ(::mkfifo(p.c_str(), 0644), 0);
      if (kind == 1) fs::create_symlink("/dev/zero", p);
      if (kind == 2) fs::create_directories(fs::path(p) / "inner");
      if (kind == 3) {
        std::ofstream{p};
        fs::resize_file(p, uint64_t{300} << 20);   // sparse: no disk used
      }
    }
    KernelCache cache(dir_.path());   // a new process
    int before = fake_.compile_calls;
    cache.get_or_compile(r, fake_, "fake_arch");
    EXPECT_EQ(fake_.compile_calls, before + 1) << kind;
    EXPECT_FALSE(cache.load_text(key).has_value()) << kind;
    EXPECT_EQ(cache.stats().corrupt_entries, 2u) << kind;
    cache.store_text(key, "text");
    for (const std::string& p : {path, text_path})
      EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(p))) << kind << " " << p;
    KernelCache again(dir_.path());
    again.get_or_compile(r, fake_, "fake_arch");
    EXPECT_EQ(again.stats().disk_hits, 1u) << kind;
    EXPECT_EQ(again.load_text(key), std::optional<std::string>("text")) << kind;
  }
}

TEST(RegularFiles, ReadRegularFileRefusesWhatIsNotOneAndReadsPrefixes) {
  CacheTestDir dir;
  const std::string f = dir.path() + "/f", fifo = dir.path() + "/fifo", link = dir.path() + "/link";
  std::ofstream(f, std::ios::binary) << "gpch and more";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  fs::create_symlink(f, link);
  EXPECT_EQ(read_regular_file(f, 100), std::optional<std::string>("gpch and more"));
  EXPECT_EQ(read_regular_file(f, 100, 4), std::optional<std::string>("gpch"));
  EXPECT_FALSE(read_regular_file(f, 5).has_value());          // over the bound
  EXPECT_FALSE(read_regular_file(fifo, 100).has_value());     // never blocks
  EXPECT_FALSE(read_regular_file(link, 100).has_value());     // symlinks not followed
  EXPECT_FALSE(read_regular_file(dir.path(), 100).has_value());
  EXPECT_FALSE(read_regular_file(dir.path() + "/absent", 100).has_value());
  EXPECT_TRUE(clear_for_entry(f));                            // a file stays (rename replaces it)
  EXPECT_TRUE(fs::exists(f));
  fs::create_directories(dir.path() + "/d/e");
  EXPECT_TRUE(clear_for_entry(dir.path() + "/d"));
  EXPECT_FALSE(fs::exists(dir.path() + "/d"));
}

TEST_F(KernelCacheTest, DifferentArchIsADifferentEntry) {
  KernelCache cache(dir_.path());
  auto r = sample_request();
  auto a = cache.get_or_compile(r, fake_, "arch_a");
  auto b = cache.get_or_compile(r, fake_, "arch_b");
  EXPECT_EQ(fake_.compile_calls, 2);
  EXPECT_NE(a->binary, b->binary);
}

enum class Damage { FlipPayloadByte, FlipHeaderDigestByte, Truncate, Garbage, Empty, WrongMagic,
                    WrongVersion };

class KernelCacheCorruption : public KernelCacheTest,
                              public ::testing::WithParamInterface<Damage> {};

TEST_P(KernelCacheCorruption, IsDetectedCountedRecompiledAndRewritten) {
  KernelCache cache(dir_.path());
  auto r = sample_request();
  auto good = cache.get_or_compile(r, fake_, "fake_arch");
  std::string path = cache.entry_path(cache_key(r, "fake", "fake_arch", fake_.identity));
  std::string valid = slurp(path);
  ASSERT_GT(valid.size(), 60u);

  std::string damaged = valid;
  switch (GetParam()) {
    case Damage::FlipPayloadByte: damaged[valid.size() - 20] ^= 0x01; break;
    case Damage::FlipHeaderDigestByte: damaged[30] ^= 0x80; break;
    case Damage::Truncate: damaged.resize(valid.size() / 2); break;
    case Damage::Garbage: damaged = std::string(valid.size(), '\xa5'); break;
    case Damage::Empty: damaged.clear(); break;
    case Damage::WrongMagic: damaged[7] = '2'; break;
    case Damage::WrongVersion: damaged[8] = 9; break;
  }
  spit(path, damaged);
  cache.clear_memory();

  auto again = cache.get_or_compile(r, fake_, "fake_arch");
  expect_same(*again, *good);
  auto s = cache.stats();
  EXPECT_EQ(s.corrupt_entries, 1u);
  EXPECT_EQ(s.compiles, 2u);
  EXPECT_EQ(s.disk_hits, 0u);
  EXPECT_EQ(fake_.compile_calls, 2);
  EXPECT_EQ(slurp(path), valid);

  cache.clear_memory();
  cache.get_or_compile(r, fake_, "fake_arch");
  EXPECT_EQ(cache.stats().disk_hits, 1u);
  EXPECT_EQ(fake_.compile_calls, 2);
}

INSTANTIATE_TEST_SUITE_P(AllDamage, KernelCacheCorruption,
                         ::testing::Values(Damage::FlipPayloadByte, Damage::FlipHeaderDigestByte,
                                           Damage::Truncate, Damage::Garbage, Damage::Empty,
                                           Damage::WrongMagic, Damage::WrongVersion));

TEST_F(KernelCacheTest, UnwritableDirectoryDegradesToMemory) {
  // A regular file where a directory should be: no mkdir can succeed, even
  // as root (which ignores permission bits).
  spit(dir_.path() + "/blocker", "not a directory");
  KernelCache cache(dir_.path() + "/blocker/cache");
  auto r = sample_request();
  auto first = cache.get_or_compile(r, fake_, "fake_arch");
  EXPECT_EQ(first->binary, "fake-binary|fake_arch|" + r.source);
  cache.get_or_compile(r, fake_, "fake_arch");
  EXPECT_EQ(cache.stats().memory_hits, 1u);
  cache.clear_memory();
  cache.get_or_compile(r, fake_, "fake_arch");
  EXPECT_EQ(fake_.compile_calls, 2);
  EXPECT_EQ(cache.stats().disk_hits, 0u);
  EXPECT_EQ(cache.stats().corrupt_entries, 0u);
}

TEST_F(KernelCacheTest, MemoryOnlyCache) {
  KernelCache cache("");
  EXPECT_EQ(cache.entry_path("ab" + std::string(62, '0')), "");
  auto r = sample_request();
  auto a = cache.get_or_compile(r, fake_, "fake_arch");
  auto b = cache.get_or_compile(r, fake_, "fake_arch");
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(fake_.compile_calls, 1);
}

TEST_F(KernelCacheTest, CompileErrorPropagatesAndIsNotCached) {
  KernelCache cache(dir_.path());
  auto bad = sample_request();
  bad.source = "#error nope";
  try {
    cache.get_or_compile(bad, fake_, "fake_arch");
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.log, "fake compile error");
  }
  EXPECT_THROW(cache.get_or_compile(bad, fake_, "fake_arch"), CompileError);
  EXPECT_EQ(fake_.compile_calls, 2);
  EXPECT_FALSE(fs::exists(cache.entry_path(cache_key(bad, "fake", "fake_arch", fake_.identity))));
  EXPECT_EQ(cache.stats().compiles, 0u);

  auto good = cache.get_or_compile(sample_request(), fake_, "fake_arch");
  EXPECT_EQ(good->binary, "fake-binary|fake_arch|" + sample_request().source);
  EXPECT_EQ(cache.stats().compiles, 1u);
}

TEST_F(KernelCacheTest, ConcurrentGetsAllSeeOneValidModule) {
  KernelCache cache(dir_.path());
  auto r = sample_request();
  constexpr int kThreads = 8;
  std::vector<std::shared_ptr<const CompiledModule>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { got[t] = cache.get_or_compile(r, fake_, "fake_arch"); });
  }
  for (auto& t : threads) t.join();
  for (auto& m : got) {
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->binary, "fake-binary|fake_arch|" + r.source);
  }
  auto s = cache.stats();
  EXPECT_EQ(s.memory_hits + s.disk_hits + s.compiles, size_t(kThreads));
  EXPECT_GE(fake_.compile_calls, 1);
  EXPECT_EQ(s.corrupt_entries, 0u);
  // After the race, one module is in memory for everyone.
  auto after = cache.get_or_compile(r, fake_, "fake_arch");
  EXPECT_EQ(cache.stats().memory_hits, s.memory_hits + 1);
  cache.clear_memory();
  cache.get_or_compile(r, fake_, "fake_arch");
  EXPECT_EQ(cache.stats().disk_hits, s.disk_hits + 1);
}

}  // namespace
}  // namespace kiln::runtime
