#include "arraycore/ufunc_at.h"

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "arraycore/copy.h"
#include "arraycore/elementwise.h"
#include "arraycore/indexing.h"

namespace kiln::arraycore {

void ufunc_at_apply(const UfuncDef& uf, const NDArray& a, const NDArray& positions, const NDArray* b) {
  require_writeable(a, "operand array with iterator write flag set is read-only");   // Note [Read-only arrays]
  std::vector<Operand> ops{{a.dtype()}};
  if (b) ops.push_back({b->dtype()});
  const LoopChoice choice = resolve_loop(uf, ops, std::nullopt);
  if (positions.size() == 0) return;
  if (positions.dtype() != DType::Int64) throw std::invalid_argument("ufunc.at: positions must be int64");
  std::optional<NDArray> bb;
  if (b) {
    try {
      bb = broadcast_to(*b, positions.shape());
    } catch (const std::invalid_argument&) {
      throw std::invalid_argument("array is not broadcastable to correct shape");
    }
    if (bb->dtype() != choice.in[1]) bb = astype(*bb, choice.in[1], Order::C);
  }
  const NDArray idx = positions.c_contiguous() ? positions.reshape({positions.size()})
                                               : astype(positions, DType::Int64, Order::C).reshape({positions.size()});
  static std::mutex mutex;
  static std::map<std::tuple<const UfuncDef*, DType, std::vector<DType>>, std::unique_ptr<EwSpec>> specs;
  const EwSpec* spec;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto& slot = specs[std::make_tuple(&uf, a.dtype(), choice.in)];
    if (!slot) {
      const std::string ca(dtype_info(a.dtype()).c_type), c0(dtype_info(choice.in[0]).c_type);
      slot = std::make_unique<EwSpec>();
      slot->name = "ufunc_at_" + uf.name + "_" + std::string(dtype_info(a.dtype()).name);
      for (DType d : choice.in) slot->name += "_" + std::string(dtype_info(d).name);
      slot->params = {{"a", ca, "", EwParam::Raw}, {"idx", "long long", "", EwParam::Raw},
                      {"count", "long long", "", EwParam::Input}};
      std::string call = "kiln::numpy_cast<" + c0 + ">(t)";
      if (b) {
        slot->params.push_back({"b", std::string(dtype_info(choice.in[1]).c_type), "", EwParam::Raw});
        call += ", b[k]";
      }
      slot->operation = "for (long long k = 0; k < count; ++k) {\n  " + ca + "& t = a[idx[k]];\n  t = kiln::numpy_cast<" +
                        ca + ">(kiln::ufn::" + uf.name + "(" + call + "));\n}";
      slot->preamble = "#include <kiln/ufunc_math.h>\n";
      slot->options = exact_fp_options();
    }
    spec = slot.get();
  }
  std::vector<EwArg> args{EwArg::of(a), EwArg::of(idx), EwArg::value(static_cast<long long>(positions.size()))};
  if (bb) args.push_back(EwArg::of(*bb));
  elementwise_launch(*spec, args, {1});
}

}  // namespace kiln::arraycore
