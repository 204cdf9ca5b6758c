#include "arraycore/record_dtype.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>

#include "arraycore/axes.h"
#include "arraycore/copy.h"
#include "arraycore/indexing.h"
#include "arraycore/reduce_apply.h"
#include "arraycore/ufunc.h"
#include "arraycore/ufunc_apply.h"
#include "runtime/backend.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

constexpr int kMaxRecordDTypes = 256 - kFirstRecordDType;

struct Entry {
  RecordLayout layout;
  std::string c_type;
  DTypeInfo info;
};

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<Entry>> owned;
  std::array<std::atomic<const Entry*>, kMaxRecordDTypes> table{};
};

Registry& registry() {
  static auto* r = new Registry();
  return *r;
}

const Entry& entry(DType d) {
  const int k = static_cast<int>(d) - kFirstRecordDType;
  const Entry* e = k >= 0 && k < kMaxRecordDTypes ? registry().table[k].load(std::memory_order_acquire) : nullptr;
  if (e == nullptr) throw std::logic_error("not a record dtype: " + std::to_string(static_cast<int>(d)));
  return *e;
}

int64_t element_count(const Shape& s) {
  return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>());
}

// A view of a's memory as `dtype` (a's read-only flag kept).
NDArray view_of(const NDArray& a, DType dtype, Shape shape, Strides strides, int64_t offset) {
  NDArray v(a.memory(), dtype, std::move(shape), std::move(strides), offset);
  v.set_writeable(a.writeable());
  return v;
}

int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

[[noreturn]] void cannot_cast(DType from, DType to) {
  throw TypeError("Cannot cast array data from " + dtype_repr(from) + " to " + dtype_repr(to) +
                  " according to the rule 'unsafe'");
}

// One field's descr as NumPy's repr writes it: '<i4', '|b1', or a nested list/dict.
std::string format_of(DType d);

bool packed(const RecordLayout& l) {
  int64_t at = 0;
  for (const auto& f : l.fields) {
    if (f.offset != at) return false;
    at += static_cast<int64_t>(itemsize(f.dtype)) * element_count(f.subarray);
  }
  return at == l.itemsize;
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string fields_repr(const RecordLayout& l) {
  std::string out;
  if (packed(l) || l.aligned) {
    out = "[";
    for (size_t k = 0; k < l.fields.size(); ++k) {
      const auto& f = l.fields[k];
      out += (k ? ", (" : "(") + quoted(f.name) + ", " + format_of(f.dtype);
      if (!f.subarray.empty()) out += ", " + shape_repr(f.subarray);
      out += ")";
    }
    return out + "]";
  }
  std::string names, formats, offsets;
  for (size_t k = 0; k < l.fields.size(); ++k) {
    const auto& f = l.fields[k];
    const char* sep = k ? ", " : "";
    names += sep + quoted(f.name);
    formats += sep + (f.subarray.empty() ? format_of(f.dtype) : "(" + format_of(f.dtype) + ", " + shape_repr(f.subarray) + ")");
    offsets += sep + std::to_string(f.offset);
  }
  return "{'names': [" + names + "], 'formats': [" + formats + "], 'offsets': [" + offsets +
         "], 'itemsize': " + std::to_string(l.itemsize) + "}";
}

std::string format_of(DType d) {
  if (!is_record(d)) {
    const DTypeInfo& i = dtype_info(d);
    if (d == DType::Bool) return quoted("?");
    return quoted(std::string(i.itemsize == 1 ? "|" : "<") + i.kind + std::to_string(i.itemsize));
  }
  const RecordLayout& l = record_layout(d);
  if (!l.numpy_name.empty()) return quoted(l.numpy_name);
  if (l.fields.empty()) return quoted("V" + std::to_string(l.itemsize));
  return fields_repr(l);   // nested: written in place
}

int64_t layout_alignment(const RecordLayout& l) {
  int64_t a = 1;
  for (const auto& f : l.fields) a = std::max(a, gpu_alignment(f.dtype));
  return a;
}

std::string kernel_type(const RecordLayout& l) {
  std::string s = "kiln::record<" + std::to_string(l.itemsize) + ", " + std::to_string(layout_alignment(l));
  for (const auto& f : l.fields) {
    std::string type(dtype_info(f.dtype).c_type);
    if (!f.subarray.empty())   // a subarray field is opaque bytes of its base's alignment
      type = "kiln::record<" + std::to_string(static_cast<int64_t>(itemsize(f.dtype)) * element_count(f.subarray)) +
             ", " + std::to_string(gpu_alignment(f.dtype)) + ">";
    s += ", kiln::record_field<" + type + ", " + std::to_string(f.offset) + ">";
  }
  return s + ">";
}

}  // namespace

