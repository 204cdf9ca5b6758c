#include "runtime/host/cpu_compiler.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>

#include "kiln/host_abi.h"
#include "runtime/files.h"
#include "runtime/kernel_cache.h"
#include "runtime/sha256.h"
#include "runtime/kernel_signature.h"

namespace kiln::runtime::host {
namespace {

// Options meant for NVRTC that have no host meaning are dropped; -D/-U/-I and
// anything unknown pass through.
bool gpu_only_option(const std::string& o) {
  static const char* kPrefixes[] = {"-arch", "--gpu-architecture", "--use_fast_math", "-use_fast_math",
                                    "-lineinfo", "--generate-line-info", "-G", "--device-debug",
                                    "-rdc", "--relocatable-device-code", "-default-device",
                                    "--expt-", "-maxrregcount", "--maxrregcount", "-ftz", "--ftz",
                                    "-prec", "--prec", "-fmad", "--fmad", "-dopt", "--dopt",
                                    "-dlto", "--extensible-whole-program", "-ewp", "-restrict",
                                    "--restrict", "-Xptxas", "--ptxas-options", "--std=c++03",
                                    "--device-as-default-execution-space", "-dc", "--device-c",
                                    "-dw", "--device-w", "--minimal", "-minimal", "--split-compile",
                                    "-split-compile", "--optimization-info", "-opt-info", "--time",
                                    "-time", "--builtin-move-forward", "--builtin-initializer-list",
                                    "-no-source-include", "--no-source-include"};
  for (const char* p : kPrefixes)
    if (o.rfind(p, 0) == 0) return true;
  return false;
}

// `extern __shared__ [attrs] T name[];` -> a pointer to this worker's dynamic
// shared buffer, on the same number of lines.
std::string rewrite_dynamic_shared(const std::string& source) {
  static const std::regex decl(
      R"(extern\s+__shared__\s+((?:__align__\s*\(\s*\d+\s*\)\s*|alignas\s*\(\s*\d+\s*\)\s*)*)([^;\[\]]*?)\s*\b(\w+)\s*\[\s*\]\s*;)");
  std::string out;
  auto begin = std::sregex_iterator(source.begin(), source.end(), decl);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    out.append(source, last, static_cast<size_t>(m.position(0)) - last);
    std::string type = m[2].str(), name = m[3].str();
    std::string text = m[0].str();
    out += "static thread_local " + type + "* const " + name + " = reinterpret_cast<" + type +
           "*>(kiln_host::dynamic_shared());";
    for (char c : text)
      if (c == '\n') out += '\n';
    last = static_cast<size_t>(m.position(0) + m.length(0));
  }
  out.append(source, last, std::string::npos);
  return out;
}

std::string c_string_literal(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Every non-template kernel the source defines, as (registered name, C++
// expression naming it): extern "C" ones by their name, others by their
// namespace-qualified name. A name declared with different parameter lists
// (an overload set) is left to name expressions.
std::vector<std::pair<std::string, std::string>> registrable_kernels(const std::string& source) {
  std::vector<KernelDecl> decls = scan_kernels(source);
  auto qualified = [](const KernelDecl& k) { return k.scope.empty() ? k.name : k.scope + "::" + k.name; };
  auto same_params = [](const KernelDecl& a, const KernelDecl& b) {
    if (a.params.size() != b.params.size()) return false;
    for (size_t i = 0; i < a.params.size(); ++i)
      if (a.params[i].type != b.params[i].type) return false;
    return true;
  };
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < decls.size(); ++i) {
    const KernelDecl& k = decls[i];
    if (k.is_template) continue;
    bool first = true, overloaded = false;
    for (size_t j = 0; j < decls.size(); ++j) {
      if (j == i || decls[j].is_template || qualified(decls[j]) != qualified(k)) continue;
      if (j < i) first = false;
      if (!same_params(decls[j], k)) overloaded = true;
    }
    if (!first || overloaded) continue;
    out.emplace_back(qualified(k), "::" + qualified(k));
  }
  return out;
}

// Note [Host precompiled prelude]
// Every host kernel is compiled with kiln/host_prelude.h included first
// (host_kernel.h and the engine headers generated kernels include). Parsing
// it is most of a small kernel's compile (g++ 12: 0.45 s of a float32 add's
// 0.65 s), so the first compile of a process with a disk cache builds it once
// as a GCC precompiled header, <cache>/v1/host-pch/<key>/kiln/host_prelude.h.gch,
// key = SHA-256 of the compiler identity, the flags and the stdlib headers'
// fingerprint; every compile then puts that directory first on the include
// path, where g++ finds the .gch before the header itself. A request that
// changes what the header would mean (-D, -U, another -std) does not match
// the .gch, which g++ then ignores and reads the header: the same module,
// compiled slower. The file is written under a temporary name and renamed, so
// concurrent processes never read half of one. Other compilers (clang, whose
// precompiled headers are errors rather than skipped when they mismatch),
// memory-only caches and KILN_HOST_NO_PCH=1 get no precompiled header. A
// damaged one never fails a compile: g++ skips an empty or overwritten .gch
// (and it is built again by the next process), and a compile that fails on a
// truncated one is run again without it, and the file deleted.
const char* const kPrelude = "kiln/host_prelude.h";

// The flags a host kernel and its precompiled prelude share.
// -fstack-clash-protection: a frame larger than a page (a 16 MB local array)
// touches each page on the way down, so it hits the fiber stack's guard page
// and is reported as a stack overflow (Note [Kernel faults] in
// kernel_faults.h) instead of writing past the guard into other memory.
std::vector<std::string> common_flags() {
  return {"-std=c++17", "-O2", "-fPIC", "-fno-gnu-unique", "-w", "-fstack-clash-protection"};
}

bool compiler_is_gcc(const std::string& compiler) {
  TempDir dir("kiln-host-");
  const std::string log = (dir.path / "version.txt").string();
  if (run_process({compiler, "--version"}, dir.path.string(), log) != 0) return false;
  const std::string text = read_file(log).value_or("");
  return text.find("clang") == std::string::npos && text.find("Free Software Foundation") != std::string::npos;
}

// The directory holding kiln/host_prelude.h.gch for this compiler and
// headers, built on first use; "" when there is none (see the Note).
std::mutex pch_mutex;
std::string pch_result;   // guarded by pch_mutex once built

std::string prelude_pch_dir() {
  static std::once_flag once;
  std::string& result = pch_result;
  std::call_once(once, [&result] {
    const std::string& cache = kernel_cache().directory();
    const std::string& include = stdlib_include_dir();
    if (cache.empty() || include.empty() || std::getenv("KILN_HOST_NO_PCH")) return;
    const std::string compiler = host_compiler_path();
    const std::vector<std::string> flags = common_flags();
    std::string id = host_compiler_identity() + '\0' + stdlib_fingerprint(include);
    for (const auto& f : flags) id += '\0' + f;
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(cache) / "v1" / "host-pch" / sha256_hex(id).substr(0, 32);
    const fs::path gch = dir / "kiln" / "host_prelude.h.gch";
    std::error_code ec;
    // A whole one starts with GCC's magic, "gpch"; an empty or overwritten
    // one is built again (a truncated one fails its first compile).
    // Only a regular file is opened (Note [Regular cache files] in runtime/files.h).
    if (read_regular_file(gch.string(), UINT64_MAX, 4) == std::optional<std::string>("gpch")) {
      result = dir.string();
      return;
    }
    if (!compiler_is_gcc(compiler)) return;
    fs::create_directories(gch.parent_path(), ec);
    if (ec) return;
    TempDir work("kiln-host-");
    const fs::path built = work.path / "host_prelude.h.gch";
    std::vector<std::string> argv = {compiler, "-x", "c++-header"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back("-I" + fs::absolute(include).string());
    argv.push_back((fs::absolute(include) / kPrelude).string());
    argv.push_back("-o");
    argv.push_back(built.string());
    if (run_process(argv, work.path.string(), (work.path / "log.txt").string()) != 0) return;
    // Renamed into place from the same directory: atomic for concurrent readers.
    const fs::path staged = gch.string() + ".tmp" + std::to_string(getpid());
    fs::copy_file(built, staged, fs::copy_options::overwrite_existing, ec);
    if (!ec && !clear_for_entry(gch.string())) ec = std::make_error_code(std::errc::is_a_directory);
    if (!ec) fs::rename(staged, gch, ec);
    if (ec) {
      fs::remove(staged, ec);
      return;
    }
    result = dir.string();
  });
  std::lock_guard<std::mutex> lock(pch_mutex);
  return result;
}

// The precompiled header failed a compile that succeeds without it: delete it
// (the next process builds it again) and stop using it in this one.
void drop_prelude_pch() {
  std::lock_guard<std::mutex> lock(pch_mutex);
  if (pch_result.empty()) return;
  std::error_code ec;
  std::filesystem::remove(std::filesystem::path(pch_result) / "kiln" / "host_prelude.h.gch", ec);
  pch_result.clear();
}

}  // namespace

std::string host_compiler_path() {
  const char* env = std::getenv("KILN_HOST_CXX");
  if (!env || !*env) env = std::getenv("CXX");
  std::string name = (env && *env) ? env : "c++";
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return name;
}

std::string host_compiler_identity() {
  std::string path = host_compiler_path();
  std::error_code ec;
  auto resolved = std::filesystem::canonical(path, ec);
  std::string real = ec ? path : resolved.string();
  struct stat st {};
  if (stat(real.c_str(), &st) != 0) return "host-cxx:" + real + ":missing";
  std::string id = "host-cxx:" + real + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtime) +
                   ":abi" + std::to_string(kiln_host::kAbiVersion);
  // So are the flags every kernel is built with: a module cached before a
  // flag changed (say, -fstack-clash-protection) is not reused without it.
  for (const auto& flag : common_flags()) id += ":" + flag;
  // The prelude is part of the compiler: a changed kiln/host_*.h must not
  // reuse modules cached with the old one.
  if (!stdlib_include_dir().empty()) {
    std::vector<std::string> headers;
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(stdlib_include_dir()) / "kiln", ec)) {
      std::string file = entry.path().filename().string();
      if (file.rfind("host_", 0) == 0) headers.push_back(entry.path().string());
    }
    std::sort(headers.begin(), headers.end());
    for (const auto& h : headers) {
      struct stat hs {};
      if (stat(h.c_str(), &hs) == 0)
        id += ":" + std::filesystem::path(h).filename().string() + "=" + std::to_string(hs.st_size) + "@" +
              std::to_string(hs.st_mtime);
    }
  }
  return id;
}

