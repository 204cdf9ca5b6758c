// numpy.einsum and numpy.einsum_path: parsing, NumPy's checks, the
// contraction order and its execution over kiln's operations (einsum.h).
//
// Note [Einsum plan]
// No element is touched on the host. Each operand's repeated labels become
// one axis of a strided view (the diagonal: the axes' strides added), axes
// of size 1 are broadcast (stride 0) to their label's size, and a label
// found in one operand only and not in the output is summed away there
// (reduce_apply of add). Operands are then contracted two at a time: the
// labels both hold are batch labels when still needed (by the output or
// another operand) and summed labels otherwise; each operand is transposed
// to (batch, free, summed) / (batch, summed, free), reshaped to three axes
// and multiplied through the matmul engine (matmul_into: cuBLAS or kiln's
// kernel, batched; integers exact, bool OR of ANDs), or, when every output
// of the product is one dot product, as a multiply and a sum over k
// (Note [Dot products by reduction]), or through multiply of broadcast
// views when nothing is summed. The last operand's remaining labels are
// summed, and its axes transposed into the output's order: a single
// operand needing neither sum nor cast comes back as a view, as NumPy's.
// Every product and sum runs in the result dtype, except float16, which is
// computed in float32 and rounded once at the end (NumPy's einsum also
// accumulates float16 in float32).
//
// Note [Einsum order]
// optimize=False contracts the operands in order, each into the product of
// those before it. optimize=True, 'greedy' and 'optimal' choose greedily:
// at each step the pair whose product is smallest (in elements; ties: the
// fewest multiply-adds, then the first pair), which is what NumPy's
// 'greedy' aims at too, though not always its choice; 'optimal' (NumPy's
// exhaustive search) is the same greedy order in kiln. A path from
// einsum_path (['einsum_path', (i, j), ...]: each tuple's operands are
// contracted into one that goes to the end of the list) is followed as
// given.
//
// Note [Einsum labels]
// A label is an int: the axes an ellipsis covers are 0..E-1 (E the longest
// ellipsis; shorter ones take the last numbers, so that they broadcast from
// the right), a letter is kLetter + its ASCII code. Sorted, the ints are in
// the order of NumPy's implicit output: the ellipsis, then upper case, then
// lower case letters.
#include "arraycore/einsum.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <limits>
#include <stdexcept>

#include "arraycore/axes.h"
#include "arraycore/copy.h"
#include "arraycore/matmul.h"
#include "arraycore/reduce_apply.h"
#include "arraycore/ufunc.h"
#include "arraycore/ufunc_apply.h"
#include "arraycore/views.h"

namespace kiln::arraycore {
namespace {

using Label = int;
using Labels = std::vector<Label>;
using LabelSet = std::bitset<256>;
using Path = std::vector<std::vector<int64_t>>;
using Sizes = std::array<int64_t, 256>;   // per label; -1 where absent
using Cost = unsigned __int128;           // element counts for the greedy order, saturating
constexpr Label kLetter = 128;
constexpr Label kEllipsis = -1;           // where a parsed term's ellipsis is, before expansion

bool is_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool contains(const Labels& ls, Label l) { return std::find(ls.begin(), ls.end(), l) != ls.end(); }
// The index of l's first place in ls (ls.size() when absent).
size_t position(const Labels& ls, Label l) {
  return static_cast<size_t>(std::find(ls.begin(), ls.end(), l) - ls.begin());
}
std::string label_text(Label l) { return l >= kLetter ? std::string(1, static_cast<char>(l - kLetter)) : "..."; }

LabelSet set_of(const Labels& ls) {
  LabelSet s;
  for (Label l : ls) s.set(static_cast<size_t>(l));
  return s;
}

// The character at text[i] (its whole UTF-8 sequence), for messages.
std::string char_at(std::string_view text, size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  const size_t n = c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  return std::string(text.substr(i, n));
}




// --- the subscript language ----------------------------------------------------

// A term's labels, kEllipsis where its ellipsis is.
Labels parse_term(std::string_view text, const std::string& where) {
  Labels labels;
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '.') {
      if (text.substr(i, 3) != "..." || contains(labels, kEllipsis))
        throw std::invalid_argument(
            "einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...') in " + where);
      labels.push_back(kEllipsis);
      i += 3;
      continue;
    }
    if (!is_letter(text[i]))
      throw std::invalid_argument("invalid subscript '" + char_at(text, i) +
                                  "' in einstein sum subscripts string, subscripts must be letters");
    labels.push_back(kLetter + text[i]);
    ++i;
  }
  return labels;
}