void require_not_record(DType d, const std::string& what) {
  if (is_record(d))
    throw TypeError(what + " does not support structured or void dtypes: " + dtype_repr(d) + " (Note [Record dtypes])");
}

void require_kernel_record(DType d) {
  const RecordLayout& l = record_layout(d);
  for (const auto& f : l.fields) {
    if (f.offset % gpu_alignment(f.dtype) != 0)
      throw std::invalid_argument("Field " + f.name + " with offset " + std::to_string(f.offset) +
                                  " is not aligned to " + std::to_string(gpu_alignment(f.dtype)) +
                                  " bytes for the GPU (make_aligned_dtype gives a layout whose fields are)");
    if (is_record(f.dtype) && !record_layout(f.dtype).fields.empty()) require_kernel_record(f.dtype);
  }
  const int64_t align = layout_alignment(l);
  if (l.itemsize % align != 0)
    throw std::invalid_argument("Itemsize " + std::to_string(l.itemsize) + " is not a multiple of the alignment " +
                                std::to_string(align) + " that " + dtype_repr(d) +
                                " needs on the GPU (make_aligned_dtype pads it)");
}

DType record_dtype(const RecordLayout& layout) {
  if (layout.itemsize < 0) throw std::invalid_argument("a record's itemsize must not be negative");
  if (layout.itemsize > kMaxRecordItemsize)
    throw std::invalid_argument("kiln supports structured and void dtypes of at most " +
                                std::to_string(kMaxRecordItemsize) + " bytes, not " + std::to_string(layout.itemsize));
  for (const auto& f : layout.fields) {
    const int64_t size = static_cast<int64_t>(itemsize(f.dtype)) * element_count(f.subarray);
    if (f.offset < 0 || f.offset + size > layout.itemsize)
      throw std::invalid_argument("field '" + f.name + "' reaches outside the record's " +
                                  std::to_string(layout.itemsize) + " bytes");
  }
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (size_t k = 0; k < r.owned.size(); ++k)
    if (r.owned[k]->layout == layout) return static_cast<DType>(kFirstRecordDType + static_cast<int>(k));
  if (r.owned.size() >= static_cast<size_t>(kMaxRecordDTypes))
    throw std::invalid_argument("kiln holds at most " + std::to_string(kMaxRecordDTypes) +
                                " distinct structured or void dtypes in one process");
  const auto d = static_cast<DType>(kFirstRecordDType + static_cast<int>(r.owned.size()));
  auto e = std::make_unique<Entry>();
  e->layout = layout;
  e->c_type = kernel_type(layout);   // Note [Record kernel types]
  e->info = DTypeInfo{d, "void", 'V', 'V', static_cast<decltype(DTypeInfo::itemsize)>(layout.itemsize), e->c_type};
  r.table[r.owned.size()].store(e.get(), std::memory_order_release);
  r.owned.push_back(std::move(e));
  return d;
}

const RecordLayout& record_layout(DType d) { return entry(d).layout; }
const DTypeInfo& record_dtype_info(DType d) { return entry(d).info; }

DType void_dtype(int64_t itemsize) { return record_dtype(RecordLayout{itemsize, {}, false, {}}); }

std::string record_repr(DType d) {
  const RecordLayout& l = record_layout(d);
  if (!l.numpy_name.empty()) return "dtype('" + l.numpy_name + "')";
  if (l.fields.empty()) return "dtype('V" + std::to_string(l.itemsize) + "')";
  return "dtype(" + fields_repr(l) + (l.aligned ? ", align=True)" : ")");
}

int64_t gpu_alignment(DType d) {
  return is_record(d) ? layout_alignment(record_layout(d)) : static_cast<int64_t>(dtype_info(d).itemsize);
}

DType make_aligned_dtype(DType d) {
  if (!is_structured(d)) throw std::invalid_argument("make_aligned_dtype only supports structured dtypes");
  RecordLayout out;
  out.aligned = true;
  int64_t at = 0, widest = 1;
  for (RecordField f : record_layout(d).fields) {
    if (is_structured(f.dtype)) f.dtype = make_aligned_dtype(f.dtype);
    const int64_t a = gpu_alignment(f.dtype);
    f.offset = round_up(at, a);
    at = f.offset + static_cast<int64_t>(itemsize(f.dtype)) * element_count(f.subarray);
    widest = std::max(widest, a);
    out.fields.push_back(std::move(f));
  }
  out.itemsize = round_up(at, widest);
  return record_dtype(out);
}

