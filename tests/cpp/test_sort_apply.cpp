// arraycore/sort_apply.h and sets.h: the argument checks, which throw before
// anything runs on a backend (NumPy's messages and exception kinds), and the
// operations themselves on the process's backend (host unless KILN_BACKEND
// says otherwise), against results worked out by hand.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "arraycore/axes.h"
#include "arraycore/sets.h"
#include "arraycore/sort_apply.h"
#include "arraycore/transfer.h"
#include "engine_fixture.h"
#include "runtime/backend.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

std::shared_ptr<Memory> host_memory(size_t nbytes) {
  auto* p = new char[nbytes ? nbytes : 1];
  return std::make_shared<Memory>(p, nbytes, 0, [](void* q) { delete[] static_cast<char*>(q); });
}

NDArray host_array(Shape shape, DType dtype) {
  return NDArray(host_memory(96), dtype, shape, contiguous_strides(shape, itemsize(dtype), Order::C), 0);
}

using testing::message_of;

TEST(SortApply, KindChecksAsNumPy) {
  EXPECT_NO_THROW(check_sort_kind(std::nullopt, "None", false, true));
  EXPECT_NO_THROW(check_sort_kind("mergesort", "'mergesort'", false, false));
  EXPECT_EQ(message_of<std::invalid_argument>([] { check_sort_kind("bogo", "'bogo'", false, false); }),
            "sort kind must be one of 'quick', 'heap', or 'stable' (got 'bogo')");
  EXPECT_EQ(message_of<std::invalid_argument>([] { check_sort_kind("quick", "'quick'", false, true); }),
            "`kind` and keyword parameters can't be provided at the same time. Use only one of them.");
  EXPECT_EQ(message_of<std::invalid_argument>([] { check_sort_kind(std::nullopt, "None", true, false); }),
            "Cannot specify order when the array has no fields.");
}

TEST(SortApply, PartitionChecksKindAxisAndKth) {
  const NDArray a = host_array({3, 4}, DType::Float32);
  KthArgument kth;
  kth.values = {4};
  EXPECT_EQ(message_of<std::invalid_argument>([&] { partition_apply(a, kth, -1, "quick", "'quick'", false, false); }),
            "select kind must be 'introselect' (got 'quick')");
  EXPECT_THROW(partition_apply(a, kth, 2, "introselect", "", false, false), AxisError);
  EXPECT_EQ(message_of<std::invalid_argument>([&] { partition_apply(a, kth, -1, "introselect", "", false, false); }),
            "kth(=4) out of bounds (4)");
  kth.integer = false;
  EXPECT_EQ(message_of<TypeError>([&] { partition_apply(a, kth, -1, "introselect", "", false, true); }),
            "Partition index must be integer");
}

TEST(SortApply, LexsortAndSearchsortedArguments) {
  EXPECT_THROW(lexsort_apply({}, -1), TypeError);
  const NDArray keys[] = {host_array({3}, DType::Float64), host_array({4}, DType::Float64)};
  EXPECT_EQ(message_of<std::invalid_argument>([&] { lexsort_apply(keys, -1); }), "all keys need to be the same shape");
  const NDArray v = host_array({2}, DType::Float64);
  EXPECT_EQ(message_of<std::invalid_argument>([&] { searchsorted_apply(host_array({2, 2}, DType::Float64), v, "left", nullptr); }),
            "object too deep for desired array");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { searchsorted_apply(host_array({}, DType::Float64), v, "left", nullptr); }),
            "object of too small depth for desired array");
  const NDArray a = host_array({3}, DType::Float64);
  EXPECT_EQ(message_of<std::invalid_argument>([&] { searchsorted_apply(a, v, "x", nullptr); }),
            "search side must be 'left' or 'right' (got 'x')");
  const NDArray float_sorter = host_array({3}, DType::Float64), short_sorter = host_array({2}, DType::Int64);
  EXPECT_EQ(message_of<TypeError>([&] { searchsorted_apply(a, v, "left", &float_sorter); }),
            "sorter must only contain integers");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { searchsorted_apply(a, v, "left", &short_sorter); }),
            "sorter.size must equal a.size");
}

class SortApplyRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    setenv("KILN_BACKEND", "host", 0);
    runtime::set_stdlib_include_dir(KILN_SOURCE_STDLIB_DIR);
  }
  template <class T>
  static NDArray upload(const std::vector<T>& values, Shape shape, DType dtype) {
    NDArray a = NDArray::empty(shape, dtype);
    copy_from_host(a, values.data(), runtime::current_stream());
    return a;
  }
  template <class T>
  static std::vector<T> download(const NDArray& a) {
    std::vector<T> out(static_cast<size_t>(a.size()));
    const NDArray c = c_contiguous_copy(a);
    copy_to_host(c, out.data(), runtime::current_stream());
    return out;
  }
};

TEST_F(SortApplyRun, SortArgsortAlongEitherAxis) {
  // [[3, 1, 2], [0, 5, 1]]
  const NDArray a = upload<float>({3, 1, 2, 0, 5, 1}, {2, 3}, DType::Float32);
  EXPECT_EQ(download<float>(sort_apply(a, -1)), (std::vector<float>{1, 2, 3, 0, 1, 5}));
  EXPECT_EQ(download<float>(sort_apply(a, 0)), (std::vector<float>{0, 1, 1, 3, 5, 2}));
  EXPECT_EQ(download<float>(sort_apply(a, std::nullopt)), (std::vector<float>{0, 1, 1, 2, 3, 5}));
  EXPECT_EQ(download<int64_t>(argsort_apply(a, 0)), (std::vector<int64_t>{1, 0, 1, 0, 1, 0}));
  EXPECT_EQ(download<int64_t>(argsort_apply(a, std::nullopt)), (std::vector<int64_t>{3, 1, 5, 2, 0, 4}));
  sort_in_place(a, 0);
  EXPECT_EQ(download<float>(a), (std::vector<float>{0, 1, 1, 3, 5, 2}));
}

TEST_F(SortApplyRun, LexsortSearchsortedUnique) {
  const NDArray primary = upload<int32_t>({1, 0, 1, 0}, {4}, DType::Int32);
  const NDArray secondary = upload<int32_t>({4, 3, 2, 1}, {4}, DType::Int32);
  const NDArray keys[] = {secondary, primary};   // by primary, ties by secondary
  EXPECT_EQ(download<int64_t>(lexsort_apply(keys, -1)), (std::vector<int64_t>{3, 1, 2, 0}));
  const NDArray sorted = upload<double>({1, 2, 2, 4}, {4}, DType::Float64);
  const NDArray v = upload<int32_t>({2, 0, 5}, {3}, DType::Int32);
  EXPECT_EQ(download<int64_t>(searchsorted_apply(sorted, v, "left", nullptr)), (std::vector<int64_t>{1, 0, 4}));
  EXPECT_EQ(download<int64_t>(searchsorted_apply(sorted, v, "right", nullptr)), (std::vector<int64_t>{3, 0, 4}));
  const NDArray x = upload<int32_t>({3, 1, 3, 2, 1}, {5}, DType::Int32);
  UniqueResult u = unique_apply(x, std::nullopt, true, true, true, true);
  EXPECT_EQ(download<int32_t>(u.values), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(download<int64_t>(*u.index), (std::vector<int64_t>{1, 3, 0}));
  EXPECT_EQ(download<int64_t>(*u.inverse), (std::vector<int64_t>{2, 0, 2, 1, 0}));
  EXPECT_EQ(download<int64_t>(*u.counts), (std::vector<int64_t>{2, 1, 2}));
  EXPECT_EQ(download<uint8_t>(isin_apply(x, v)), (std::vector<uint8_t>{0, 0, 0, 1, 0}));
}

}  // namespace
}  // namespace kiln::arraycore