struct Subscripts {
  std::vector<Labels> inputs;   // each operand's labels, one per axis (Note [Einsum labels])
  Labels output;
};

Subscripts parse(std::string_view subscripts, std::span<const int> ndims) {
  std::string text, stripped;   // without spaces; and without its arrows
  for (char c : subscripts)
    if (c != ' ') text += c;
  size_t arrows = 0;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "->") == 0) {
      ++arrows;
      i += 2;
    } else {
      stripped += text[i++];
    }
  }
  if (arrows > 1 || stripped.find_first_of("->") != std::string::npos)
    throw std::invalid_argument("einstein sum subscript string does not contain proper '->' output specified");
  const size_t arrow = text.find("->");
  const std::string_view all(text);
  const std::string_view lhs = all.substr(0, arrow), rhs = arrow == std::string::npos ? "" : all.substr(arrow + 2);
  std::vector<std::string_view> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  // (NumPy's messages for this say "more" and "fewer" the other way round.)
  if (terms.size() != ndims.size())
    throw std::invalid_argument("the einstein sum subscripts string has " + std::to_string(terms.size()) +
                                " operand terms, but " + std::to_string(ndims.size()) + " operands were given");
  std::vector<Labels> parsed;
  for (size_t i = 0; i < terms.size(); ++i) parsed.push_back(parse_term(terms[i], "operand " + std::to_string(i)));
  std::vector<int> spans;
  for (size_t i = 0; i < parsed.size(); ++i) {
    const bool dots = contains(parsed[i], kEllipsis);
    const int letters = static_cast<int>(parsed[i].size()) - dots;
    if (letters > ndims[i])
      throw std::invalid_argument("einstein sum subscripts string contains too many subscripts for operand " +
                                  std::to_string(i));
    if (!dots && letters < ndims[i])
      throw std::invalid_argument("operand has more dimensions than subscripts given in einstein sum, but no '...' "
                                  "ellipsis provided to broadcast the extra dimensions.");
    spans.push_back(ndims[i] - letters);
  }
  const int longest = spans.empty() ? 0 : *std::max_element(spans.begin(), spans.end());
  Subscripts s;
  for (size_t i = 0; i < parsed.size(); ++i) {
    Labels expanded;
    for (Label c : parsed[i]) {
      if (c != kEllipsis) expanded.push_back(c);
      else
        for (int d = longest - spans[i]; d < longest; ++d) expanded.push_back(d);
    }
    s.inputs.push_back(std::move(expanded));
  }
  if (arrow != std::string::npos) {
    const Labels out = parse_term(rhs, "the output");
    LabelSet seen;
    for (Label c : out) {
      if (c == kEllipsis) continue;
      if (seen[static_cast<size_t>(c)])
        throw std::invalid_argument("einstein sum subscripts string includes output subscript '" + label_text(c) +
                                    "' multiple times");
      if (std::none_of(parsed.begin(), parsed.end(), [c](const Labels& ls) { return contains(ls, c); }))
        throw std::invalid_argument("einstein sum subscripts string included output subscript '" + label_text(c) +
                                    "' which never appeared in an input");
      seen.set(static_cast<size_t>(c));
    }
    if (!contains(out, kEllipsis) && longest > 0)
      throw std::invalid_argument("output has more dimensions than subscripts given in einstein sum, but no '...' "
                                  "ellipsis provided to broadcast the extra dimensions.");
    for (Label c : out) {
      if (c != kEllipsis) s.output.push_back(c);
      else
        for (int d = 0; d < longest; ++d) s.output.push_back(d);
    }
  } else {   // implicit: the ellipsis, then the letters found once, sorted
    std::array<int, 256> counts{};
    for (const Labels& ls : parsed)
      for (Label c : ls)
        if (c != kEllipsis) ++counts[static_cast<size_t>(c)];
    for (int d = 0; d < longest; ++d) s.output.push_back(d);
    for (Label c = kLetter; c < 256; ++c)
      if (counts[static_cast<size_t>(c)] == 1) s.output.push_back(c);
  }
  return s;
}

