// searchsorted (sort_apply.h): one binary search a thread over the device
// side's kiln::search::position (stdlib_kernels/kiln/search.h, Note [Sort
// order]).
#include <stdexcept>

#include "arraycore/axes.h"
#include "arraycore/copy.h"
#include "arraycore/promotion.h"
#include "arraycore/sort_apply.h"
#include "arraycore/transfer.h"
#include "runtime/stream.h"

namespace kiln::arraycore {

NDArray searchsorted_apply(const NDArray& a_in, const NDArray& v, std::string_view side, const NDArray* sorter_in) {
  if (a_in.ndim() == 0) throw std::invalid_argument("object of too small depth for desired array");
  if (a_in.ndim() > 1) throw std::invalid_argument("object too deep for desired array");
  if (side != "left" && side != "right")
    throw std::invalid_argument("search side must be 'left' or 'right' (got '" + std::string(side) + "')");
  std::optional<NDArray> sorter;
  if (sorter_in != nullptr) {
    const char kind = dtype_info(sorter_in->dtype()).kind;
    if (kind != 'i' && kind != 'u') throw TypeError("sorter must only contain integers");
    if (sorter_in->ndim() != 1 || sorter_in->size() != a_in.size())
      throw std::invalid_argument("sorter.size must equal a.size");
    sorter = sorter_in->dtype() == DType::Int64 ? *sorter_in : astype(*sorter_in, DType::Int64, Order::C);
  }
  const bool right = side == "right";
  const DType work = promote_types(a_in.dtype(), v.dtype());
  const NDArray a = a_in.dtype() == work ? a_in : astype(a_in, work, Order::C);
  const std::string c(dtype_info(work).c_type);
  NDArray y = NDArray::empty(v.shape(), DType::Int64);
  std::vector<EwParam> params = {{"a", c, "", EwParam::Raw},
                                 {"n", "long long", "", EwParam::Input},
                                 {"v", c, std::string(dtype_info(v.dtype()).c_type), EwParam::Input},
                                 {"y", "long long", "", EwParam::Output}};
  std::string at = "a[k]";
  std::optional<NDArray> bad;
  if (sorter) {
    // Out-of-range sorter entries that the search reads raise, as in NumPy.
    params.insert(params.begin() + 1,
                  {{"s", "long long", "", EwParam::Raw}, {"bad", "unsigned long long", "", EwParam::Raw}});
    bad = NDArray::zeros({1}, DType::UInt64);
    at = "a[s[k] >= 0 && s[k] < n ? s[k] : (atomicOr(&bad[0], 1ULL), 0LL)]";
  }
  const std::string name = "searchsorted_" + std::string(dtype_info(work).name) + "_" +
                           std::string(dtype_info(v.dtype()).name) + (right ? "_right_" : "_left_") +
                           (sorter ? "True" : "False");
  const EwSpec& spec = keyed_spec(name, params,
                                  "y = kiln::search::position<" + std::string(right ? "true" : "false") +
                                      ">([&](long long k) { return " + at + "; }, n, v);",
                                  "#include <kiln/search.h>\n");
  std::vector<EwArg> args = {EwArg::of(a), EwArg::value<long long>(a.size()), EwArg::of(v), EwArg::of(y)};
  if (sorter) args.insert(args.begin() + 1, {EwArg::of(*sorter), EwArg::of(*bad)});
  elementwise_launch(spec, args, v.shape());
  if (bad) {
    unsigned long long flag = 0;
    copy_to_host(*bad, &flag, runtime::current_stream());
    if (flag != 0) throw std::invalid_argument("Sorter index out of range.");
  }
  return y;
}

}  // namespace kiln::arraycore