// Note [Record field alignment]
// A GPU loads a number only from an address that is a multiple of its
// alignment (gpu_alignment), so a field view is refused, as CuPy refuses it,
// when the field's address in some element is not: NumPy's packed layouts
// ("?,f8") put f8 at offset 1. make_aligned_dtype gives layouts whose every
// field qualifies. Empty views read nothing and are always fine; nested
// records are checked when their own fields are taken.
NDArray field_view(const NDArray& a, std::string_view name) {
  if (!is_structured(a.dtype())) throw std::invalid_argument("no field of name " + std::string(name));
  const RecordLayout& l = record_layout(a.dtype());
  auto it = std::find_if(l.fields.begin(), l.fields.end(), [&](const RecordField& f) { return f.name == name; });
  if (it == l.fields.end()) throw std::invalid_argument("no field of name " + std::string(name));
  Shape shape = a.shape();
  Strides strides = a.strides();
  const size_t item = itemsize(it->dtype);
  Strides inner = contiguous_strides(it->subarray, item, Order::C);
  shape.insert(shape.end(), it->subarray.begin(), it->subarray.end());
  strides.insert(strides.end(), inner.begin(), inner.end());
  const int64_t offset = a.offset() + it->offset;
  if (!is_record(it->dtype) && shape_size(shape) > 0) {
    const int64_t align = gpu_alignment(it->dtype);
    bool ok = offset % align == 0;
    for (size_t k = 0; k < shape.size(); ++k) ok = ok && (shape[k] == 1 || strides[k] % align == 0);
    if (!ok)
      throw std::invalid_argument("result array with " + dtype_repr(it->dtype) + " (field '" + it->name +
                                  "' at byte offset " + std::to_string(it->offset) + " of " +
                                  dtype_repr(a.dtype()) + ") is not sufficiently aligned for GPU: use "
                                  "make_aligned_dtype for a layout whose fields are");
  }
  return view_of(a, it->dtype, std::move(shape), std::move(strides), offset);
}

NDArray fields_view(const NDArray& a, std::span<const std::string> names) {
  if (!is_structured(a.dtype())) throw std::invalid_argument("no field of name " + (names.empty() ? "" : names[0]));
  const RecordLayout& l = record_layout(a.dtype());
  RecordLayout out;
  out.itemsize = l.itemsize;
  for (const std::string& n : names) {
    auto it = std::find_if(l.fields.begin(), l.fields.end(), [&](const RecordField& f) { return f.name == n; });
    if (it == l.fields.end()) throw std::out_of_range(n);
    for (const auto& f : out.fields)
      if (f.name == n) throw std::invalid_argument("duplicate field of name '" + n + "'");
    out.fields.push_back(*it);
  }
  return view_of(a, record_dtype(out), a.shape(), a.strides(), a.offset());
}

NDArray record_bytes(const NDArray& a, int unit) {
  static constexpr DType kUnits[] = {DType::UInt8, DType::UInt16, DType::UInt8, DType::UInt32,
                                     DType::UInt8, DType::UInt8, DType::UInt8, DType::UInt64};
  Shape shape = a.shape();
  Strides strides = a.strides();
  shape.push_back(static_cast<int64_t>(a.itemsize()) / unit);
  strides.push_back(unit);
  return view_of(a, kUnits[unit - 1], std::move(shape), std::move(strides), a.offset());
}

int byte_unit(std::span<const NDArray* const> arrays) {
  for (int unit : {8, 4, 2}) {
    bool ok = true;
    for (const NDArray* a : arrays) {
      ok = ok && a->itemsize() % unit == 0 && a->offset() % unit == 0;
      for (size_t k = 0; k < a->strides().size(); ++k) ok = ok && (a->shape()[k] == 1 || a->strides()[k] % unit == 0);
    }
    if (ok) return unit;
  }
  return 1;
}

namespace {

// `a` seen with extra trailing axes `extra` of stride 0 (a number written into a subarray field).
NDArray with_trailing(const NDArray& a, const Shape& extra) {
  Shape shape = a.shape();
  Strides strides = a.strides();
  shape.insert(shape.end(), extra.begin(), extra.end());
  strides.insert(strides.end(), extra.size(), 0);
  return a.view_as(std::move(shape), std::move(strides), a.offset());
}

// The view of field k of `a` by position (no alignment check: the copy below
// is a kernel of the field's dtype only when both sides are numbers).
NDArray field_at(const NDArray& a, size_t k) { return field_view(a, record_layout(a.dtype()).fields[k].name); }

}  // namespace