// NumPy's message: each operand's shape, and seen along the output's labels
// then the summed ones.
std::invalid_argument broadcast_error(const std::vector<Labels>& inputs, std::span<const Shape> shapes,
                                      const Labels& output) {
  Labels order = output;
  for (const Labels& ls : inputs)
    for (Label c : ls)
      if (!contains(order, c)) order.push_back(c);
  std::string parts;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string original, remapped;
    for (size_t k = 0; k < shapes[i].size(); ++k) original += std::to_string(shapes[i][k]) + ",";
    if (shapes[i].size() > 1) original.pop_back();   // "(4,)" for one axis, as Python's tuples
    for (size_t k = 0; k < order.size(); ++k) {
      if (k) remapped += ",";
      remapped += contains(inputs[i], order[k]) ? std::to_string(shapes[i][position(inputs[i], order[k])]) : "newaxis";
    }
    if (i) parts += " ";
    parts += "(" + original + ")->(" + remapped + ")";
  }
  return std::invalid_argument(
      "operands could not be broadcast together with remapped shapes [original->remapped]: " + parts);
}

// Each label's size: equal wherever it appears in one operand, and equal or
// 1 (broadcast) across operands.
Sizes label_sizes(const std::vector<Labels>& inputs, std::span<const Shape> shapes, const Labels& output) {
  Sizes sizes;
  sizes.fill(-1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    Sizes mine;
    mine.fill(-1);
    Labels first;
    for (size_t k = 0; k < inputs[i].size(); ++k) {
      const auto c = static_cast<size_t>(inputs[i][k]);
      const int64_t n = shapes[i][k];
      if (mine[c] >= 0 && mine[c] != n)
        throw std::invalid_argument(
            "dimensions in " + (inputs.size() == 1 ? std::string("single operand") : "operand " + std::to_string(i)) +
            " for collapsing index '" + label_text(inputs[i][k]) + "' don't match (" + std::to_string(mine[c]) +
            " != " + std::to_string(n) + ")");
      if (mine[c] < 0) first.push_back(inputs[i][k]);
      mine[c] = n;
    }
    for (Label l : first) {
      const auto c = static_cast<size_t>(l);
      if (sizes[c] >= 0 && sizes[c] != 1 && mine[c] != 1 && sizes[c] != mine[c])
        throw broadcast_error(inputs, shapes, output);
      if (mine[c] != 1 || sizes[c] < 0) sizes[c] = mine[c];
    }
  }
  return sizes;
}

// --- the contraction order (Note [Einsum order]) ----------------------------------

int64_t size_of(const Labels& ls, const Sizes& sizes) {
  int64_t n = 1;
  for (Label c : ls) n *= sizes[static_cast<size_t>(c)];
  return n;
}

Cost times(Cost a, Cost b) {
  const Cost most = ~Cost(0);
  return a != 0 && b > most / a ? most : a * b;
}

Cost cost_of(const Labels& ls, const Sizes& sizes) {
  Cost n = 1;
  for (Label c : ls) n = times(n, static_cast<Cost>(sizes[static_cast<size_t>(c)]));
  return n;
}

std::string cost_text(Cost n) {
  std::string t;
  do {
    t.insert(t.begin(), static_cast<char>('0' + static_cast<int>(n % 10)));
    n /= 10;
  } while (n != 0);
  return t;
}

// How a product of terms labelled la and lb goes (Note [Einsum plan]): its
// batch, summed, a-only and b-only labels; the result holds batch + a-only +
// b-only. Labels of one side not needed are summed beforehand.
struct Pair {
  Labels batch, summed, free_a, free_b;
  Labels result() const {
    Labels r = batch;
    r.insert(r.end(), free_a.begin(), free_a.end());
    r.insert(r.end(), free_b.begin(), free_b.end());
    return r;
  }
};

