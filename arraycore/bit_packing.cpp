#include "arraycore/bit_packing.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "arraycore/axes.h"
#include "arraycore/generated_kernel.h"
#include "arraycore/views.h"

namespace kiln::arraycore {
namespace {

// `a` flattened (axis nullopt) or as it is (a 0-d array as 1-d, as NumPy
// does), and the normalised axis.
std::pair<NDArray, int> lanes_of(const NDArray& a, std::optional<int64_t> axis) {
  if (!axis || a.ndim() == 0) return {ravel(a, 'C'), normalize_axis(axis.value_or(0), 1)};
  return {a, normalize_axis(*axis, a.ndim())};
}

// The C-contiguous result of `shape` and a view of it with `axis` moved last
// (Note [Bit packing kernels]).
NDArray moved_last(const NDArray& a, int axis) {
  const int64_t from[] = {axis}, to[] = {a.ndim() - 1};
  return moveaxis(a, from, to);
}

// Launches `spec` over out's elements with x (the input, axis last), the
// lane lengths n (input) and m (output) and y (the output, axis last).
void launch_lanes(const EwSpec& spec, const NDArray& in, const NDArray& out, int axis) {
  if (out.size() == 0) return;
  const NDArray x = moved_last(in, axis), y = moved_last(out, axis);
  const EwArg args[] = {EwArg::of(x), EwArg::value<long long>(in.shape()[axis]),
                        EwArg::value<long long>(out.shape()[axis]), EwArg::of(y)};
  elementwise_launch(spec, args, {out.size()});
}

EwSpec lanes_spec(const std::string& name, const std::string& in_type, const std::string& operation) {
  EwSpec s = exact_spec(name, "");
  s.params = {raw_param("x", in_type), input_param("n", "long long"), input_param("m", "long long"),
              raw_param("y", "unsigned char")};
  s.operation = "const long long row = i / m, j = i - row * m;\n" + operation;
  return s;
}

}  // namespace

NDArray packbits(const NDArray& a, std::optional<int64_t> axis, bool little) {
  const char kind = dtype_info(a.dtype()).kind;
  if (kind != 'b' && kind != 'i' && kind != 'u')
    throw TypeError("Expected an input array of integer or boolean data type");
  auto [in, ax] = lanes_of(a, axis);
  Shape shape = in.shape();
  shape[ax] = (shape[ax] + 7) / 8;
  NDArray out = NDArray::empty(shape, DType::UInt8);
  const std::string name = std::string("packbits_") + (little ? "little_" : "big_") +
                           std::string(dtype_info(a.dtype()).name);
  const EwSpec& spec = generated_spec(name, [&] {
    return lanes_spec(name, c_type(a.dtype()),
                      "unsigned r = 0;\n"
                      "for (int b = 0; b < 8; ++b) {\n"
                      "  const long long k = j * 8 + b;\n"
                      "  if (k < n && x[row * n + k] != 0) r |= 1u << " + std::string(little ? "b" : "(7 - b)") +
                          ";\n"
                      "}\n"
                      "y[i] = (unsigned char)r;");
  });
  launch_lanes(spec, in, out, ax);
  return out;
}

NDArray unpackbits(const NDArray& a, std::optional<int64_t> axis, std::optional<int64_t> count, bool little) {
  if (a.dtype() != DType::UInt8) throw TypeError("Expected an input array of unsigned byte data type");
  auto [in, ax] = lanes_of(a, axis);
  Shape shape = in.shape();
  int64_t bits = shape[ax] * 8;
  if (count) {
    if (*count < 0 && -*count > bits) throw std::invalid_argument("-count larger than number of elements");
    bits = *count < 0 ? bits + *count : *count;
  }
  shape[ax] = bits;
  NDArray out = NDArray::empty(shape, DType::UInt8);
  const std::string name = std::string("unpackbits_") + (little ? "little" : "big");
  const EwSpec& spec = generated_spec(name, [&] {
    return lanes_spec(name, "unsigned char",
                      "const unsigned byte = j / 8 < n ? x[row * n + j / 8] : 0u;\n"
                      "y[i] = (unsigned char)((byte >> " + std::string(little ? "(j % 8)" : "(7 - j % 8)") +
                          ") & 1u);");
  });
  launch_lanes(spec, in, out, ax);
  return out;
}

}  // namespace kiln::arraycore
