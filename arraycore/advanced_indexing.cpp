#include "arraycore/advanced_indexing.h"

#include <limits>
#include <string>

#include "arraycore/copy.h"
#include "arraycore/elementwise.h"
#include "arraycore/scan.h"
#include "arraycore/strided_plan.h"
#include "arraycore/transfer.h"
#include "kiln/advanced_indexing.h"
#include "runtime/loaded_module.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

constexpr uint32_t kBlock = 256;

// One module per element size with the gather and scatter kernels; one with
// the kernels that read only indices and masks.
runtime::CompileRequest make_moves_source(size_t itemsize) {
  std::string elem = "kiln_pair";   // the elements' bits move as the table's unsigned type of their size
  for (DType d : {DType::UInt8, DType::UInt16, DType::UInt32, DType::UInt64})
    if (dtype_info(d).itemsize == itemsize) elem = dtype_info(d).c_type;
  runtime::CompileRequest r;
  r.source_name = "kiln_index_moves.cu";
  r.source =
      "#include <kiln/advanced_indexing.h>\n"
      "struct kiln_pair { unsigned long long lo, hi; };\n"
      "typedef " + elem + " elem_t;\n"
      "extern \"C\" __global__ void kiln_gather(const char* data, const char* idx, char* out, long long n,\n"
      "                                         kiln::Layout<3> layout, kiln::IndexAccess access) {\n"
      "  kiln::gather<elem_t>(data, idx, out, n, layout, access);\n"
      "}\n"
      "extern \"C\" __global__ void kiln_scatter(char* data, const char* idx, const char* values, long long n,\n"
      "                                          kiln::Layout<3> layout, kiln::IndexAccess access,\n"
      "                                          const unsigned long long* owner, long long slot_base) {\n"
      "  kiln::scatter<elem_t>(data, idx, values, n, layout, access, owner, slot_base);\n"
      "}\n";
  return r;
}

const runtime::CompileRequest& moves_source(size_t itemsize) {
  static const runtime::CompileRequest sources[5] = {make_moves_source(1), make_moves_source(2), make_moves_source(4),
                                                     make_moves_source(8), make_moves_source(16)};
  return sources[itemsize == 1 ? 0 : itemsize == 2 ? 1 : itemsize == 4 ? 2 : itemsize == 8 ? 3 : 4];
}

const runtime::CompileRequest& tools_source() {
  static const runtime::CompileRequest r = [] {
    runtime::CompileRequest q;
    q.source_name = "kiln_index_tools.cu";
    q.source =
        "#include <kiln/advanced_indexing.h>\n"
        "extern \"C\" __global__ void kiln_claim_targets(const char* idx, long long n, kiln::Layout<3> layout,\n"
        "    kiln::IndexAccess access, unsigned long long* owner, long long slot_base, long long itemsize) {\n"
        "  kiln::claim_targets(idx, n, layout, access, owner, slot_base, itemsize);\n"
        "}\n"
        "extern \"C\" __global__ void kiln_check_bounds(const char* idx, long long n, kiln::Layout<1> layout,\n"
        "    long long axis_size, unsigned long long* first_bad) {\n"
        "  kiln::check_bounds(idx, n, layout, axis_size, first_bad);\n"
        "}\n"
        "extern \"C\" __global__ void kiln_add_offsets(const char* idx, char* sum, long long n,\n"
        "    kiln::Layout<2> layout, kiln::IndexAccess access, int first) {\n"
        "  kiln::add_offsets(idx, sum, n, layout, access, first);\n"
        "}\n"
        "extern \"C\" __global__ void kiln_compact(const unsigned char* mask, const long long* counts,\n"
        "    long long* positions, long long n) {\n"
        "  kiln::compact(mask, counts, positions, n);\n"
        "}\n"
        "extern \"C\" __global__ void kiln_position_offsets(const long long* positions, long long* out,\n"
        "    long long count, kiln::Layout<1> layout) {\n"
        "  kiln::position_offsets(positions, out, count, layout);\n"
        "}\n"
        "extern \"C\" __global__ void kiln_unravel(const long long* positions, char* out, long long count,\n"
        "    kiln::Unravel u) {\n"
        "  kiln::unravel(positions, out, count, u);\n"
        "}\n";
    return q;
  }();
  return r;
}

void launch(const runtime::CompileRequest& source, const char* name, int64_t work, void** args) {
  auto& be = runtime::backend();
  auto module = runtime::load_module_cached(source, be.current_device());
  be.launch(module->function(name).handle, {grid_stride_blocks(work, kBlock), 1, 1}, {kBlock, 1, 1}, 0,
            runtime::current_stream(), args);
}