Pair pair_of(const Labels& la_all, const Labels& lb_all, const LabelSet& need) {
  Labels la, lb;
  for (Label c : la_all)
    if (need[static_cast<size_t>(c)] || contains(lb_all, c)) la.push_back(c);
  for (Label c : lb_all)
    if (need[static_cast<size_t>(c)] || contains(la, c)) lb.push_back(c);
  Pair p;
  for (Label c : la) {
    if (!contains(lb, c)) p.free_a.push_back(c);
    else if (need[static_cast<size_t>(c)]) p.batch.push_back(c);
    else p.summed.push_back(c);
  }
  for (Label c : lb)
    if (!contains(la, c)) p.free_b.push_back(c);
  return p;
}

// The output's labels and those of every term but skip_a and skip_b.
LabelSet needed(const std::vector<Labels>& terms, size_t skip_a, size_t skip_b, const Labels& output) {
  LabelSet need = set_of(output);
  for (size_t k = 0; k < terms.size(); ++k)
    if (k != skip_a && k != skip_b) need |= set_of(terms[k]);
  return need;
}

Path greedy_path(std::vector<Labels> terms, const Sizes& sizes, const Labels& output) {
  Path path;
  while (terms.size() > 1) {
    size_t bi = 0, bj = 0;
    Cost best_size = 0, best_work = 0;
    Labels best;
    bool found = false;
    for (size_t i = 0; i < terms.size(); ++i) {
      for (size_t j = i + 1; j < terms.size(); ++j) {
        const Pair p = pair_of(terms[i], terms[j], needed(terms, i, j, output));
        Labels result = p.result();
        const Cost size = cost_of(result, sizes), work = times(size, cost_of(p.summed, sizes));
        if (!found || size < best_size || (size == best_size && work < best_work)) {
          found = true;
          bi = i, bj = j, best_size = size, best_work = work, best = std::move(result);
        }
      }
    }
    path.push_back({static_cast<int64_t>(bi), static_cast<int64_t>(bj)});
    terms.erase(terms.begin() + static_cast<std::ptrdiff_t>(bj));
    terms.erase(terms.begin() + static_cast<std::ptrdiff_t>(bi));
    terms.push_back(std::move(best));
  }
  return path;
}

std::string path_text(const Path& path) {
  std::string t = "['einsum_path'";
  for (const auto& step : path) t += ", " + shape_repr(step);
  return t + "]";
}

// The contraction path: a list of steps of positions (Note [Einsum order]).
Path choose_path(const EinsumOptimize& optimize, const std::vector<Labels>& terms, const Sizes& sizes,
                 const Labels& output) {
  const auto n = static_cast<int64_t>(terms.size());
  switch (optimize.kind) {
    case EinsumOptimize::Kind::Path: {
      int64_t count = n;
      for (const auto& step : optimize.path) {
        std::vector<int64_t> sorted = step;
        std::sort(sorted.begin(), sorted.end());
        if (step.empty() || sorted.front() < 0 || sorted.back() >= count ||
            std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
          throw std::invalid_argument("einsum_path step " + shape_repr(step) +
                                      " does not name distinct operands among the " + std::to_string(count) +
                                      " then present");
        count -= static_cast<int64_t>(step.size()) - 1;
      }
      if (count != 1)
        throw std::invalid_argument("einsum_path " + path_text(optimize.path) + " leaves " + std::to_string(count) +
                                    " operands, not one");
      return optimize.path;
    }
    case EinsumOptimize::Kind::InOrder: {
      if (n == 1) return {{0}};
      Path path = {{0, 1}};
      for (int64_t k = 1; k < n - 1; ++k) path.push_back({0, n - 1 - k});
      return path;
    }
    case EinsumOptimize::Kind::Greedy:
      return n == 1 ? Path{{0}} : greedy_path(terms, sizes, output);
  }
  return {};
}

// A term's text, its ellipsis axes as one "...".
std::string term_text(const Labels& ls) {
  std::string t;
  bool dots = false;
  for (Label c : ls) {
    if (c >= kLetter) t += static_cast<char>(c - kLetter);
    else if (!dots) t += "...", dots = true;
  }
  return t;
}

std::string contraction_text(const std::vector<Labels>& terms, const Labels& output) {
  std::string t;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (i) t += ",";
    t += term_text(terms[i]);
  }
  return t + "->" + term_text(output);
}

// --- running a contraction (Note [Einsum plan]) -----------------------------------

struct Term {
  NDArray a;
  Labels labels;   // one per axis of a, distinct
};

