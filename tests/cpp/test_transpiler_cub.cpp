// transpiler/cub.*: kiln.jit.cub's types, rules and C++ spellings (Note [kiln.jit.cub]).
#include <gtest/gtest.h>

#include "transpiler/cub.h"
#include "transpiler/diagnostics.h"
#include "transpiler/transpile.h"
#include "tests/cpp/test_transpiler_builders.h"

namespace kiln::transpiler {
namespace {

using namespace ast_builders;

ExprPtr dtype(DType d, Span s) {
  auto e = make_expr(ExprKind::Global, s);
  e->global.kind = GlobalValue::Kind::DType;
  e->global.dtype = d;
  return e;
}
ExprPtr attribute(ExprPtr object, const std::string& attr, Span s) {
  auto e = make_expr(ExprKind::Attribute, s);
  e->text = attr;
  e->operands.push_back(std::move(object));
  return e;
}

// def k(x):                                           line 1
//     W = jit.cub.WarpReduce[float16]                  line 2
//     s = jit.shared_memory(W.TempStorage, 1)          line 3
//     x[0] = W(s[0]).Sum(x[0])                         line 4
Module warp_sum_kernel(bool with_storage = true) {
  Module m;
  FunctionDef& f = m.functions.emplace_back();
  f.name = "k";
  f.file = "k.py";
  f.lines = {"def k(x):", "    W = jit.cub.WarpReduce[float16]", "    s = jit.shared_memory(W.TempStorage, 1)",
             "    x[0] = W(s[0]).Sum(x[0])"};
  f.span = at(1, 0, 3);
  f.params = {{"x", at(1, 6)}};
  f.body.push_back(assign(name("W", at(2, 4)),
                          subscript(builtin("kiln.jit.cub.WarpReduce", at(2, 8, 18)), dtype(DType::Float16, at(2, 27, 7)), at(2, 8, 27)), 2));
  ExprPtr shared = call(builtin("kiln.jit.shared_memory", at(3, 8, 17)), {}, at(3, 8, 35));
  shared->operands.push_back(attribute(name("W", at(3, 26)), "TempStorage", at(3, 26, 13)));
  shared->operands.push_back(int_const(1, at(3, 41)));
  f.body.push_back(assign(name("s", at(3, 4)), std::move(shared), 3));
  ExprPtr storage = with_storage ? subscript(name("s", at(4, 13)), int_const(0, at(4, 15)), at(4, 13, 4)) : int_const(0, at(4, 13));
  ExprPtr collective = call(name("W", at(4, 11)), {}, at(4, 11, 7));
  collective->operands.push_back(std::move(storage));
  ExprPtr sum = call(attribute(std::move(collective), "Sum", at(4, 11, 11)), {}, at(4, 11, 17));
  sum->operands.push_back(subscript(name("x", at(4, 23)), int_const(0, at(4, 25)), at(4, 23, 4)));
  f.body.push_back(assign(subscript(name("x", at(4, 4)), int_const(0, at(4, 6)), at(4, 4, 4)), std::move(sum), 4));
  number_nodes(f);
  return m;
}

TEST(TranspilerCub, WarpSumInFloat32ForFloat16) {
  Module m = warp_sum_kernel();
  TranspileResult r = transpile(m, {Type::array(DType::Float16, 1, ArrayStorage::Contiguous)});
  EXPECT_NE(r.source.find("#include <kiln/jit_cub.h>"), std::string::npos) << r.source;
  EXPECT_NE(r.source.find("__shared__ cub::WarpReduce<float>::TempStorage kt_shared"), std::string::npos) << r.source;
  EXPECT_NE(r.source.find("cub::WarpReduce<float>::TempStorage* s_;"), std::string::npos) << r.source;
  // built on the spot over the storage, the float16 value widened, the result narrowed back
  EXPECT_NE(r.source.find("kiln::numpy_cast<kiln::half>(cub::WarpReduce<float>((*(&s_[0LL]))).Sum(kiln::numpy_cast<float>(x_(0LL))))"),
            std::string::npos) << r.source;
}

TEST(TranspilerCub, ConstructorTakesItsTempStorage) {
  Module m = warp_sum_kernel(/*with_storage=*/false);
  try {
    transpile(m, {Type::array(DType::Float16, 1, ArrayStorage::Contiguous)});
    FAIL() << "expected a TranspileError";
  } catch (const TranspileError& e) {
    EXPECT_EQ(e.diag().kind, DiagKind::Type);
    EXPECT_NE(e.diag().message.find("jit.cub.WarpReduce[float16](temp_storage) takes one jit.cub.WarpReduce[float16].TempStorage"),
              std::string::npos) << e.diag().message;
    EXPECT_EQ(e.diag().span.line, 4);
  }
}

TEST(TranspilerCub, SpellingsAndTypes) {
  Type block = Type::cls("kiln.jit.cub.BlockReduce", DType::Int8, 256);
  EXPECT_EQ(cub_cpp_class(block), "cub::BlockReduce<signed char, 256>");
  EXPECT_EQ(cub_type_str(block), "jit.cub.BlockReduce[int8, 256]");
  Type storage = Type::object("kiln.jit.cub.BlockReduce.TempStorage", DType::Int8, 256);
  EXPECT_TRUE(cub_is_temp_storage(storage));
  EXPECT_EQ(c_type(storage), "cub::BlockReduce<signed char, 256>::TempStorage*");
  EXPECT_EQ(c_type(Type::object("kiln.jit.cub.BlockReduce", DType::Int8, 256)), c_type(storage));
  EXPECT_EQ(c_type(Type::object("kiln.jit.cub.Max", DType::Float64, -1)), "kiln::jit::CubMax");
  EXPECT_NE(block, Type::cls("kiln.jit.cub.BlockReduce", DType::Int8, 128));
  EXPECT_EQ(cub_compute_dtype(DType::BFloat16), DType::Float32);
  EXPECT_EQ(cub_compute_dtype(DType::Complex64), DType::Complex64);
}

}  // namespace
}  // namespace kiln::transpiler