void record_copy(const NDArray& src, const NDArray& dst) {
  const DType from = src.dtype(), to = dst.dtype();
  if (from == to) {
    const NDArray* both[] = {&src, &dst};
    const int unit = byte_unit(both);
    copy_into(record_bytes(src, unit), record_bytes(dst, unit));
    return;
  }
  if (is_record(to) && record_layout(to).fields.empty()) {
    // numpy's cast to V<n>: the source's bytes, cut or padded with zeros.
    const NDArray s = record_bytes(src, 1), d = record_bytes(dst, 1);
    const int64_t common = std::min(s.shape().back(), d.shape().back());
    const IndexItem all = IndexItem::ellipsis();
    copy_into(index_view(s, {all, IndexItem::slice(0, common, std::nullopt)}),
              index_view(d, {all, IndexItem::slice(0, common, std::nullopt)}));
    if (common < d.shape().back()) {
      NDArray zero = NDArray::zeros({}, DType::UInt8);
      NDArray rest = index_view(d, {all, IndexItem::slice(common, std::nullopt, std::nullopt)});
      copy_into(broadcast_to(zero, rest.shape()), rest);
    }
    return;
  }
  if (!is_structured(to)) cannot_cast(from, to);
  const RecordLayout& lt = record_layout(to);
  if (!is_record(from)) {
    for (size_t k = 0; k < lt.fields.size(); ++k) {
      NDArray field = field_at(dst, k);
      copy_into(with_trailing(src, lt.fields[k].subarray), field);
    }
    return;
  }
  if (!is_structured(from) || record_layout(from).fields.size() != lt.fields.size()) cannot_cast(from, to);
  const RecordLayout& lf = record_layout(from);
  for (size_t k = 0; k < lt.fields.size(); ++k) {
    if (lf.fields[k].subarray != lt.fields[k].subarray) cannot_cast(from, to);
    copy_into(field_at(src, k), field_at(dst, k));
  }
}

namespace {

NDArray call_ufunc(const char* name, const NDArray& a, const NDArray& b) {
  UfuncInput in[] = {UfuncInput::of(a), UfuncInput::of(b)};
  return ufunc_apply(ufunc(name), in, {})[0];
}

// logical_and (or logical_or) over the trailing axes of `r` past `ndim`.
NDArray fold_trailing(const NDArray& r, int ndim, bool any) {
  if (r.ndim() == ndim) return r;
  ReduceOptions o;
  o.axes = std::vector<int64_t>();
  for (int k = ndim; k < r.ndim(); ++k) o.axes->push_back(k);
  return reduce_apply(ufunc(any ? "logical_or" : "logical_and"), r, o);
}

}  // namespace

NDArray record_compare(const NDArray& a, const NDArray& b, bool not_equal) {
  if (!is_record(a.dtype()) || !is_record(b.dtype()))
    throw TypeError("Cannot compare structured or void to non-void arrays.");
  const Shape shape = broadcast_shapes({a.shape(), b.shape()});
  const int ndim = static_cast<int>(shape.size());
  const RecordLayout& la = record_layout(a.dtype());
  const RecordLayout& lb = record_layout(b.dtype());
  if (la.fields.empty() != lb.fields.empty())
    throw TypeError("Cannot compare structured with unstructured void arrays.");
  if (la.fields.empty()) {
    if (la.itemsize != lb.itemsize)
      throw TypeError("Cannot compare unstructured voids of different length. Use bytes to compare.");
    NDArray ab = broadcast_to(a, shape), bb = broadcast_to(b, shape);
    const NDArray* both[] = {&ab, &bb};
    const int unit = byte_unit(both);
    NDArray r = call_ufunc(not_equal ? "not_equal" : "equal", record_bytes(ab, unit), record_bytes(bb, unit));
    return fold_trailing(r, ndim, not_equal);
  }
  bool same_names = la.fields.size() == lb.fields.size();
  for (size_t k = 0; same_names && k < la.fields.size(); ++k) same_names = la.fields[k].name == lb.fields[k].name;
  if (!same_names)
    throw TypeError("Cannot compare structured arrays unless they have a common dtype.  I.e. "
                    "`np.result_type(arr1, arr2)` must be defined.");
  std::optional<NDArray> result;
  for (size_t k = 0; k < la.fields.size(); ++k) {
    const RecordField &fa = la.fields[k], &fb = lb.fields[k];
    if (!fa.subarray.empty() && is_record(fa.dtype))
      throw std::invalid_argument("comparison of structured arrays whose fields are subarray dtypes of records "
                                  "is not supported");
    NDArray va = field_view(a, fa.name), vb = field_view(b, fb.name);
    NDArray r = is_record(fa.dtype) ? record_compare(va, vb, not_equal)
                                    : fold_trailing(call_ufunc(not_equal ? "not_equal" : "equal", va, vb), ndim,
                                                    not_equal);
    result = result ? call_ufunc(not_equal ? "logical_or" : "logical_and", *result, r) : r;
  }
  if (result) return *result;
  // No fields: every element is equal (numpy.dtype([]) records).
  NDArray r = NDArray::zeros(shape, DType::Bool);
  if (!not_equal && r.size() > 0)
    runtime::backend().memset_async(r.data(), 1, r.nbytes(), runtime::current_stream());
  return r;
}

}  // namespace kiln::arraycore