NDArray strided(const NDArray& a, Shape shape, Strides strides) {
  return NDArray(a.memory(), a.dtype(), std::move(shape), std::move(strides), a.offset());
}

// a.astype(dtype) (order 'K', as C or F).
NDArray cast(const NDArray& a, DType dtype, bool& discards_imaginary) {
  if (dtype_info(a.dtype()).kind == 'c' && dtype_info(dtype).kind != 'c') discards_imaginary = true;
  return astype(a, dtype, a.f_contiguous() && !a.c_contiguous() ? Order::F : Order::C);
}

// a with each repeated label's axes made one (the diagonal) and size-1 axes
// broadcast to their label's size.
Term prepare(const NDArray& a, const Labels& labels, const Sizes& sizes) {
  Term t{a, {}};
  Shape shape;
  Strides strides;
  for (size_t k = 0; k < labels.size(); ++k) {
    const size_t at = position(t.labels, labels[k]);
    if (at == t.labels.size()) {
      t.labels.push_back(labels[k]);
      shape.push_back(sizes[static_cast<size_t>(labels[k])]);
      strides.push_back(0);
    }
    if (a.shape()[k] != 1) strides[at] += a.strides()[k];
  }
  t.a = strided(a, std::move(shape), std::move(strides));
  return t;
}

// t summed over its labels not in `keep`.
Term sum_labels(Term t, const LabelSet& keep, DType dtype) {
  std::vector<int64_t> drop;
  Labels kept;
  for (size_t k = 0; k < t.labels.size(); ++k) {
    if (keep[static_cast<size_t>(t.labels[k])]) kept.push_back(t.labels[k]);
    else drop.push_back(static_cast<int64_t>(k));
  }
  if (drop.empty()) return t;
  ReduceOptions o;
  o.axes = std::move(drop);
  o.dtype = dtype;
  return {reduce_apply(ufunc("add"), t.a, o), std::move(kept)};
}

// t's axes in the order of `order`'s labels.
NDArray transposed(const Term& t, const Labels& order) {
  std::vector<int64_t> axes;
  for (Label c : order) axes.push_back(static_cast<int64_t>(position(t.labels, c)));
  return transpose(t.a, axes);
}

NDArray multiply(const NDArray& x, const NDArray& y) {
  const UfuncInput in[] = {UfuncInput::of(x), UfuncInput::of(y)};
  return ufunc_apply(ufunc("multiply"), in, UfuncOptions{})[0];
}

// a (batch, m, k) @ b (batch, k, n), both of dtype, as a new array of batch * m * n elements.
// Products whose every output is one dot product (m == n == 1) are a
// multiply and a sum over k through the reduction engine instead of the
// matmul engine's 64 x 64 tiles, by the rule and with the results of Note
// [Dot products by reduction] (pyfrontend/kiln/linalg/_products.py, whose
// _product this is for einsum).
NDArray product(const NDArray& a, const NDArray& b, DType dtype) {
  const int64_t batch = a.shape()[0], m = a.shape()[1], k = a.shape()[2], n = b.shape()[2];
  if (m == 1 && n == 1 && batch > 0) {
    const NDArray x = strided(a, {batch, k}, {a.strides()[0], a.strides()[2]});
    const NDArray y = strided(b, {batch, k}, {b.strides()[0], b.strides()[1]});
    ReduceOptions o;
    o.axes = std::vector<int64_t>{-1};
    o.single = true;
    o.dtype = dtype;
    return reduce_apply(ufunc("add"), multiply(x, y), o);
  }
  NDArray c = NDArray::empty({batch, m, n}, dtype);
  matmul_into(a, b, c);
  return c;
}

