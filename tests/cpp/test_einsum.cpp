// arraycore/einsum.h: the subscript language's checks (NumPy's messages,
// thrown before anything runs), the contraction order einsum_path reports
// (Note [Einsum order]), and einsum_apply on the host backend against
// results worked out by hand (integers: exact on every path).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "arraycore/axes.h"
#include "arraycore/einsum.h"
#include "arraycore/views.h"
#include "tests/cpp/engine_fixture.h"

namespace kiln::arraycore {
namespace {

using EinsumTest = testing::EngineTest;

using testing::message_of;

std::string path_error(const std::string& subscripts, std::vector<Shape> shapes) {
  return message_of([&] { einsum_path(subscripts, shapes, {}); });
}

TEST(Einsum, SubscriptErrorsAsNumPy) {
  EXPECT_EQ(path_error("ij,j", {{2, 3}, {4}}),
            "operands could not be broadcast together with remapped shapes [original->remapped]: (2,3)->(2,3) "
            "(4,)->(newaxis,4)");
  EXPECT_EQ(path_error("ii", {{2, 3}}), "dimensions in single operand for collapsing index 'i' don't match (2 != 3)");
  EXPECT_EQ(path_error("ij->ii", {{2, 3}}),
            "einstein sum subscripts string includes output subscript 'i' multiple times");
  EXPECT_EQ(path_error("ij->k", {{2, 3}}),
            "einstein sum subscripts string included output subscript 'k' which never appeared in an input");
  EXPECT_EQ(path_error("i1", {{2, 3}}),
            "invalid subscript '1' in einstein sum subscripts string, subscripts must be letters");
  EXPECT_EQ(path_error("i..->", {{2, 3}}),
            "einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...') in operand 0");
  EXPECT_EQ(path_error("ij-", {{2, 3}}), "einstein sum subscript string does not contain proper '->' output specified");
  EXPECT_EQ(path_error("ijk", {{2, 3}}), "einstein sum subscripts string contains too many subscripts for operand 0");
  EXPECT_EQ(path_error("ij->", {{2, 3}, {2, 3}}),
            "the einstein sum subscripts string has 1 operand terms, but 2 operands were given");
  EXPECT_EQ(message_of([] { sublist_letter(52); }), "subscript is not within the valid range [0, 52)");
  EXPECT_EQ(sublist_letter(0), 'A');
  EXPECT_EQ(sublist_letter(51), 'z');
}

TEST(Einsum, PathsInOrderGreedyAndGiven) {
  const std::vector<Shape> shapes = {{5, 30}, {30, 40}, {40, 2}};
  EinsumOptimize greedy;
  greedy.kind = EinsumOptimize::Kind::Greedy;
  const EinsumPath p = einsum_path("ij,jk,kl->il", shapes, greedy);
  EXPECT_EQ(p.path, (std::vector<std::vector<int64_t>>{{1, 2}, {0, 1}}));
  EXPECT_EQ(p.text,
            "  Complete contraction:  ij,jk,kl->il\n"
            "  jk,kl->jl                        elements 60\n"
            "  ij,jl->il                        elements 10");
  EXPECT_EQ(einsum_path("ij,jk,kl->il", shapes, {}).path, (std::vector<std::vector<int64_t>>{{0, 1}, {0, 1}}));
  EinsumOptimize given;
  given.kind = EinsumOptimize::Kind::Path;
  given.path = {{0, 3}, {0, 1}};
  EXPECT_EQ(message_of([&] { einsum_path("ij,jk,kl->il", shapes, given); }),
            "einsum_path step (0, 3) does not name distinct operands among the 3 then present");
  given.path = {{2}};
  EXPECT_EQ(message_of([&] { einsum_path("ij,jk,kl->il", shapes, given); }),
            "einsum_path ['einsum_path', (2,)] leaves 3 operands, not one");
}

TEST_F(EinsumTest, ProductsTracesAndViewsOnTheHost) {
  const NDArray a = filled<int32_t>({2, 3}, DType::Int32, [](int64_t k) { return int32_t(k); });       // 0 1 2 / 3 4 5
  const NDArray b = filled<int32_t>({3, 2}, DType::Int32, [](int64_t k) { return int32_t(k + 1); });  // 1 2/3 4/5 6
  const NDArray ab[] = {a, b};
  EXPECT_EQ(read<int32_t>(einsum_apply("ij,jk->ik", ab, {}).result), (std::vector<int32_t>{13, 16, 40, 52}));
  EXPECT_EQ(read<int32_t>(einsum_apply("ij,jk", ab, {}).result), (std::vector<int32_t>{13, 16, 40, 52}));
  const NDArray ba[] = {b, a};
  EXPECT_EQ(read<int32_t>(einsum_apply("ji,ij->", ba, {}).result), (std::vector<int32_t>{13 + 52}));   // trace of a @ b
  const NDArray m = filled<int64_t>({3, 3}, DType::Int64, [](int64_t k) { return k; });
  const NDArray one[] = {m};
  const NDArray d = einsum_apply("ii->i", one, {}).result;
  EXPECT_TRUE(is_view_of(d, m));
  EXPECT_EQ(read<int64_t>(d), (std::vector<int64_t>{0, 4, 8}));
  EXPECT_EQ(read<int64_t>(einsum_apply("ii", one, {}).result), (std::vector<int64_t>{12}));
  EinsumOptions o;
  o.dtype = DType::Int8;
  // Note [Einsum views]: a view ignores dtype= (NumPy's einsum neither casts nor checks it) ...
  const NDArray v = einsum_apply("ji", one, o).result;
  EXPECT_TRUE(is_view_of(v, m));
  EXPECT_EQ(v.dtype(), DType::Int64);
  // ... a sum does not.
  EXPECT_EQ(message_of([&] { einsum_apply("ij->", one, o); }),
            "Iterator operand 0 dtype could not be cast from dtype('int64') to dtype('int8') according to the rule "
            "'safe'");
  EXPECT_THROW(einsum_apply("ij->", one, o), TypeError);
}

}  // namespace
}  // namespace kiln::arraycore