template <int N>
kiln::Layout<N> layout_for(const Shape& shape, const std::vector<Strides>& strides) {
  StridedPlan plan = collapse_dims(shape, strides);
  if (plan.shape.size() > static_cast<size_t>(kiln::kMaxDims))
    throw std::invalid_argument("arrays of more than 32 dimensions are not supported");
  kiln::Layout<N> layout{};
  layout.ndim = static_cast<int>(plan.shape.size());
  for (size_t d = 0; d < plan.shape.size(); ++d) {
    layout.shape[d] = plan.shape[d];
    for (int k = 0; k < N; ++k) layout.strides[k][d] = plan.strides[k][d];
  }
  return layout;
}

// The int64 at `byte` bytes from a's data, copied to the host.
int64_t read_int64(const NDArray& a, int64_t byte) {
  int64_t v = 0;
  NDArray one(a.memory(), DType::Int64, {}, {}, a.offset() + byte);
  copy_to_host(one, &v, runtime::current_stream(), true);
  return v;
}

std::string out_of_bounds(int64_t index, int axis, int64_t size) {
  return "index " + std::to_string(index) + " is out of bounds for axis " + std::to_string(axis) + " with size " +
         std::to_string(size);
}

// An index array's values (Note [Advanced index plan]).
struct Component {
  NDArray values;            // int64
  kiln::IndexAccess access;  // axis_size 0: byte offsets
  int axis = 0;              // the axis of `a` it indexes, for messages
  const int64_t* host = nullptr;
  bool valid = false;        // in bounds by construction (from a boolean mask)
};

struct Plan {
  NDArray view;  // the basic part (starts as `a`)
  std::vector<Component> components;
  Shape bshape;
  int insert_at = 0;  // where B goes among the view's axes
  Shape result_shape;
};

void check_component(const Component& c) {
  const int64_t n = c.values.size(), size = c.access.axis_size;
  if (c.valid) return;
  if (c.host != nullptr) {
    for (int64_t i = 0; i < n; ++i)
      if (c.host[i] < -size || c.host[i] >= size) throw IndexError(out_of_bounds(c.host[i], c.axis, size));
    return;
  }
  if (n == 0 || (!indexing_config().check_bounds && size > 0)) return;
  NDArray first_bad = NDArray::empty({}, DType::UInt64);
  const uint64_t none = std::numeric_limits<uint64_t>::max();
  copy_from_host(first_bad, &none, runtime::current_stream());
  kiln::Layout<1> layout = layout_for<1>(c.values.shape(), {c.values.strides()});
  const void* ip = c.values.data();
  void* fp = first_bad.data();
  long long count = n, axis_size = size;
  void* args[] = {&ip, &count, &layout, &axis_size, &fp};
  launch(tools_source(), "kiln_check_bounds", n, args);
  uint64_t bad = 0;
  copy_to_host(first_bad, &bad, runtime::current_stream(), true);
  if (bad == none) return;
  // The bad value itself: position `bad` in C order of the values.
  Shape sh = c.values.shape();
  int64_t rest = static_cast<int64_t>(bad), element = 0;
  for (int d = static_cast<int>(sh.size()) - 1; d >= 0; --d) {
    element += (rest % sh[d]) * c.values.strides()[d];
    rest /= sh[d];
  }
  throw IndexError(out_of_bounds(read_int64(c.values, element), c.axis, size));
}

