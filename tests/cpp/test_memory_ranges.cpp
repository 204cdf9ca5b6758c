// byte_bounds and shares_memory_exact: Note [Exact overlap].
#include <gtest/gtest.h>

#include "arraycore/copy.h"
#include "arraycore/memory_ranges.h"

namespace kiln::arraycore {
namespace {

std::shared_ptr<Memory> host_memory(size_t nbytes) {
  auto* p = new char[nbytes];
  return std::make_shared<Memory>(p, nbytes, 0, [](void* q) { delete[] static_cast<char*>(q); });
}

TEST(MemoryRanges, ByteBoundsOfStridedAndReversedViews) {
  auto mem = host_memory(4 * 7 * 4);
  const auto base = reinterpret_cast<uintptr_t>(mem->ptr());
  NDArray a(mem, DType::Float32, {4, 7}, {28, 4}, 0);
  EXPECT_EQ(byte_bounds(a), std::make_pair(base, base + 112));
  NDArray every_other(mem, DType::Float32, {2, 4}, {56, 8}, 0);   // a[::2, ::2]
  EXPECT_EQ(byte_bounds(every_other), std::make_pair(base, base + 84));
  NDArray reversed(mem, DType::Float32, {2, 4}, {-56, -8}, 108);   // a[::-2, ::-2]
  EXPECT_EQ(byte_bounds(reversed), std::make_pair(base + 28, base + 112));
  NDArray empty(mem, DType::Float32, {3, 0}, {28, 4}, 8);
  EXPECT_EQ(byte_bounds(empty), std::make_pair(base + 8, base + 8));
}

TEST(MemoryRanges, ExactOverlapOfInterleavedViews) {
  auto mem = host_memory(100 * 8);
  NDArray x(mem, DType::Int64, {100}, {8}, 0);
  NDArray evens(mem, DType::Int64, {50}, {16}, 0), odds(mem, DType::Int64, {50}, {16}, 8);
  NDArray every_fourth_from_1(mem, DType::Int64, {25}, {32}, 8);
  EXPECT_TRUE(shares_bytes(evens, odds));   // the spans meet ...
  EXPECT_FALSE(shares_memory_exact(evens, odds, -1));   // ... no element does
  EXPECT_TRUE(shares_memory_exact(odds, every_fourth_from_1, -1));
  EXPECT_TRUE(shares_memory_exact(x, evens, -1));   // contiguous: no enumeration
  NDArray every_9th(mem, DType::Int64, {12}, {72}, 0), every_11th_from_1(mem, DType::Int64, {9}, {88}, 8);
  EXPECT_TRUE(shares_memory_exact(every_9th, every_11th_from_1, -1));   // both hold 45
  EXPECT_THROW(shares_memory_exact(evens, odds, 10), TooHardError);
  EXPECT_FALSE(shares_memory_exact(evens, odds, 100));
  NDArray other(host_memory(800), DType::Int64, {100}, {8}, 0);
  EXPECT_FALSE(shares_memory_exact(x, other, 0));   // another allocation: no work
}

TEST(MemoryRanges, WiderElementsOverlapNarrowerOnes) {
  auto mem = host_memory(64);
  NDArray complex_parts(mem, DType::Complex128, {2, 2}, {32, 16}, 0);
  NDArray imag(mem, DType::Float64, {2, 2}, {32, 16}, 8);   // .imag of it
  NDArray real(mem, DType::Float64, {2, 2}, {32, 16}, 0);
  EXPECT_TRUE(shares_memory_exact(complex_parts, imag, -1));
  EXPECT_FALSE(shares_memory_exact(real, imag, -1));
}

}  // namespace
}  // namespace kiln::arraycore
