#include "arraycore/kernel_template.h"

#include <algorithm>
#include <initializer_list>
#include <map>

#include "arraycore/axes.h"
#include "arraycore/promotion.h"
#include "arraycore/record_dtype.h"

namespace kiln::arraycore {
namespace {

// A string as Python's repr() writes it (for the messages that quote a name).
std::string py_repr(std::string_view s) {
  const bool dq = s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos;
  const char q = dq ? '"' : '\'';
  std::string r(1, q);
  for (char c : s) {
    if (c == '\\' || c == q) r += '\\';
    r += c;
  }
  return r + q;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view strip(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    if (j > i) words.push_back(s.substr(i, j - i));
    i = j;
  }
  return words;
}

// An ASCII identifier (Python's str.isidentifier() and str.isascii()).
bool is_identifier(std::string_view s) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (s.empty() || !alpha(s[0])) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

std::string dtype_name(DType d) { return std::string(dtype_info(d).name); }

void parse_params(const std::string& kernel, std::string_view text, bool is_const, const TypeLookup& lookup,
                  std::vector<TemplateParam>& out) {
  if (strip(text).empty()) return;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string_view item = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    std::vector<std::string_view> words = split_words(item);
    TemplateParam p;
    p.is_const = is_const;
    p.raw = !words.empty() && words[0] == "raw";
    if (p.raw) words.erase(words.begin());
    if (words.size() != 2)
      throw std::invalid_argument(kernel + ": syntax error in parameter " + py_repr(strip(item)) +
                                  ": expected '[raw] type name'");
    const std::string_view type_name = words[0];
    p.name = words[1];
    if (!is_identifier(p.name))
      throw std::invalid_argument(kernel + ": parameter name " + py_repr(p.name) + " is not a C++ identifier");
    if (p.name == "i" || p.name[0] == '_')
      throw std::invalid_argument(kernel + ": parameter name " + py_repr(p.name) +
                                  " is reserved ('i' and names starting with '_' are the generated code's)");
    if (type_name.size() == 1) {
      if (!is_identifier(type_name))
        throw std::invalid_argument(kernel + ": type placeholder " + py_repr(type_name) + " of parameter " +
                                    py_repr(p.name) + " is not a letter");
      p.placeholder = type_name;
    } else {
      TypeName t = lookup(type_name);
      if (!t.known)
        throw TypeError(kernel + ": unknown type " + py_repr(type_name) + " in parameter " + py_repr(strip(item)) +
                        " (NumPy dtype names such as 'float32', or one letter for a type placeholder)");
      if (!t.dtype)
        throw TypeError(kernel + ": parameter " + py_repr(p.name) + " has dtype " + t.numpy_name +
                        ", which kiln does not support");
      p.dtype = t.dtype;
    }
    out.push_back(std::move(p));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
}

}  // namespace

KernelTemplate::KernelTemplate(std::string name, std::string_view in_params, std::string_view out_params, Kind kind,
                               const TypeLookup& lookup)
    : name_(std::move(name)), kind_(kind) {
  if (!is_identifier(name_))
    throw std::invalid_argument("Invalid kernel name: " + py_repr(name_) + " (it must be a C++ identifier)");
  parse_params(name_, in_params, true, lookup, params_);
  nin_ = params_.size();
  parse_params(name_, out_params, false, lookup, params_);
  auto used_twice = [&](const std::string& n) {
    return std::count_if(params_.begin(), params_.end(), [&](const TemplateParam& p) { return p.name == n; }) > 1;
  };
  if (kind_ == Elementwise) {
    for (const TemplateParam& p : params_)
      if (used_twice(p.name))
        throw std::invalid_argument(name_ + ": parameter name " + py_repr(p.name) + " is used twice");
    return;
  }
  if (params_.size() - nin_ != 1)
    throw std::invalid_argument(name_ + ": a ReductionKernel has exactly one output parameter");
  if (params_.back().raw)
    throw KernelTemplateUnsupported(name_ + ": raw output parameter " + py_repr(params_.back().name) +
                                    " is not supported by kiln's ReductionKernel (raw inputs are)");
  const auto shaped = std::count_if(params_.begin(), params_.begin() + nin_, [](const TemplateParam& p) { return !p.raw; });
  if (shaped < 1 || shaped > 4)
    throw std::invalid_argument(name_ + ": a ReductionKernel takes 1 to 4 non-raw input parameters (and any raw ones)");
  for (const TemplateParam& p : params_)
    if (used_twice(p.name) || p.name == "a" || p.name == "b" || (p.name == "out" && &p != &params_.back()))
      throw std::invalid_argument(name_ + ": parameter name " + py_repr(p.name) +
                                  " is used twice or is reserved ('a' and 'b' are the reduction's, and 'out' can only "
                                  "name the output)");
}

ResolvedTypes KernelTemplate::resolve(std::span<const TemplateArg> args) const {
  if (args.size() != nin_ && args.size() != params_.size())
    throw std::invalid_argument(name_ + ": resolve takes the inputs' or all parameters' arguments");
  std::map<std::string, DType> bound;
  auto settle = [&](const TemplateParam& p, DType dtype, const char* what) {
    if (p.dtype) {
      if (dtype != *p.dtype)
        throw TypeError(name_ + ": type mismatch: " + what + " " + py_repr(p.name) + " is " + dtype_name(dtype) +
                        ", but the parameter is " + dtype_name(*p.dtype));
      return;
    }
    auto [it, added] = bound.emplace(p.placeholder, dtype);
    if (!added && it->second != dtype)
      throw TypeError(name_ + ": type mismatch: " + what + " " + py_repr(p.name) + " is " + dtype_name(dtype) +
                      ", but placeholder " + p.placeholder + " is already " + dtype_name(it->second));
  };
  for (size_t k = nin_; k < args.size(); ++k)
    if (args[k].is_array) settle(params_[k], args[k].dtype, "output");
  for (size_t k = 0; k < nin_; ++k)
    if (args[k].is_array) settle(params_[k], args[k].dtype, "input");
  std::map<std::string, std::vector<DType>> from_scalars;
  for (size_t k = 0; k < nin_; ++k) {
    const TemplateParam& p = params_[k];
    if (!args[k].is_array && !p.dtype && !bound.count(p.placeholder))
      from_scalars[p.placeholder].push_back(args[k].dtype);
  }
  for (const auto& [placeholder, dtypes] : from_scalars) bound[placeholder] = result_type(dtypes, {});

  ResolvedTypes r;
  r.dtypes.reserve(params_.size());
  for (const TemplateParam& p : params_) {
    if (p.dtype) {
      r.dtypes.push_back(*p.dtype);
      continue;
    }
    auto it = bound.find(p.placeholder);
    if (it == bound.end())
      throw TypeError(name_ + ": output type can't be determined: placeholder " + p.placeholder + " of " +
                      (kind_ == Elementwise ? "output " : "") + py_repr(p.name) +
                      " appears in no input; pass the output array");
    r.dtypes.push_back(it->second);
  }
  r.placeholders.assign(bound.begin(), bound.end());
  return r;
}

std::string placeholder_typedefs(const ResolvedTypes& resolved) {
  std::string s;
  bool record = false;
  for (const auto& [placeholder, dtype] : resolved.placeholders) {
    if (is_record(dtype)) require_kernel_record(dtype);   // Note [Record kernel types]
    record = record || is_record(dtype);
    s += "typedef " + std::string(dtype_info(dtype).c_type) + " " + placeholder + ";\n";
  }
  return record ? "#include <kiln/record.h>\n" + s : s;
}

namespace {

// Note [CuPy kernel names]
// CuPy's ElementwiseKernel and ReductionKernel code sees CuPy's headers:
// complex<T> and its functions, float16, cuda_fp16.h's intrinsics, CArray
// (stdlib_kernels/cupy/carray.cuh). kiln includes that header where a kernel
// can need it: a complex or float16 dtype among its resolved types (the code
// may call exp(x) on a complex T), or one of CuPy's names in its text. The
// others keep their source byte for byte, and their compile time: the header
// brings in the complex math of kiln's ufuncs, about a second of NVRTC's time
// for a kernel that includes nothing else.
std::string cupy_names_include(const ResolvedTypes& resolved, std::initializer_list<const std::string*> texts) {
  bool wanted = false;
  for (DType d : resolved.dtypes)
    wanted = wanted || d == DType::Complex64 || d == DType::Complex128 || d == DType::Float16;
  for (const std::string* text : texts)
    for (const char* name : {"complex", "half", "float16", "CArray", "CIndexer", "thrust", "__h"})
      wanted = wanted || text->find(name) != std::string::npos;
  return wanted ? "#include <cupy/carray.cuh>\n" : "";
}

}  // namespace

std::shared_ptr<EwSpec> elementwise_kernel_spec(const KernelTemplate& t, const ResolvedTypes& resolved,
                                                const ElementwiseKernelText& text) {
  auto s = std::make_shared<EwSpec>();
  s->name = t.name();
  for (size_t k = 0; k < t.nargs(); ++k) {
    const TemplateParam& p = t.params()[k];
    const EwParam::Role role = p.raw ? EwParam::Raw : p.is_const ? EwParam::Input : EwParam::Output;
    s->params.push_back({p.name, std::string(dtype_info(resolved.dtypes[k]).c_type), "", role});
  }
  // Note [Operation text]: CuPy's examples leave the final ';' out
  // ('z = x * y'); it goes on a line of its own so a trailing // comment
  // cannot swallow it.
  s->operation = text.operation + "\n;";
  // Note [Placeholders before the preamble]
  s->preamble = cupy_names_include(resolved, {&text.operation, &text.preamble, &text.loop_prep, &text.after_loop}) +
                placeholder_typedefs(resolved) + text.preamble + "\n";
  s->loop_prep = text.loop_prep;
  s->after_loop = text.after_loop;
  s->options = text.options;
  s->outputs_write_only = text.outputs_write_only;
  s->operation_file = "<ElementwiseKernel " + t.name() + " operation>";
  return s;
}

DType reduction_kernel_reduce_dtype(const KernelTemplate& t, const ResolvedTypes& resolved,
                                    const ReductionKernelText& text, const TypeLookup& lookup) {
  const std::string& name = text.reduce_type;
  if (name.empty()) return resolved.dtypes.back();
  for (const auto& [placeholder, dtype] : resolved.placeholders)
    if (placeholder == name) return dtype;
  for (int i = 0; i < kNumDTypes; ++i)
    if (dtype_info(static_cast<DType>(i)).c_type == name) return static_cast<DType>(i);
  if (TypeName n = lookup(name); n.known && n.dtype) return *n.dtype;
  throw TypeError(t.name() + ": unknown reduce_type " + py_repr(name) +
                  " (a NumPy dtype name, a C type kiln knows such as 'float', or a type placeholder)");
}

std::shared_ptr<ReductionSpec> reduction_kernel_spec(const KernelTemplate& t, const ResolvedTypes& resolved,
                                                     const ReductionKernelText& text, const TypeLookup& lookup) {
  const DType acc = reduction_kernel_reduce_dtype(t, resolved, text, lookup);
  const std::string typedefs =
      placeholder_typedefs(resolved) + "typedef " + std::string(dtype_info(acc).c_type) + " _type_reduce;\n";
  const std::string out_ctype(dtype_info(resolved.dtypes.back()).c_type);
  auto s = std::make_shared<ReductionSpec>();
  s->name = t.name();
  for (size_t k = 0; k < t.nin(); ++k) {
    const TemplateParam& p = t.params()[k];
    EwParam param{p.name, std::string(dtype_info(resolved.dtypes[k]).c_type), "", p.raw ? EwParam::Raw : EwParam::Input};
    (p.raw ? s->raw_params : s->params).push_back(std::move(param));
  }
  // Note [Reduction kernel text]: every expression is cast to the accumulator
  // type, and the output is bound by name to the engine's `out` (an output
  // named `out`, as CuPy allows, is the engine's `out` itself).
  auto as_acc = [](const std::string& e) { return "(_type_reduce)(" + e + ")"; };
  s->map_expr = as_acc(text.map_expr);
  s->reduce_expr = as_acc(text.reduce_expr);
  const std::string& out_name = t.params().back().name;
  s->post_map_expr = (out_name == "out" ? "" : out_ctype + "& " + out_name + " = out;\n") + text.post_map_expr + "\n;";
  s->identity = as_acc(text.identity);
  s->reduce_dtype = acc;
  s->out_ctype = out_ctype;
  s->preamble = "#include <kiln/ufunc_math.h>\n" +
                cupy_names_include(resolved, {&text.map_expr, &text.reduce_expr, &text.post_map_expr, &text.identity,
                                              &text.reduce_type, &text.preamble}) +
                typedefs + text.preamble + "\n";  // Note [Placeholders before the preamble]
  s->options = text.options;
  return s;
}

}  // namespace kiln::arraycore
