// nvrtc_compile: CUDA C++ source -> cubin (sm_XX) or PTX (compute_XX), with
// name expressions lowered to the symbols a module defines.
#include <memory>
#include <string>
#include <vector>

#include "runtime/backend.h"
#include "runtime/cuda/cccl_include.h"
#include "runtime/cuda/cuda_backend.h"
#include "runtime/cuda/nvrtc_api.h"
#include "runtime/errors.h"

namespace kiln::runtime {
namespace {

using cuda::NvrtcApi;
using cuda::NvrtcProgram;
using cuda::NvrtcResult;
namespace rc = cuda::nvrtc_result;

std::string result_text(const NvrtcApi& rtc, NvrtcResult r) {
  const char* s = rtc.get_error_string(r);
  return s ? s : "NVRTC error " + std::to_string(r);
}

// Throws Error naming `call` and `source_name` unless `r` is success.
void check(const NvrtcApi& rtc, NvrtcResult r, const char* call, const std::string& source_name) {
  if (r == rc::kSuccess) return;
  std::string msg = std::string(call) + " failed for " + source_name + ": " + result_text(rtc, r);
  if (r == rc::kOutOfMemory) throw OutOfMemory(msg, 0);
  throw Error(msg);
}

struct ProgramDeleter {
  const NvrtcApi* rtc;
  void operator()(NvrtcProgram p) const {
    if (p) rtc->destroy_program(&p);  // nothing useful to do with a failure here
  }
};
using ProgramPtr = std::unique_ptr<std::remove_pointer_t<NvrtcProgram>, ProgramDeleter>;

std::string program_log(const NvrtcApi& rtc, NvrtcProgram prog, const std::string& source_name) {
  size_t size = 0;
  check(rtc, rtc.get_log_size(prog, &size), "nvrtcGetProgramLogSize", source_name);
  if (size <= 1) return {};
  std::string log(size, '\0');
  check(rtc, rtc.get_log(prog, log.data()), "nvrtcGetProgramLog", source_name);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n' || log.back() == ' ')) {
    log.pop_back();
  }
  return log;
}

bool wants_ptx(const std::string& arch) { return arch.rfind("compute_", 0) == 0; }

}  // namespace

bool nvrtc_available(std::string* why_not) { return cuda::try_nvrtc_api(why_not) != nullptr; }

CompiledModule nvrtc_compile(const CompileRequest& request, const std::string& arch) {
  const NvrtcApi& rtc = cuda::nvrtc_api();
  const std::string& name = request.source_name;
  if (arch.empty()) throw InvalidArgument("nvrtc_compile(" + name + "): empty target arch");

  NvrtcProgram raw = nullptr;
  check(rtc, rtc.create_program(&raw, request.source.c_str(), name.c_str(), 0, nullptr, nullptr),
        "nvrtcCreateProgram", name);
  ProgramPtr prog(raw, ProgramDeleter{&rtc});

  for (const std::string& expr : request.name_expressions) {
    NvrtcResult r = rtc.add_name_expression(raw, expr.c_str());
    if (r != rc::kSuccess) {
      throw InvalidArgument("nvrtcAddNameExpression('" + expr + "') failed for " + name + ": " +
                            result_text(rtc, r));
    }
  }

  std::vector<std::string> options;
  options.reserve(request.options.size() + 4);
  options.push_back("--gpu-architecture=" + arch);
  if (const std::string& inc = stdlib_include_dir(); !inc.empty()) options.push_back("-I" + inc);
  if (const std::string& cccl = cccl_include_dir(rtc); !cccl.empty()) options.push_back("-I" + cccl);  // Note [CCCL headers]
  const std::string& sdk = cuda_include_dir(rtc);   // Note [CCCL headers]
  if (!sdk.empty()) options.push_back("-I" + sdk);
  if (const std::string& rand = curand_include_dir(rtc); !rand.empty() && rand != sdk)
    options.push_back("-I" + rand);  // Note [CUDA toolkit headers]
  options.insert(options.end(), request.options.begin(), request.options.end());
  std::vector<const char*> argv;
  argv.reserve(options.size());
  for (const std::string& o : options) argv.push_back(o.c_str());

  NvrtcResult compiled = rtc.compile_program(raw, static_cast<int>(argv.size()), argv.data());
  std::string log = program_log(rtc, raw, name);
  if (compiled != rc::kSuccess) {
    std::string what = "NVRTC failed to compile " + name + " for " + arch + " (" +
                       result_text(rtc, compiled) + ")";
    what += log.empty() ? std::string(" with no log") : ":\n" + log;
    throw CompileError(what, log);
  }

  CompiledModule out;
  out.log = std::move(log);
  size_t size = 0;
  if (wants_ptx(arch)) {
    check(rtc, rtc.get_ptx_size(raw, &size), "nvrtcGetPTXSize", name);
    out.binary.assign(size, '\0');  // size counts the terminating NUL; kept
    check(rtc, rtc.get_ptx(raw, out.binary.data()), "nvrtcGetPTX", name);
  } else {
    check(rtc, rtc.get_cubin_size(raw, &size), "nvrtcGetCUBINSize", name);
    if (size == 0) {
      throw InvalidArgument("NVRTC produced no cubin for " + name + " with arch '" + arch +
                            "': use a real architecture such as sm_90, or compute_90 for PTX");
    }
    out.binary.assign(size, '\0');
    check(rtc, rtc.get_cubin(raw, out.binary.data()), "nvrtcGetCUBIN", name);
  }

  out.lowered_names.reserve(request.name_expressions.size());
  for (const std::string& expr : request.name_expressions) {
    const char* lowered = nullptr;
    NvrtcResult r = rtc.get_lowered_name(raw, expr.c_str(), &lowered);
    if (r != rc::kSuccess || !lowered) {
      throw NotFound("nvrtcGetLoweredName('" + expr + "') failed for " + name + ": " +
                     result_text(rtc, r));
    }
    out.lowered_names.emplace_back(expr, lowered);  // copied before the program dies
  }
  return out;
}

}  // namespace kiln::runtime