Plan make_plan(const NDArray& a, const std::vector<AdvancedItem>& key) {
  int consumed = 0, ellipses = 0;
  bool any_array = false;
  for (const auto& item : key) {
    if (item.array) {
      any_array = true;
      DType d = item.array->dtype();
      if (d == DType::Bool) consumed += item.array->ndim();
      else if (dtype_info(d).kind != 'i' && dtype_info(d).kind != 'u')
        throw IndexError("arrays used as indices must be of integer (or boolean) type");
      else ++consumed;
    } else if (item.basic.kind == IndexItem::Kind::Integer || item.basic.kind == IndexItem::Kind::Slice) {
      ++consumed;
    } else if (item.basic.kind == IndexItem::Kind::Ellipsis) {
      ++ellipses;
    }
  }
  if (ellipses > 1) throw IndexError("an index can only have a single ellipsis ('...')");
  if (consumed > a.ndim())
    throw IndexError("too many indices for array: array is " + std::to_string(a.ndim()) + "-dimensional, but " +
                     std::to_string(consumed) + " were indexed");

  Plan plan{a, {}, {}, 0, {}};
  // The basic part goes through index_view with every advanced axis kept as
  // a full slice; the kept axes are then taken out of its result.
  std::vector<IndexItem> basic;
  std::vector<int> advanced_view_axes;  // view axes the arrays index
  std::vector<bool> slot_is_marker;     // the key's result slots in order
  int axis = 0, view_axis = 0, first_marker_view_axis = -1;
  bool separated = false;
  auto mark = [&] {
    if (first_marker_view_axis < 0) first_marker_view_axis = view_axis;
    else if (!slot_is_marker.empty() && !slot_is_marker.back()) separated = true;
    slot_is_marker.push_back(true);
  };
  auto keep = [&] {
    slot_is_marker.push_back(false);
    ++view_axis;
  };
  for (const auto& item : key) {
    if (!item.array) {
      basic.push_back(item.basic);
      switch (item.basic.kind) {
        case IndexItem::Kind::NewAxis: keep(); break;
        case IndexItem::Kind::Slice: keep(); ++axis; break;
        case IndexItem::Kind::Integer:
          if (any_array) mark();
          ++axis;
          break;
        case IndexItem::Kind::Ellipsis:
          // An Ellipsis separates index arrays even when it stands for no axis (NumPy's rule).
          if (a.ndim() == consumed) slot_is_marker.push_back(false);
          for (int n = a.ndim() - consumed; n > 0; --n) keep(), ++axis;
          break;
      }
      continue;
    }
    const NDArray& arr = *item.array;
    Component c{arr, {0, 0}, axis, nullptr, false};
    if (arr.dtype() != DType::Bool) {
      basic.push_back(IndexItem::slice({}, {}, {}));
      c.values = arr.dtype() == DType::Int64 ? arr : astype(arr, DType::Int64, Order::C);
      c.access = {a.shape()[axis], a.strides()[axis]};
      c.axis = axis;
      c.host = item.host;
      advanced_view_axes.push_back(view_axis);
      mark();
      ++view_axis;
      ++axis;
    } else if (arr.ndim() == 0) {
      // Note [Advanced index plan]: a new length-1 axis indexed by [0] or [].
      unsigned char truth = 0;
      copy_to_host(arr, &truth, runtime::current_stream(), true);
      c.values = NDArray::zeros({truth ? 1 : 0}, DType::Int64);
      c.access = {1, 0};
      c.valid = true;
      mark();
    } else {
      for (int d = 0; d < arr.ndim(); ++d) {
        // A boolean axis of length 0 selects nothing whatever the array's length there: NumPy's legacy rule.
        if (arr.shape()[d] != 0 && arr.shape()[d] != a.shape()[axis + d])
          throw IndexError("boolean index did not match indexed array along axis " + std::to_string(axis + d) +
                           "; size of axis is " + std::to_string(a.shape()[axis + d]) +
                           " but size of corresponding boolean axis is " + std::to_string(arr.shape()[d]));
      }
      NDArray positions = nonzero_positions(arr);
      Shape sub(a.shape().begin() + axis, a.shape().begin() + axis + arr.ndim());
      Strides strides(a.strides().begin() + axis, a.strides().begin() + axis + arr.ndim());
      kiln::Layout<1> layout = layout_for<1>(sub, {strides});  // collapsing keeps C-order positions
      if (layout.ndim <= 1) {
        // The k axes address like one (a's C-contiguous axes): positions index it.
        c.values = positions;
        c.access = {shape_size(sub), layout.ndim == 1 ? layout.strides[0][0] : 0};
      } else {
        // Byte offsets over the k axes, checked by construction.
        c.values = NDArray::empty(positions.shape(), DType::Int64);
        const void* pp = positions.data();
        void* op = c.values.data();
        long long count = positions.size();
        void* args[] = {&pp, &op, &count, &layout};
        if (count > 0) launch(tools_source(), "kiln_position_offsets", count, args);
        c.access = {0, 0};
      }
      c.valid = true;
      for (int d = 0; d < arr.ndim(); ++d) {
        basic.push_back(IndexItem::slice({}, {}, {}));
        advanced_view_axes.push_back(view_axis + d);
      }
      mark();
      view_axis += arr.ndim();
      axis += arr.ndim();
    }
    plan.components.push_back(std::move(c));
  }
  NDArray full = index_view(a, basic);
  Shape shape;
  Strides strides;
  size_t next = 0;
  int before_marker = 0;
  for (int d = 0; d < full.ndim(); ++d) {
    if (next < advanced_view_axes.size() && advanced_view_axes[next] == d) {
      ++next;
      continue;
    }
    if (d < first_marker_view_axis) ++before_marker;
    shape.push_back(full.shape()[d]);
    strides.push_back(full.strides()[d]);
  }
  plan.view = NDArray(full.memory(), full.dtype(), shape, strides, full.offset());
  plan.insert_at = separated ? 0 : before_marker;

  std::vector<Shape> shapes;
  for (const auto& c : plan.components) shapes.push_back(c.values.shape());
  try {
    plan.bshape = broadcast_shapes(shapes);
  } catch (const std::invalid_argument&) {
    std::string text = "shape mismatch: indexing arrays could not be broadcast together with shapes ";
    for (const Shape& s : shapes) text += shape_text(s) + " ";
    throw IndexError(text);
  }
  for (const auto& c : plan.components) check_component(c);
  plan.result_shape.assign(shape.begin(), shape.begin() + plan.insert_at);
  plan.result_shape.insert(plan.result_shape.end(), plan.bshape.begin(), plan.bshape.end());
  plan.result_shape.insert(plan.result_shape.end(), shape.begin() + plan.insert_at, shape.end());
  return plan;
}

