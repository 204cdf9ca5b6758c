// The fixture of the host backend's kernel tests (test_host_backend.cpp,
// test_host_prelude.cpp): one host backend with 4 workers per suite, and
// compile-and-load of CUDA C++ source with the modules unloaded after each test.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/backend.h"
#include "runtime/host/host_backend.h"

namespace kiln::runtime::testing {

class HostKernelTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    set_stdlib_include_dir(KILN_SOURCE_STDLIB_DIR);
    // Several workers even on a small machine, so atomics really race.
    setenv("KILN_HOST_THREADS", "4", 1);
    be_ = make_host_backend().release();
    unsetenv("KILN_HOST_THREADS");
  }
  static void TearDownTestSuite() {
    delete be_;
    be_ = nullptr;
  }

  // Compiles and loads `source`; the module stays loaded for the test.
  ModuleHandle load(const std::string& source, std::vector<std::string> names = {},
                    std::vector<std::string> options = {}) {
    CompileRequest req{source, std::move(options), std::move(names), "kernel.cu", ""};
    compiled_ = be_->compile(req, be_->target_arch(0));
    ModuleHandle m = be_->load_module(compiled_);
    modules_.push_back(m);
    return m;
  }
  void TearDown() override {
    for (ModuleHandle m : modules_) be_->unload_module(m);
  }

  template <class T>
  T* alloc(size_t n) {
    return static_cast<T*>(be_->allocate(n * sizeof(T)));
  }

  inline static Backend* be_ = nullptr;
  CompiledModule compiled_;
  std::vector<ModuleHandle> modules_;
};

}  // namespace kiln::runtime::testing
