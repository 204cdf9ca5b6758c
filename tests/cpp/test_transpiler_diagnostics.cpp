// transpiler/diagnostics.*: rendering with the source line and a caret.
#include <gtest/gtest.h>

#include "transpiler/diagnostics.h"
#include "tests/cpp/test_transpiler_builders.h"

namespace kiln::transpiler {
namespace {

using namespace ast_builders;

TEST(TranspilerDiagnostics, RenderShowsLineAndCaret) {
  Module m = sum_kernel();
  Diagnostic d{DiagKind::Type, at(4, 13, 4), "bad", {}, 0};
  EXPECT_EQ(render(d, m), "k.py:4:14: bad\n            s += x[i]\n                 ^~~~");
}

}  // namespace
}  // namespace kiln::transpiler