// The one index array of the kernels, broadcast to B: a component's values,
// or the sum of every component's offsets.
std::pair<NDArray, kiln::IndexAccess> single_index(const Plan& plan) {
  if (plan.components.size() == 1)
    return {broadcast_to(plan.components[0].values, plan.bshape), plan.components[0].access};
  NDArray sum = NDArray::empty(plan.bshape, DType::Int64);
  const int64_t n = sum.size();
  if (n == 0) return {sum, {0, 0}};
  int first = 1;
  for (const auto& c : plan.components) {
    NDArray values = broadcast_to(c.values, plan.bshape);
    kiln::Layout<2> layout = layout_for<2>(plan.bshape, {values.strides(), sum.strides()});
    const void* ip = values.data();
    void* sp = sum.data();
    long long count = n;
    kiln::IndexAccess access = c.access;
    void* args[] = {&ip, &sp, &count, &layout, &access, &first};
    launch(tools_source(), "kiln_add_offsets", n, args);
    first = 0;
  }
  return {sum, {0, 0}};
}

// Per result axis: the view's stride (0 on B's axes) and the index's (0 elsewhere).
void result_strides(const Plan& plan, const NDArray& index, Strides& data, Strides& idx) {
  const Shape& vs = plan.view.shape();
  const int nb = static_cast<int>(plan.bshape.size());
  for (int d = 0; d < plan.insert_at; ++d) data.push_back(plan.view.strides()[d]), idx.push_back(0);
  for (int d = 0; d < nb; ++d) data.push_back(0), idx.push_back(index.strides()[d]);
  for (size_t d = plan.insert_at; d < vs.size(); ++d) data.push_back(plan.view.strides()[d]), idx.push_back(0);
}

NDArray copy_if_shares(const NDArray& x, const NDArray& a) {
  return x.memory() == a.memory() ? astype(x, x.dtype(), Order::C) : x;
}

}  // namespace

IndexingConfig& indexing_config() {
  static IndexingConfig config;
  return config;
}

NDArray advanced_getitem(const NDArray& a, const std::vector<AdvancedItem>& key) {
  Plan plan = make_plan(a, key);
  NDArray out = NDArray::empty(plan.result_shape, a.dtype());
  const int64_t n = out.size();
  if (n == 0) return out;
  auto [index, access] = single_index(plan);
  Strides data, idx;
  result_strides(plan, index, data, idx);
  kiln::Layout<3> layout = layout_for<3>(plan.result_shape, {data, idx, out.strides()});
  const void* dp = plan.view.data();
  const void* ip = index.data();
  void* op = out.data();
  long long count = n;
  void* args[] = {&dp, &ip, &op, &count, &layout, &access};
  launch(moves_source(a.itemsize()), "kiln_gather", n, args);
  return out;
}

// Note [Whole-array masks]
// a[mask] = v with one boolean mask of a's shape is NumPy's boolean
// assignment: v must be 0-d or 1-d (the front end raises TypeError) and hold
// one value or one per true element, with its own messages. One value needs
// no compaction: a masked copy, no synchronisation.
bool whole_array_mask(const NDArray& a, const std::vector<AdvancedItem>& key) {
  return key.size() == 1 && key[0].array && key[0].array->dtype() == DType::Bool && a.ndim() > 0 &&
         key[0].array->shape() == a.shape();
}

