// The dtype table (arraycore/dtype.h) and kernel templates
// (arraycore/kernel_template.h): parameter parsing, type resolution (Note
// [Kernel template resolution]) and the engine specs, without Python. The
// calls through kiln.ElementwiseKernel/ReductionKernel are
// tests/python/kernels/test_elementwise_kernel.py and test_reduction_kernel.py.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "arraycore/axes.h"
#include "arraycore/kernel_template.h"

namespace kiln::arraycore {
namespace {

// numpy.dtype's reading of a few names, enough for these tests.
TypeName lookup(std::string_view name) {
  if (name == "float128") return {true, std::nullopt, "float128"};
  if (name == "float" || name == "double") return {true, DType::Float64, "float64"};
  if (auto d = dtype_from_name(name)) return {true, *d, std::string(name)};
  return {};
}

KernelTemplate elementwise(std::string_view in, std::string_view out, std::string name = "k") {
  return KernelTemplate(std::move(name), in, out, KernelTemplate::Elementwise, lookup);
}

KernelTemplate reduction(std::string_view in, std::string_view out) {
  return KernelTemplate("r", in, out, KernelTemplate::Reduction, lookup);
}

template <class E>
std::string message_of(auto&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "no exception";
}

TEST(DTypeTable, RowsAreConsistent) {
  std::set<std::string_view> names, c_types;
  std::set<char> chars;
  for (int i = 0; i < kNumDTypes; ++i) {
    const DTypeInfo& d = dtype_info(static_cast<DType>(i));
    EXPECT_EQ(static_cast<int>(d.dtype), i);
    EXPECT_EQ(dtype_from_name(d.name), d.dtype);
    EXPECT_EQ(dtype_from_char(d.char_code), d.dtype);
    EXPECT_EQ(itemsize(d.dtype), d.itemsize);
    names.insert(d.name);
    c_types.insert(d.c_type);
    chars.insert(d.char_code);
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(kNumDTypes));
  EXPECT_EQ(c_types.size(), static_cast<size_t>(kNumDTypes));
  EXPECT_EQ(chars.size(), static_cast<size_t>(kNumDTypes));
  EXPECT_EQ(dtype_info(DType::Int8).c_type, "signed char");
  EXPECT_EQ(dtype_info(DType::Float16).c_type, "kiln::half");
  EXPECT_EQ(dtype_info(DType::Complex128).itemsize, 16);
  EXPECT_EQ(dtype_from_char('l'), DType::Int64);
  EXPECT_EQ(dtype_from_name("float128"), std::nullopt);
}

TEST(KernelTemplate, ParsesParameters) {
  KernelTemplate t = elementwise("T x, raw float32 y", "int16 z");
  ASSERT_EQ(t.nargs(), 3u);
  EXPECT_EQ(t.nin(), 2u);
  const auto& p = t.params();
  EXPECT_EQ(p[0].name, "x");
  EXPECT_FALSE(p[0].dtype.has_value());
  EXPECT_EQ(p[0].ctype(), "T");
  EXPECT_TRUE(p[0].is_const);
  EXPECT_TRUE(p[1].raw);
  EXPECT_EQ(p[1].dtype, DType::Float32);
  EXPECT_EQ(p[1].ctype(), "float");
  EXPECT_EQ(p[2].ctype(), "short");
  EXPECT_FALSE(p[2].is_const);
  EXPECT_EQ(elementwise("  ", "T z").nin(), 0u);
  EXPECT_EQ(elementwise("double  x", "T z").params()[0].dtype, DType::Float64);
}

TEST(KernelTemplate, DefinitionErrors) {
  EXPECT_EQ(message_of<std::invalid_argument>([] { elementwise("float32 x", "float32 y", "1bad"); }),
            "Invalid kernel name: '1bad' (it must be a C++ identifier)");
  EXPECT_EQ(message_of<std::invalid_argument>([] { elementwise("float32 x y", "float32 z"); }),
            "k: syntax error in parameter 'float32 x y': expected '[raw] type name'");
  EXPECT_EQ(message_of<std::invalid_argument>([] { elementwise("float32 i", "float32 z"); }),
            "k: parameter name 'i' is reserved ('i' and names starting with '_' are the generated code's)");
  EXPECT_EQ(message_of<std::invalid_argument>([] { elementwise("float32 x", "float32 x"); }),
            "k: parameter name 'x' is used twice");
  EXPECT_EQ(message_of<std::invalid_argument>([] { elementwise("float32 2x", "float32 z"); }),
            "k: parameter name '2x' is not a C++ identifier");
  EXPECT_EQ(message_of<std::invalid_argument>([] { elementwise("float32 x", "1 z"); }),
            "k: type placeholder '1' of parameter 'z' is not a letter");
  EXPECT_EQ(message_of<TypeError>([] { elementwise("flot32 x", "float32 z"); }),
            "k: unknown type 'flot32' in parameter 'flot32 x' (NumPy dtype names such as 'float32', or one "
            "letter for a type placeholder)");
  EXPECT_EQ(message_of<TypeError>([] { elementwise("float32 x", "float128 z"); }),
            "k: parameter 'z' has dtype float128, which kiln does not support");
}

TEST(KernelTemplate, ReductionDefinitionErrors) {
  EXPECT_EQ(message_of<std::invalid_argument>([] { reduction("T x", "T y, T z"); }),
            "r: a ReductionKernel has exactly one output parameter");
  EXPECT_THROW(reduction("T x", "raw T y"), KernelTemplateUnsupported);
  EXPECT_THROW(reduction("raw T x", "T y"), std::invalid_argument);
  EXPECT_THROW(reduction("T x, T b", "T y"), std::invalid_argument);
  EXPECT_NO_THROW(reduction("T x, raw T w", "T y"));
}

TEST(KernelTemplate, ResolvesFromOutputsThenArraysThenScalars) {
  KernelTemplate t = elementwise("T x, T y, U s", "T z");
  // Arrays decide T; the Python float (float64) decides U alone.
  TemplateArg a[] = {TemplateArg::array(DType::Float32), TemplateArg::scalar(DType::Int64),
                     TemplateArg::scalar(DType::Float64)};
  ResolvedTypes r = t.resolve(a);
  EXPECT_EQ(r.dtypes, (std::vector<DType>{DType::Float32, DType::Float32, DType::Float64, DType::Float32}));
  ASSERT_EQ(r.placeholders.size(), 2u);
  EXPECT_EQ(r.placeholders[0].first, "T");
  EXPECT_EQ(placeholder_typedefs(r), "typedef float T;\ntypedef double U;\n");
  // Only scalars name T: NumPy's result_type of their (default) dtypes.
  TemplateArg s[] = {TemplateArg::scalar(DType::Int8), TemplateArg::scalar(DType::UInt8),
                     TemplateArg::scalar(DType::Bool)};
  EXPECT_EQ(t.resolve(s).dtypes[0], DType::Int16);
  // A given output binds first.
  TemplateArg o[] = {TemplateArg::array(DType::Float64), TemplateArg::scalar(DType::Int64),
                     TemplateArg::scalar(DType::Int64), TemplateArg::array(DType::Float32)};
  EXPECT_EQ(message_of<TypeError>([&] { t.resolve(o); }),
            "k: type mismatch: input 'x' is float64, but placeholder T is already float32");
}

TEST(KernelTemplate, ResolutionErrors) {
  KernelTemplate fixed = elementwise("float32 x, T y", "T z");
  TemplateArg wrong[] = {TemplateArg::array(DType::Float64), TemplateArg::array(DType::Int8)};
  EXPECT_EQ(message_of<TypeError>([&] { fixed.resolve(wrong); }),
            "k: type mismatch: input 'x' is float64, but the parameter is float32");
  TemplateArg converted[] = {TemplateArg::scalar(DType::Float64), TemplateArg::array(DType::Int8)};
  EXPECT_EQ(fixed.resolve(converted).dtypes[0], DType::Float32);
  KernelTemplate open = elementwise("T x", "U z");
  TemplateArg in[] = {TemplateArg::array(DType::Int32)};
  EXPECT_EQ(message_of<TypeError>([&] { open.resolve(in); }),
            "k: output type can't be determined: placeholder U of output 'z' appears in no input; pass the "
            "output array");
  TemplateArg with_out[] = {TemplateArg::array(DType::Int32), TemplateArg::array(DType::UInt8)};
  EXPECT_EQ(open.resolve(with_out).dtypes[1], DType::UInt8);
}

TEST(KernelTemplate, ElementwiseSpec) {
  KernelTemplate t = elementwise("T x, raw T w", "T z", "axpy");
  TemplateArg a[] = {TemplateArg::array(DType::Float16), TemplateArg::array(DType::Float16)};
  std::shared_ptr<EwSpec> s = elementwise_kernel_spec(t, t.resolve(a), {.operation = "z = x", .preamble = "// p"});
  EXPECT_EQ(s->name, "axpy");
  ASSERT_EQ(s->params.size(), 3u);
  EXPECT_EQ(s->params[0].ctype, "kiln::half");
  EXPECT_EQ(s->params[1].role, EwParam::Raw);
  EXPECT_EQ(s->params[2].role, EwParam::Output);
  EXPECT_EQ(s->operation, "z = x\n;");
  // Note [Placeholders before the preamble]
  EXPECT_EQ(s->preamble, "#include <cupy/carray.cuh>\ntypedef kiln::half T;\n// p\n");
  EXPECT_EQ(s->operation_file, "<ElementwiseKernel axpy operation>");
}

TEST(KernelTemplate, ReductionSpec) {
  KernelTemplate t = reduction("T x, raw T w", "T y");
  TemplateArg a[] = {TemplateArg::array(DType::Int32), TemplateArg::array(DType::Int32)};
  ResolvedTypes r = t.resolve(a);
  ReductionKernelText text{"x * w[_j]", "a + b", "y = a", "0", "", "", {}};
  std::shared_ptr<ReductionSpec> s = reduction_kernel_spec(t, r, text, lookup);
  ASSERT_EQ(s->params.size(), 1u);
  ASSERT_EQ(s->raw_params.size(), 1u);
  EXPECT_EQ(s->raw_params[0].name, "w");
  EXPECT_EQ(s->map_expr, "(_type_reduce)(x * w[_j])");
  EXPECT_EQ(s->identity, "(_type_reduce)(0)");
  EXPECT_EQ(s->post_map_expr, "int& y = out;\ny = a\n;");
  EXPECT_EQ(s->reduce_dtype, DType::Int32);
  EXPECT_EQ(s->preamble, "#include <kiln/ufunc_math.h>\ntypedef int T;\ntypedef int _type_reduce;\n\n");
  ReductionKernelText cupy_names{"x", "a + b", "y = a", "0", "", "CIndexer<1> unused;", {}};
  EXPECT_EQ(reduction_kernel_spec(t, r, cupy_names, lookup)->preamble.rfind("#include <kiln/ufunc_math.h>\n#include <cupy/carray.cuh>\n", 0), 0u);
  for (auto [name, want] : {std::pair{"T", DType::Int32}, {"double", DType::Float64}, {"float", DType::Float32},
                            {"uint8", DType::UInt8}}) {
    text.reduce_type = name;
    EXPECT_EQ(reduction_kernel_reduce_dtype(t, r, text, lookup), want) << name;
  }
  text.reduce_type = "nonsense";
  EXPECT_THROW(reduction_kernel_reduce_dtype(t, r, text, lookup), TypeError);
}

}  // namespace
}  // namespace kiln::arraycore
