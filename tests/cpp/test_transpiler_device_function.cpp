// transpiler/transpile.h: transpile_device_function, a Python function as a
// __device__ function for given scalar types (what kiln.vectorize runs).
#include <gtest/gtest.h>

#include "tests/cpp/test_transpiler_builders.h"
#include "transpiler/diagnostics.h"
#include "transpiler/transpile.h"

namespace kiln::transpiler {
namespace {

using namespace ast_builders;

// def f(v, c):                        line 1
//     return v * c, v + 1              line 2   (tuple=true)
//     return v * c                     line 2   (tuple=false)
Module scalar_module(bool tuple) {
  Module m;
  FunctionDef& f = add_function(m, "f", {"v", "c"}, 1);
  f.device = true;
  auto ret = make_stmt(StmtKind::Return, at(2, 4));
  auto product = binop(BinOp::Mul, name("v"), name("c"));
  if (tuple) {
    auto t = make_expr(ExprKind::Tuple, at(2, 11));
    t->operands.push_back(std::move(product));
    t->operands.push_back(binop(BinOp::Add, name("v"), int_const(1)));
    ret->value = std::move(t);
  } else {
    ret->value = std::move(product);
  }
  f.body.push_back(std::move(ret));
  number_nodes(f);
  return m;
}

TEST(TranspilerDeviceFunction, ReturnTypeFollowsNep50) {
  Module m = scalar_module(false);
  // float32 * weak float: float32 (an excluded Python float in kiln.vectorize)
  DeviceFunctionResult r = transpile_device_function(m, {Type::scalar(DType::Float32), Type::weak_scalar(DType::Float64)});
  EXPECT_EQ(r.function_name, "kiln_jit_f");
  EXPECT_EQ(r.return_type, Type::scalar(DType::Float32));
  EXPECT_NE(r.source.find("#include <kiln/jit.h>"), std::string::npos) << r.source;
  EXPECT_NE(r.source.find("__device__ float kiln_jit_f(float v_, double c_)"), std::string::npos) << r.source;
  EXPECT_EQ(r.source.find("__global__"), std::string::npos) << r.source;
  // float32 * strong float64: float64
  r = transpile_device_function(m, {Type::scalar(DType::Float32), Type::scalar(DType::Float64)});
  EXPECT_EQ(r.return_type, Type::scalar(DType::Float64));
}

TEST(TranspilerDeviceFunction, TupleResults) {
  Module m = scalar_module(true);
  DeviceFunctionResult r = transpile_device_function(m, {Type::scalar(DType::Int16), Type::scalar(DType::Int32)});
  ASSERT_EQ(r.return_type.kind, TypeKind::Tuple);
  ASSERT_EQ(r.return_type.elems.size(), 2u);
  EXPECT_EQ(r.return_type.elems[0], Type::scalar(DType::Int32));
  EXPECT_EQ(r.return_type.elems[1], Type::scalar(DType::Int16));
  EXPECT_NE(r.source.find("kiln::jit::Tuple2<int, short> kiln_jit_f("), std::string::npos) << r.source;
}

TEST(TranspilerDeviceFunction, RequiresADeviceFunction) {
  Module m = scalar_module(false);
  m.functions[0].device = false;
  EXPECT_THROW(transpile_device_function(m, {Type::scalar(DType::Float32), Type::scalar(DType::Float32)}),
               std::logic_error);
}

TEST(TranspilerDeviceFunction, WrongArgumentCountIsADiagnostic) {
  Module m = scalar_module(false);
  try {
    transpile_device_function(m, {Type::scalar(DType::Float32)});
    FAIL() << "expected a TranspileError";
  } catch (const TranspileError& e) {
    EXPECT_EQ(e.diag().kind, DiagKind::Type);
    EXPECT_NE(e.diag().message.find("takes 2 arguments"), std::string::npos) << e.diag().message;
  }
}

TEST(TranspilerDeviceFunction, VectorizeOperationCastsEachResult) {
  EXPECT_EQ(vectorize_operation("kiln_jit_f", 2, {DType::Float32}, false),
            "r0 = kiln::numpy_cast<float>(kiln_jit_f(a0, a1));");
  EXPECT_EQ(vectorize_operation("g", 1, {DType::Int64, DType::Complex128}, true),
            "auto kv_res = g(a0);\n"
            "r0 = kiln::numpy_cast<long long>(kv_res.e0);\n"
            "r1 = kiln::numpy_cast<kiln::complex<double>>(kv_res.e1);\n");
}

}  // namespace
}  // namespace kiln::transpiler
