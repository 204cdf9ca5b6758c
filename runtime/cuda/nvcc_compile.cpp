// nvcc_compile: CUDA C++ source -> cubin (sm_XX) or PTX (compute_XX) with the
// CUDA toolkit's nvcc, for RawModule(backend='nvcc'). NVRTC stays the default
// compiler; nvcc is a child process, found where CUDA installs put it.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/backend.h"
#include "runtime/cuda/cuda_backend.h"
#include "runtime/errors.h"
#include "runtime/files.h"

namespace kiln::runtime {
namespace {

bool executable(const std::string& path) { return !path.empty() && access(path.c_str(), X_OK) == 0; }

// The nvcc command (several words when $NVCC says e.g. "ccache nvcc"), or
// empty with `looked` saying where it was not.
std::vector<std::string> find_nvcc(std::string* looked) {
  if (const char* env = std::getenv("NVCC"); env && *env) {
    std::vector<std::string> words;
    std::istringstream in(env);
    for (std::string w; in >> w;) words.push_back(w);
    if (!words.empty()) return words;
  }
  std::vector<std::string> candidates;
  for (const char* var : {"CUDA_PATH", "CUDA_HOME"})
    if (const char* root = std::getenv(var); root && *root) candidates.push_back(std::string(root) + "/bin/nvcc");
  if (const char* path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');)
      if (!dir.empty()) candidates.push_back(dir + "/nvcc");
  }
  candidates.push_back("/usr/local/cuda/bin/nvcc");
  for (const auto& c : candidates)
    if (executable(c)) return {c};
  *looked = "$NVCC, $CUDA_PATH/bin, $CUDA_HOME/bin, PATH and /usr/local/cuda/bin";
  return {};
}

}  // namespace

CompiledModule nvcc_compile(const CompileRequest& request, const std::string& arch) {
  const std::string& name = request.source_name.empty() ? std::string("kernel.cu") : request.source_name;
  if (!request.name_expressions.empty())
    throw InvalidArgument("name_expressions need backend='nvrtc'; nvcc cannot lower them (" + name + ")");
  std::string looked;
  std::vector<std::string> argv = find_nvcc(&looked);
  if (argv.empty())
    throw CompileError("backend='nvcc': nvcc was not found (looked in " + looked +
                           "); install the CUDA toolkit, set NVCC, or use backend='nvrtc'",
                       "");
  TempDir dir("kiln-nvcc-");
  std::string file = std::filesystem::path(name).filename().string();
  if (file.empty() || file == "out.bin" || file == "log.txt") file = "kernel.cu";
  {
    std::ofstream f(dir.path / file, std::ios::binary);
    f << request.source;
  }
  const bool ptx = arch.rfind("compute_", 0) == 0;
  argv.push_back(ptx ? "-ptx" : "-cubin");
  argv.push_back("-arch=" + arch);
  if (const std::string& inc = stdlib_include_dir(); !inc.empty()) argv.push_back("-I" + inc);
  for (const auto& o : request.options) {
    // Relative include folders are the caller's, not the temporary directory's.
    if (o.size() > 2 && o.rfind("-I", 0) == 0) argv.push_back("-I" + std::filesystem::absolute(o.substr(2)).string());
    else argv.push_back(o);
  }
  argv.push_back(file);
  argv.push_back("-o");
  argv.push_back("out.bin");
  const std::string log_path = (dir.path / "log.txt").string();
  int rc;
  try {
    rc = run_process(argv, dir.path.string(), log_path);
  } catch (const Error& e) {  // $NVCC names a program that does not start
    throw CompileError("backend='nvcc': " + std::string(e.what()), "");
  }
  std::string log = read_file(log_path).value_or("");
  while (!log.empty() && (log.back() == '\n' || log.back() == ' ')) log.pop_back();
  if (rc != 0)
    throw CompileError("nvcc failed to compile " + name + " for " + arch + " (exit status " + std::to_string(rc) +
                           ")" + (log.empty() ? std::string(" with no log") : ":\n" + log),
                       log);
  CompiledModule out;
  out.binary = read_file_or_throw((dir.path / "out.bin").string(), "nvcc output");
  if (ptx) out.binary.push_back('\0');  // cuModuleLoadData reads PTX as a C string
  out.log = std::move(log);
  return out;
}

}  // namespace kiln::runtime
