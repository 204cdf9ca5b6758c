// Structured (record) and unstructured void (V<n>) dtypes: their layouts,
// interned as DType values (Note [Record dtypes]), and the operations that
// are defined on them: field views, byte copies, field-by-field casts,
// comparisons and GPU alignment.
//
//   RecordLayout l{8, {{"f0", 0, DType::Int32, {}}, {"f1", 4, DType::Int32, {}}}};   // numpy.dtype("i,i")
//   DType r = record_dtype(l);                     // the same DType for every equal layout
//   NDArray a = NDArray::zeros({3}, r);            // itemsize(r) == 8
//   NDArray f1 = field_view(a, "f1");              // int32 view: offset 4, stride 8
//   NDArray eq = record_compare(a, a, false);      // a == a, field by field
#pragma once

#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arraycore/ndarray.h"

namespace kiln::arraycore {

// Note [Record dtypes] (below): DType values from kFirstRecordDType up name
// interned structured and void (V<n>) layouts.
inline constexpr int kFirstRecordDType = 64;
inline bool is_record(DType dtype) { return static_cast<int>(dtype) >= kFirstRecordDType; }
// The largest record itemsize: what dtype_info's itemsize column holds (one
// byte today: 255; widening that column in dtype.h lifts the limit).
inline constexpr int64_t kMaxRecordItemsize = std::numeric_limits<decltype(DTypeInfo::itemsize)>::max();

// Note [Record dtypes]
// A NumPy structured dtype (or an unstructured V<n>) is a layout: an
// itemsize and named fields at byte offsets, each a numeric dtype or a nested
// layout, possibly a subarray of either. kiln interns each distinct layout
// once per process and names it by a DType value at or above
// kFirstRecordDType (dtype.h), so every view, reshape, transpose, broadcast
// and allocation, which only carry a DType and ask itemsize() of it, works
// for records unchanged. Operations that need values (ufuncs, reductions,
// sorting...) see kind 'V' and refuse it as NumPy does; the operations that
// NumPy defines on records are here and compose the numeric ones: a copy of
// equal layouts is a copy of bytes (record_bytes: the array seen as unsigned
// integers with one trailing axis), a cast between layouts or from a number
// is a copy per field (NumPy's rule: fields by position), == and != compare
// fields with the equal ufunc and fold the results. The Python front end
// keeps NumPy's dtype object as the user-facing descriptor and converts it
// to and from a RecordLayout at the boundary (pyfrontend/conversions.cpp).
struct RecordField {
  std::string name;
  int64_t offset = 0;
  DType dtype = DType::Bool;   // a numeric dtype or a record (nested or V<n>)
  Shape subarray;              // empty: one element; else a subarray field "(3,)i4"
  bool operator==(const RecordField&) const = default;
};

struct RecordLayout {
  int64_t itemsize = 0;
  std::vector<RecordField> fields;   // in NumPy's order; empty: unstructured V<itemsize>
  bool aligned = false;              // numpy's isalignedstruct (align=True)
  // Non-empty: a NumPy type kiln holds as opaque bytes, as CuPy does
  // (datetime64 and timedelta64: "<M8[ns]"): views, copies, transfers and
  // byte equality, no arithmetic. Otherwise a record or V<itemsize>.
  std::string numpy_name;
  bool operator==(const RecordLayout&) const = default;
};

// The DType of `layout` (the same for equal layouts). Throws
// std::invalid_argument when the process already holds the maximum number
// of distinct layouts, or for a field reaching outside the itemsize.
DType record_dtype(const RecordLayout& layout);
// The layout of a record DType (is_record(d) must hold).
const RecordLayout& record_layout(DType d);
// The DType of an unstructured void of `itemsize` bytes (numpy's V<n>).
DType void_dtype(int64_t itemsize);
inline bool is_structured(DType d) { return is_record(d) && !record_layout(d).fields.empty(); }

// NumPy's repr of a record dtype: "dtype([('f0', '<i4'), ('f1', '<f8')])" (dtype_repr's for records).
std::string record_repr(DType d);
// dtype_info's row of a record: kind 'V', its itemsize, its kernel type (Note [Record kernel types]).
const DTypeInfo& record_dtype_info(DType d);

// The alignment a GPU needs for `d`: a number's itemsize (complex types
// their full itemsize), a record's largest field alignment, 1 for V<n>.
int64_t gpu_alignment(DType d);
// CuPy's make_aligned_dtype: fields in order, each at the next offset its
// gpu_alignment allows (nested records aligned first), the itemsize padded
// to the largest alignment. std::invalid_argument "make_aligned_dtype only
// supports structured dtypes" for anything else.
DType make_aligned_dtype(DType d);

// Note [Record kernel types]: kernels (ElementwiseKernel's T) see a record
// as kiln::record<itemsize, alignment, kiln::record_field<type, offset>...>
// (stdlib_kernels/kiln/record.h): T::field_count and t.at<i>(), fields by
// position, as CuPy exposes them. That type needs a layout the GPU can load:
// std::invalid_argument "Itemsize 9 is not a multiple of ..." or "Field f1
// with offset 1 is not ..." otherwise (make_aligned_dtype gives one).
void require_kernel_record(DType d);

// arraycore::TypeError naming `what` and the dtype when `d` is a record:
// operations on values (reductions, fused expressions) refuse records.
void require_not_record(DType d, const std::string& what);

// a[name]: a view of the field's dtype at the field's offset, shape
// a.shape + the field's subarray shape. std::invalid_argument "no field of
// name ..." for a missing one, and for a non-empty view whose field is not
// sufficiently aligned for the GPU (Note [Record field alignment]).
NDArray field_view(const NDArray& a, std::string_view name);
// a[[n1, n2, ...]]: a view with a layout holding only those fields, at their
// offsets, with a's itemsize (NumPy 2's multi-field view). KeyError-like
// std::out_of_range for a missing name, std::invalid_argument for a repeated one.
NDArray fields_view(const NDArray& a, std::span<const std::string> names);

// `a`'s bytes as unsigned integers of `unit` bytes (1, 2, 4 or 8), with one
// trailing axis of itemsize / unit entries. `unit` must divide the itemsize,
// a's offset and strides (byte_unit finds the largest that does for all of
// `arrays`).
NDArray record_bytes(const NDArray& a, int unit);
int byte_unit(std::span<const NDArray* const> arrays);

// copy_into's work when either side is a record (copy.cpp calls it; shapes
// equal, nothing overlapping): equal layouts copy bytes; structured from
// structured casts field by field by position; structured from a number
// writes the number into every field; V<n> from anything copies
// min(itemsizes) bytes and zeroes the rest. Anything else is TypeError
// "Cannot cast array data from ... according to the rule 'unsafe'".
void record_copy(const NDArray& src, const NDArray& dst);

// a == b (not_equal: a != b) for records, broadcast: field by field with the
// equal ufunc (its promotion), nested records recursively, numeric subarray
// fields compared whole; V<n> byte by byte. TypeError as NumPy for a record
// against a non-record, or fields whose names differ; std::invalid_argument
// for subarrays of records.
NDArray record_compare(const NDArray& a, const NDArray& b, bool not_equal);

}  // namespace kiln::arraycore