void advanced_setitem(const NDArray& a, const std::vector<AdvancedItem>& key, const NDArray& value) {
  require_writeable(a);   // Note [Read-only arrays]
  const bool whole_mask = whole_array_mask(a, key);
  if (whole_mask && value.size() == 1) {
    NDArray one = value.reshape({});
    copy_into_where(broadcast_to(one, a.shape()), a, *key[0].array);
    return;
  }
  Plan plan = make_plan(a, key);
  if (whole_mask && value.size() != shape_size(plan.result_shape))
    throw std::invalid_argument("NumPy boolean array indexing assignment cannot assign " +
                                std::to_string(value.size()) + " input values to the " +
                                std::to_string(shape_size(plan.result_shape)) +
                                " output values where the mask is true");
  auto broadcast_value = [&] {
    try {
      return broadcast_to(value, plan.result_shape);
    } catch (const std::invalid_argument&) {
      throw std::invalid_argument("shape mismatch: value array of shape " + shape_text(value.shape()) +
                                " could not be broadcast to indexing result of shape " +
                                  shape_text(plan.result_shape));
    }
  };
  NDArray values = broadcast_value();
  const int64_t n = shape_size(plan.result_shape);
  if (n == 0) return;
  if (value.dtype() != a.dtype() || value.memory() == a.memory())
    values = broadcast_to(astype(value, a.dtype(), Order::C), plan.result_shape);
  for (auto& c : plan.components) c.values = copy_if_shares(c.values, a);
  auto [index, access] = single_index(plan);
  Strides data, idx;
  result_strides(plan, index, data, idx);
  kiln::Layout<3> layout = layout_for<3>(plan.result_shape, {data, idx, values.strides()});
  void* dp = plan.view.data();
  const void* ip = index.data();
  const void* vp = values.data();
  long long count = n;
  const void* owner_ptr = nullptr;
  long long slot_base = 0;
  std::optional<NDArray> owner;
  if (indexing_config().last_wins) {
    // Slots cover the byte span of `a`; slot_base maps an offset from the
    // view's data to a byte offset from the span's start.
    auto [low, high] = byte_extent(a.shape(), a.strides(), a.itemsize());
    slot_base = plan.view.offset() - a.offset() - low;
    owner = NDArray::zeros({(high - low) / static_cast<int64_t>(a.itemsize())}, DType::UInt64);
    void* wp = owner->data();
    long long itemsize = static_cast<long long>(a.itemsize());
    void* claim_args[] = {&ip, &count, &layout, &access, &wp, &slot_base, &itemsize};
    launch(tools_source(), "kiln_claim_targets", n, claim_args);
    owner_ptr = owner->data();
  }
  void* args[] = {&dp, &ip, &vp, &count, &layout, &access, &owner_ptr, &slot_base};
  launch(moves_source(a.itemsize()), "kiln_scatter", n, args);
}

NDArray nonzero_positions(const NDArray& a) {
  NDArray mask = a.dtype() == DType::Bool && a.c_contiguous() ? a : astype(a, DType::Bool, Order::C);
  const int64_t n = mask.size();
  if (n == 0) return NDArray::empty({0}, DType::Int64);
  NDArray counts = NDArray::empty({1, n}, DType::Int64);
  ScanSpec spec;
  spec.name = "kiln_count_true";
  spec.combine = "a + b";
  spec.acc = DType::Int64;
  scan_rows(spec, NDArray(mask.memory(), DType::Bool, {1, n}, {n, 1}, mask.offset()), counts);
  NDArray positions = NDArray::empty({read_int64(counts, (n - 1) * 8)}, DType::Int64);
  if (positions.size() == 0) return positions;
  const void* mp = mask.data();
  const void* cp = counts.data();
  void* pp = positions.data();
  long long count = n;
  void* args[] = {&mp, &cp, &pp, &count};
  launch(tools_source(), "kiln_compact", n, args);
  return positions;
}

NDArray nonzero_coordinates(const NDArray& a, bool axes_first) {
  NDArray positions = nonzero_positions(a);
  const int64_t count = positions.size();
  const int nd = std::max(a.ndim(), 1);
  NDArray out = NDArray::empty(axes_first ? Shape{nd, count} : Shape{count, nd}, DType::Int64);
  if (count == 0) return out;
  kiln::Unravel u{};
  u.ndim = nd;
  for (int d = 0; d < nd; ++d) u.shape[d] = a.ndim() == 0 ? 1 : a.shape()[d];
  u.dim_stride = axes_first ? count * 8 : 8;
  u.item_stride = axes_first ? 8 : nd * 8;
  const void* pp = positions.data();
  void* op = out.data();
  long long c = count;
  void* args[] = {&pp, &op, &c, &u};
  launch(tools_source(), "kiln_unravel", count, args);
  return out;
}

std::vector<std::string> advanced_indexing_sources() {
  std::vector<std::string> out = {tools_source().source};
  for (size_t size : {1, 2, 4, 8, 16}) out.push_back(moves_source(size).source);
  return out;
}

}  // namespace kiln::arraycore
