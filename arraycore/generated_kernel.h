// Elementwise specs that arraycore's operations generate (choose, select,
// bincount, histogram ...), made once per key and kept for the process: the
// engine caches compiled variants on the spec (EwSpec::cache_slot), so a
// spec must outlive its launches and never change after the first.
//
//   const EwSpec& s = generated_spec(name, [&] { EwSpec s; s.name = name; ...; return s; });
//   elementwise_launch(s, args, shape);
#pragma once

#include <functional>
#include <span>
#include <string>

#include "arraycore/elementwise.h"
#include "arraycore/ndarray.h"
#include "arraycore/ufunc_apply.h"

namespace kiln::arraycore {

// The spec stored under `key` (by convention its name, which spells every
// choice the kernel text depends on), made by `make` on first use.
const EwSpec& generated_spec(const std::string& key, const std::function<EwSpec()>& make);

// An EwSpec for one of the operations above: `preamble` and NumPy's exact
// floating point (Note [Exact floating point]).
EwSpec exact_spec(std::string name, std::string preamble);

// An input param / raw param / output param, spelled as the engine wants.
EwParam input_param(std::string name, DType ctype, std::string storage = {});
EwParam input_param(std::string name, std::string ctype, std::string storage = {});
EwParam raw_param(std::string name, std::string ctype);
EwParam output_param(std::string name, DType ctype, std::string storage = {});

// The C++ spelling of a dtype in generated kernels.
std::string c_type(DType d);
// How a dtype is stored in memory in generated kernels (bool as unsigned char).
std::string storage_ctype(DType d);
// The stored element `at` (an lvalue of storage_ctype(d)) read as `ctype`,
// and `value` (of `ctype`) converted for storing as `d`.
std::string load_text(const std::string& ctype, DType d, const std::string& at);
std::string store_text(const std::string& ctype, DType d, const std::string& value);

// A scalar argument holding `v` converted to `to` as NumPy's unsafe cast of
// numpy.asarray(v) does (Python scalars take NumPy's default dtypes first:
// int64, uint64 beyond it, float64, complex128, bool).
EwArg scalar_arg_as(const ScalarValue& v, DType to);
// A scalar argument of dtype `d` holding the bytes at `src` (itemsize(d)).
EwArg scalar_arg_bytes(const void* src, DType d);

// numpy.result_type of array and scalar operands (NEP 50: Python scalars weak).
DType result_type_of(std::span<const UfuncInput> operands);

// One integer flag or a few, read back to the host (one sync).
void read_back(const NDArray& a, void* dst);

}  // namespace kiln::arraycore