// The product of a and b summed over their shared labels not in `need`
// (its labels: batch, a's free, b's free).
Term contract(Term a, Term b, const LabelSet& need, const Sizes& sizes, DType dtype) {
  const Pair p = pair_of(a.labels, b.labels, need);
  a = sum_labels(std::move(a), need | set_of(b.labels), dtype);
  b = sum_labels(std::move(b), need | set_of(a.labels), dtype);
  Labels labels = p.result(), a_order = p.batch, b_order = p.batch;
  a_order.insert(a_order.end(), p.free_a.begin(), p.free_a.end());
  a_order.insert(a_order.end(), p.summed.begin(), p.summed.end());
  b_order.insert(b_order.end(), p.summed.begin(), p.summed.end());
  b_order.insert(b_order.end(), p.free_b.begin(), p.free_b.end());
  Shape shape;
  for (Label c : labels) shape.push_back(sizes[static_cast<size_t>(c)]);
  const NDArray av = transposed(a, a_order), bv = transposed(b, b_order);
  const int64_t k = size_of(p.summed, sizes);
  if (k == 1) {   // nothing summed: a product of broadcast views
    const size_t nb = p.batch.size(), na = p.free_a.size();
    Strides sa(av.strides().begin(), av.strides().begin() + static_cast<std::ptrdiff_t>(nb + na));
    sa.resize(labels.size(), 0);
    Strides sb(bv.strides().begin(), bv.strides().begin() + static_cast<std::ptrdiff_t>(nb));
    sb.resize(nb + na, 0);
    sb.insert(sb.end(), bv.strides().begin() + static_cast<std::ptrdiff_t>(nb + p.summed.size()), bv.strides().end());
    return {multiply(strided(av, shape, std::move(sa)), strided(bv, shape, std::move(sb))), std::move(labels)};
  }
  const int64_t batch = size_of(p.batch, sizes), m = size_of(p.free_a, sizes), n = size_of(p.free_b, sizes);
  const NDArray a3 = reshape(av, {batch, m, k}), b3 = reshape(bv, {batch, k, n});
  return {reshape(product(a3, b3, dtype), shape), std::move(labels)};
}

void check_out(const NDArray& out, const Shape& shape, DType dtype, Casting casting, size_t nops) {
  if (out.ndim() != static_cast<int>(shape.size()))
    throw std::invalid_argument("out parameter does not have the correct number of dimensions, has " +
                                std::to_string(out.ndim()) + " but should have " + std::to_string(shape.size()));
  if (out.shape() != shape)
    throw std::invalid_argument("out parameter has shape " + shape_repr(out.shape()) +
                                ", the einstein sum's output has shape " + shape_repr(shape));
  if (!can_cast(dtype, out.dtype(), casting))
    throw TypeError("Iterator requested dtype could not be cast from " + dtype_repr(dtype) + " to " +
                    dtype_repr(out.dtype()) + ", the operand " + std::to_string(nops) +
                    " dtype, according to the rule '" + casting_name(casting) + "'");
}

}  // namespace

char sublist_letter(int64_t s) {
  if (s < 0 || s >= 52) throw std::invalid_argument("subscript is not within the valid range [0, 52)");
  return static_cast<char>(s < 26 ? 'A' + s : 'a' + (s - 26));
}

