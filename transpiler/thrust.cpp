// Note [kiln.jit.thrust] (thrust.h).
#include "transpiler/thrust.h"

#include <unordered_map>

#include "transpiler/diagnostics.h"

namespace kiln::transpiler {
namespace {

// What an algorithm returns: nothing, a bool, a count (int64), the iterator
// type of argument `a`, a tuple of the iterator types of arguments a and b,
// reduce's value (the init's type, else the elements'), the init's type
// (inner_product), a search (scalar form with 4 arguments: the first
// range's iterator or, for binary_search, a bool; vector form with 6: the
// output iterator), or an iterator a maker builds.
enum class Res : uint8_t { Void, Bool, Count, Arg, Pair, Reduce, Init, Search, ConstantIt, CountingIt };

struct Algorithm {
  int min_args, max_args;  // the policy included (makers take none)
  Res res;
  int a = 0, b = 0;
};

const std::unordered_map<std::string_view, Algorithm>& algorithms() {
  static const std::unordered_map<std::string_view, Algorithm> m = {
      {"count", {4, 4, Res::Count}},
      {"find", {4, 4, Res::Arg, 1}},
      {"equal", {4, 4, Res::Bool}},
      {"mismatch", {4, 4, Res::Pair, 1, 3}},
      {"is_sorted", {3, 3, Res::Bool}},
      {"is_sorted_until", {3, 3, Res::Arg, 1}},
      {"reduce", {3, 4, Res::Reduce, 3}},
      {"inner_product", {5, 5, Res::Init, 4}},
      {"lower_bound", {4, 6, Res::Search}},
      {"upper_bound", {4, 6, Res::Search}},
      {"binary_search", {4, 6, Res::Search}},
      {"equal_range", {4, 4, Res::Pair, 1, 1}},
      {"fill", {4, 4, Res::Void}},
      {"sequence", {3, 5, Res::Void}},
      {"copy", {4, 4, Res::Arg, 3}},
      {"replace", {5, 5, Res::Void}},
      {"replace_copy", {6, 6, Res::Arg, 3}},
      {"remove", {4, 4, Res::Arg, 1}},
      {"remove_copy", {5, 5, Res::Arg, 3}},
      {"reverse", {3, 3, Res::Void}},
      {"reverse_copy", {4, 4, Res::Arg, 3}},
      {"swap_ranges", {4, 4, Res::Arg, 3}},
      {"gather", {5, 5, Res::Arg, 4}},
      {"scatter", {5, 5, Res::Void}},
      {"unique", {3, 3, Res::Arg, 1}},
      {"unique_by_key", {4, 4, Res::Pair, 1, 3}},
      {"adjacent_difference", {4, 4, Res::Arg, 3}},
      {"inclusive_scan", {4, 4, Res::Arg, 3}},
      {"exclusive_scan", {4, 5, Res::Arg, 3}},
      {"inclusive_scan_by_key", {5, 5, Res::Arg, 4}},
      {"exclusive_scan_by_key", {5, 6, Res::Arg, 4}},
      {"reduce_by_key", {6, 6, Res::Pair, 4, 5}},
      {"sort", {3, 3, Res::Void}},
      {"stable_sort", {3, 3, Res::Void}},
      {"sort_by_key", {4, 4, Res::Void}},
      {"stable_sort_by_key", {4, 4, Res::Void}},
      {"set_union", {6, 6, Res::Arg, 5}},
      {"set_intersection", {6, 6, Res::Arg, 5}},
      {"set_difference", {6, 6, Res::Arg, 5}},
      {"set_symmetric_difference", {6, 6, Res::Arg, 5}},
      {"set_union_by_key", {9, 9, Res::Pair, 7, 8}},
      {"set_intersection_by_key", {8, 8, Res::Pair, 6, 7}},
      {"set_difference_by_key", {9, 9, Res::Pair, 7, 8}},
      {"set_symmetric_difference_by_key", {9, 9, Res::Pair, 7, 8}},
      {"make_constant_iterator", {1, 1, Res::ConstantIt}},
      {"make_counting_iterator", {1, 1, Res::CountingIt}},
  };
  return m;
}

std::string short_name(const BuiltinInfo& b) { return std::string(b.name.substr(5)); }  // "jit.thrust.sort"

}  // namespace

std::vector<std::string_view> thrust_algorithm_names() {
  std::vector<std::string_view> names;
  for (const auto& [name, a] : algorithms()) names.push_back(name);
  return names;
}

Type iterator_of(const Type& t) {
  if (t.kind == TypeKind::Iterator) return t;
  if (t.is_array() && t.storage == ArrayStorage::Raw && t.elems.empty()) return Type::iterator("pointer", t.dtype);
  return Type();
}

std::string thrust_iterator_c_type(const Type& t) {
  const std::string v = c_type(t.dtype);
  if (t.name == "pointer") return v + "*";
  if (t.name == "strided") return "kiln::jit::StridedIter<" + v + ">";
  if (t.name == "constant") return "kiln::jit::ConstantIter<" + v + ">";
  return "kiln::jit::CountingIter<" + v + ">";
}

Type array_iterator_result(const BuiltinInfo& b, const CallSite& s) {
  if (!s.args.empty() || !s.kwargs.empty())
    fail(DiagKind::Type, s.call.span, "`" + std::string(b.name.substr(b.name.rfind('.') + 1)) + "()` takes no arguments");
  const Type& a = *s.self;
  if (a.storage == ArrayStorage::Strided && a.ndim != 1)
    fail(DiagKind::Type, s.call.span, "begin() and end() of a strided array take a 1-d array (index its rows first: x[i].begin()), got " + a.str());
  if (a.storage == ArrayStorage::Raw && (a.size < 0 || !a.elems.empty()))
    fail(DiagKind::Type, s.call.span, "begin() and end() take an array of known size, got " + a.str());
  return Type::iterator(a.storage == ArrayStorage::Strided ? "strided" : "pointer", a.dtype);
}

Type thrust_call_result(const BuiltinInfo& b, const CallSite& s) {
  const std::string name(b.name.substr(b.name.rfind('.') + 1));
  const Algorithm& alg = algorithms().at(name);
  if (!s.kwargs.empty()) fail(DiagKind::Type, s.call.span, "`" + short_name(b) + "` takes no keyword arguments");
  const int n = static_cast<int>(s.args.size());
  if (n < alg.min_args || n > alg.max_args || (alg.res == Res::Search && n == 5)) {
    std::string want = alg.res == Res::Search ? "4 or 6" : alg.min_args == alg.max_args ? std::to_string(alg.min_args)
                                                : std::to_string(alg.min_args) + " to " + std::to_string(alg.max_args);
    fail(DiagKind::Type, s.call.span, "`" + short_name(b) + "` takes " + want + " arguments" +
                                          (alg.res == Res::ConstantIt || alg.res == Res::CountingIt ? "" : ", the policy first") +
                                          ", got " + std::to_string(n) + " (" + std::string(b.doc) + ")");
  }
  if (alg.res == Res::ConstantIt || alg.res == Res::CountingIt) {
    if (!s.args[0].is_scalar() || s.args[0].is_complex())
      fail(DiagKind::Type, s.arg(0).span, "`" + short_name(b) + "` takes a real number, got " + s.args[0].str());
    return Type::iterator(alg.res == Res::ConstantIt ? "constant" : "counting", strong(s.args[0]).dtype);
  }
  const Type& policy = s.args[0];
  if (policy.kind != TypeKind::Builtin || (policy.name != "kiln.jit.thrust.seq" && policy.name != "kiln.jit.thrust.device"))
    fail(DiagKind::Type, s.arg(0).span, "`" + short_name(b) + "` takes the policy first (jit.thrust.seq or jit.thrust.device), got " + policy.str());
  for (int i : {1, 2})
    if (!iterator_of(s.args[static_cast<size_t>(i)]).valid())
      fail(DiagKind::Type, s.arg(static_cast<size_t>(i)).span,
           "`" + short_name(b) + "`: a range is two iterators (array.begin(), array.end()), got " + s.args[static_cast<size_t>(i)].str());
  for (int i = 1; i < n; ++i) {
    const Type& t = s.args[static_cast<size_t>(i)];
    if (!iterator_of(t).valid() && !t.is_scalar())
      fail(DiagKind::Type, s.arg(static_cast<size_t>(i)).span,
           "`" + short_name(b) + "` takes iterators (array.begin(), array.end(), shared memory + n) and numbers, got " + t.str());
  }
  auto iter = [&](int i) {
    Type t = iterator_of(s.args[static_cast<size_t>(i)]);
    if (!t.valid())
      fail(DiagKind::Type, s.arg(static_cast<size_t>(i)).span, "`" + short_name(b) + "`: argument " + std::to_string(i + 1) +
                                                                    " must be an iterator, got " + s.args[static_cast<size_t>(i)].str());
    return t;
  };
  switch (alg.res) {
    case Res::Void: return Type::void_();
    case Res::Bool: return Type::scalar(DType::Bool);
    case Res::Count: return Type::scalar(DType::Int64);
    case Res::Arg: return iter(alg.a);
    case Res::Pair: return Type::tuple({iter(alg.a), iter(alg.b)});
    case Res::Reduce:
      if (n == 4) return strong(s.args[3]);
      return Type::scalar(iter(1).dtype);
    case Res::Init: return strong(s.args[static_cast<size_t>(alg.a)]);
    case Res::Search:
      if (n == 6) return iter(5);
      return name == "binary_search" ? Type::scalar(DType::Bool) : iter(1);
    case Res::ConstantIt: case Res::CountingIt: break;
  }
  return Type::void_();
}

}  // namespace kiln::transpiler