std::string host_module_source(const CompileRequest& request) {
  std::string source = rewrite_dynamic_shared(request.source);
  std::ostringstream trailer;
  trailer << "\n#line 1 \"<kiln host kernel table>\"\n"
          << "static const kiln_host::KernelEntry kiln_host_entries[] = {\n";
  size_t count = 0;
  for (const auto& [name, qualified] : registrable_kernels(request.source)) {
    trailer << "  kiln_host::make_entry(" << c_string_literal(name) << ", &" << qualified << "),\n";
    ++count;
  }
  for (const auto& expr : request.name_expressions) {
    // "f<float>" and "&f<float>" name the same kernel.
    std::string target = expr.size() > 1 && expr[0] == '&' ? expr.substr(1) : expr;
    trailer << "  kiln_host::make_entry(" << c_string_literal(expr) << ", &" << target << "),\n";
    ++count;
  }
  if (count == 0) trailer << "  kiln_host::KernelEntry{nullptr, nullptr, nullptr, 0, nullptr, nullptr},\n";
  trailer << "};\n"
          << "extern \"C\" __attribute__((used, visibility(\"default\"))) const kiln_host::KernelEntry* "
             "kiln_host_kernels(int* count) {\n  *count = "
          << std::to_string(count) << ";\n  return kiln_host_entries;\n}\n";
  return source + trailer.str();
}

