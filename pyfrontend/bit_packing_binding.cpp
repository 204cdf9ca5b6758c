// kiln._core._packbits / _unpackbits: numpy.packbits and numpy.unpackbits
// (arraycore/bit_packing.h), bound with NumPy's signatures; kiln/__init__.py
// exports them as kiln.packbits and kiln.unpackbits.
//
//   kiln.packbits(mask, axis=1, bitorder="little")
#include <optional>
#include <string>

#include "arraycore/bit_packing.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {
namespace {

// NumPy's bitorder= check: a str, 'big' or 'little'.
bool little_order(py::handle bitorder, const char* fn) {
  if (!py::isinstance<py::str>(bitorder))
    throw py::type_error(std::string(fn) + "() argument 3 must be str, not " + type_name(bitorder));
  const std::string s = bitorder.cast<std::string>();
  if (s != "big" && s != "little") throw py::value_error("'order' must be either 'little' or 'big'");
  return s == "little";
}

std::optional<int64_t> optional_index(py::handle v) {
  if (v.is_none()) return std::nullopt;
  return to_index(v);
}

}  // namespace

void register_bit_packing(py::module_& m) {
  using arraycore::NDArray;
  m.def(
      "packbits",
      [](const NDArray& a, py::handle axis, py::handle bitorder) {
        return arraycore::packbits(a, optional_index(axis), little_order(bitorder, "pack"));
      },
      py::arg("a"), py::arg("axis") = py::none(), py::arg("bitorder") = "big",
      "The elements of an integer or boolean array as bits (nonzero: 1) packed into uint8 along axis (of the "
      "flattened array when None), the first element the most significant bit unless bitorder='little': "
      "numpy.packbits (Note [Bit packing kernels]).");
  m.def(
      "unpackbits",
      [](const NDArray& a, py::handle axis, py::handle count, py::handle bitorder) {
        return arraycore::unpackbits(a, optional_index(axis), optional_index(count), little_order(bitorder, "unpack"));
      },
      py::arg("a"), py::arg("axis") = py::none(), py::arg("count") = py::none(), py::arg("bitorder") = "big",
      "The bits of a uint8 array along axis (of the flattened array when None) as a uint8 array of 0 and 1, "
      "count of them (negative: that many fewer): numpy.unpackbits (Note [Bit packing kernels]).");
}

}  // namespace kiln::py_bind