EinsumResult einsum_apply(std::string_view subscripts, std::span<const NDArray> operands,
                          const EinsumOptions& options) {
  std::vector<int> ndims;
  std::vector<Shape> shapes;
  std::vector<DType> dtypes;
  for (const NDArray& a : operands) {
    ndims.push_back(a.ndim());
    shapes.push_back(a.shape());
    dtypes.push_back(a.dtype());
  }
  const Subscripts s = parse(subscripts, ndims);
  const Sizes sizes = label_sizes(s.inputs, shapes, s.output);
  // Note [Einsum views]: one operand whose labels all survive (a transpose, a
  // diagonal) is NumPy's view of that operand, in its own dtype whatever
  // dtype= asks (NumPy's einsum neither casts it nor checks casting=).
  if (operands.size() == 1 && options.out == nullptr) {
    Term t = prepare(operands[0], s.inputs[0], sizes);
    if (set_of(t.labels) == set_of(s.output)) {
      NDArray view = transposed(t, s.output);
      if ((options.order != 'C' || view.c_contiguous()) && (options.order != 'F' || view.f_contiguous()))
        return {std::move(view), false};
    }
  }
  const DType dtype = options.dtype ? *options.dtype : result_type(dtypes, {});
  for (size_t i = 0; i < dtypes.size(); ++i)
    if (!can_cast(dtypes[i], dtype, options.casting))
      throw TypeError("Iterator operand " + std::to_string(i) + " dtype could not be cast from " +
                      dtype_repr(dtypes[i]) + " to " + dtype_repr(dtype) + " according to the rule '" +
                      casting_name(options.casting) + "'");
  Shape shape;
  for (Label c : s.output) shape.push_back(sizes[static_cast<size_t>(c)]);
  if (options.out != nullptr) check_out(*options.out, shape, dtype, options.casting, operands.size());

  bool discards_imaginary = false;
  const DType acc = dtype == DType::Float16 || dtype == DType::BFloat16 ? DType::Float32 : dtype;
  std::vector<Term> terms;
  std::vector<Labels> labels;
  for (size_t i = 0; i < operands.size(); ++i) {
    Term t = prepare(operands[i], s.inputs[i], sizes);
    if (t.a.dtype() != acc) t.a = cast(t.a, acc, discards_imaginary);
    labels.push_back(t.labels);
    terms.push_back(std::move(t));
  }
  for (const auto& step : choose_path(options.optimize, labels, sizes, s.output)) {
    std::vector<Term> chosen, rest;
    for (int64_t i : step) chosen.push_back(terms[static_cast<size_t>(i)]);
    for (size_t k = 0; k < terms.size(); ++k)
      if (std::find(step.begin(), step.end(), static_cast<int64_t>(k)) == step.end()) rest.push_back(terms[k]);
    LabelSet need = set_of(s.output);
    for (const Term& t : rest) need |= set_of(t.labels);
    Term a = chosen[0];
    for (size_t k = 1; k < chosen.size(); ++k) {
      LabelSet later = need;
      for (size_t j = k + 1; j < chosen.size(); ++j) later |= set_of(chosen[j].labels);
      a = contract(std::move(a), chosen[k], later, sizes, acc);
    }
    rest.push_back(sum_labels(std::move(a), need, acc));
    terms = std::move(rest);
  }
  NDArray res = transposed(terms[0], s.output);
  if (res.dtype() != dtype) res = cast(res, dtype, discards_imaginary);
  if (options.out != nullptr) {
    if (dtype_info(res.dtype()).kind == 'c' && dtype_info(options.out->dtype()).kind != 'c')
      discards_imaginary = true;
    copy_into(res, *options.out);
    return {*options.out, discards_imaginary};
  }
  if (options.order == 'C' && !res.c_contiguous()) res = astype(res, res.dtype(), Order::C);
  if (options.order == 'F' && !res.f_contiguous()) res = astype(res, res.dtype(), Order::F);
  return {std::move(res), discards_imaginary};
}

EinsumPath einsum_path(std::string_view subscripts, std::span<const Shape> shapes, const EinsumOptimize& optimize) {
  std::vector<int> ndims;
  for (const Shape& sh : shapes) ndims.push_back(static_cast<int>(sh.size()));
  const Subscripts s = parse(subscripts, ndims);
  const Sizes sizes = label_sizes(s.inputs, shapes, s.output);
  std::vector<Labels> terms;
  for (const Labels& ls : s.inputs) {
    Labels distinct;
    for (Label c : ls)
      if (!contains(distinct, c)) distinct.push_back(c);
    terms.push_back(std::move(distinct));
  }
  EinsumPath p{choose_path(optimize, terms, sizes, s.output), ""};
  p.text = "  Complete contraction:  " + contraction_text(s.inputs, s.output);
  for (const auto& step : p.path) {
    std::vector<Labels> chosen, rest;
    for (int64_t i : step) chosen.push_back(terms[static_cast<size_t>(i)]);
    for (size_t k = 0; k < terms.size(); ++k)
      if (std::find(step.begin(), step.end(), static_cast<int64_t>(k)) == step.end()) rest.push_back(terms[k]);
    const LabelSet need = needed(rest, rest.size(), rest.size(), s.output);
    Labels result;
    for (Label c : chosen[0])
      if (need[static_cast<size_t>(c)]) result.push_back(c);
    for (size_t k = 1; k < chosen.size(); ++k) {
      LabelSet later = need;
      for (size_t j = k + 1; j < chosen.size(); ++j) later |= set_of(chosen[j]);
      result = pair_of(result, chosen[k], later).result();
    }
    std::string line = contraction_text(chosen, result);
    if (line.size() < 32) line.resize(32, ' ');
    p.text += "\n  " + line + " elements " + cost_text(cost_of(result, sizes));
    rest.push_back(std::move(result));
    terms = std::move(rest);
  }
  return p;
}

}  // namespace kiln::arraycore