// Note [Host CUDA headers]
// Kernels written for CUDA include the toolkit's headers: <cuda_fp16.h>,
// <cooperative_groups.h>, <cub/block/block_reduce.cuh>, ... The host backend
// puts stdlib_kernels/host_cuda/ on the include path, after kiln's own
// headers and before the request's -I options and the system's (where a
// machine with the toolkit in /usr/local/include would otherwise offer its
// device-only headers), so those names reach kiln's host implementations
// (kiln/fp16_api.h, kiln/host_cooperative_groups.h, kiln/host_cub.h). NVRTC
// never sees the folder: it reads the toolkit's and CCCL's headers (Note
// [CCCL headers] in runtime/cuda/cccl_include.h). docs/kernels.md lists what
// each offers.
CompiledModule compile_host_module(const CompileRequest& request) {
  TempDir dir("kiln-host-");
  // The file carries the source's own name and the compiler runs in its
  // directory, so diagnostics read `kernel.cu:3:5: error: ...` and quote the
  // line with a caret.
  std::string name = request.source_name.empty() ? "kernel.cu" : request.source_name;
  std::string file_name = std::filesystem::path(name).filename().string();
  if (file_name.empty() || file_name == "module.so" || file_name == "log.txt") file_name = "kernel.cu";
  std::filesystem::path src = dir.path / file_name, out = dir.path / "module.so", log = dir.path / "log.txt";
  {
    std::ofstream f(src, std::ios::binary);
    if (file_name != name) f << "#line 1 " << c_string_literal(name) << "\n";
    f << host_module_source(request);
  }
  std::vector<std::string> argv = {host_compiler_path(), "-x", "c++"};
  const std::vector<std::string> flags = common_flags();
  argv.insert(argv.end(), flags.begin(), flags.end());
  const size_t std_flag = 3;   // argv[3]: -std=, replaced by a request's own
  argv.push_back("-shared");
  argv.push_back("-Wl,-Bsymbolic");
  // The compiler runs in the temporary directory: include paths are made absolute.
  auto absolute = [](const std::string& dir) { return std::filesystem::absolute(dir).string(); };
  const std::string pch = prelude_pch_dir();
  if (!pch.empty()) argv.push_back("-I" + pch);
  const size_t pch_index = pch.empty() ? 0 : argv.size() - 1;
  if (!stdlib_include_dir().empty()) {
    argv.push_back("-I" + absolute(stdlib_include_dir()));
    // Note [Host CUDA headers]: <cuda_fp16.h>, <cooperative_groups.h>, <cub/...>
    argv.push_back("-I" + absolute(stdlib_include_dir() + "/host_cuda"));
  }
  argv.push_back("-include");
  argv.push_back(kPrelude);
  for (const auto& o : request.options) {
    if (gpu_only_option(o)) continue;
    if (o.rfind("-std=", 0) == 0 || o.rfind("--std=", 0) == 0) {
      std::string level = o.substr(o.find('=') + 1);
      argv[std_flag] = "-std=" + (level == "c++11" || level == "c++14" ? std::string("c++17") : level);
      continue;
    }
    if (o.size() > 2 && o.rfind("-I", 0) == 0) {
      argv.push_back("-I" + absolute(o.substr(2)));
      continue;
    }
    // NVRTC's long spellings of the preprocessor options.
    auto value_of = [&o](const char* flag) -> const char* {
      size_t n = std::strlen(flag);
      return o.compare(0, n, flag) == 0 ? o.c_str() + n : nullptr;
    };
    if (const char* v = value_of("--include-path=")) {
      argv.push_back("-I" + absolute(v));
    } else if (const char* v = value_of("--define-macro=")) {
      argv.push_back(std::string("-D") + v);
    } else if (const char* v = value_of("--undefine-macro=")) {
      argv.push_back(std::string("-U") + v);
    } else if (const char* v = value_of("--pre-include=")) {
      argv.push_back("-include");
      argv.push_back(v);
    } else if (o == "--disable-warnings" || o == "-w") {
      argv.push_back("-w");
    } else {
      argv.push_back(o);
    }
  }
  argv.push_back(file_name);
  argv.push_back("-o");
  argv.push_back(out.string());
  const auto pch_arg = pch.empty() ? argv.end() : argv.begin() + static_cast<std::ptrdiff_t>(pch_index);
  int rc = run_process(argv, dir.path.string(), log.string());
  if (rc != 0 && pch_arg != argv.end() && read_file(log.string()).value_or("").find("PCH") != std::string::npos) {
    // A truncated precompiled header is an error to g++ ("cannot read PCH
    // file"), not a miss: compile again without it, and drop it if that
    // works (Note [Host precompiled prelude]).
    argv.erase(pch_arg);
    rc = run_process(argv, dir.path.string(), log.string());
    if (rc == 0) drop_prelude_pch();
  }
  std::string log_text = read_file(log.string()).value_or("");
  if (rc != 0) {
    throw CompileError("compiling " + name + " for the host backend failed (" + argv[0] +
                           " exited with " + std::to_string(rc) + "):\n" + log_text,
                       log_text);
  }
  CompiledModule module;
  module.binary = read_file_or_throw(out.string(), "host compiler output");
  for (const auto& expr : request.name_expressions) module.lowered_names.emplace_back(expr, expr);
  module.log = log_text;
  return module;
}

}  // namespace kiln::runtime::host
