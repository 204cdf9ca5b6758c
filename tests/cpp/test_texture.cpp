// runtime/texture.h on the host backend: the checks of the descriptions, CUDA
// arrays in host memory, and the kiln_host::TextureData a texture or surface
// handle points to (what kiln/host_texture.h's fetches read; the fetches
// themselves are tested from Python, tests/python/kernels/test_texture.py).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "kiln/host_abi.h"
#include "runtime/stream.h"
#include "runtime/texture.h"

namespace kiln::runtime {
namespace {

class TextureTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    setenv("KILN_BACKEND", "host", 0);
    set_stdlib_include_dir(KILN_SOURCE_STDLIB_DIR);
    ASSERT_EQ(backend().name(), "host");
  }
  static const kiln_host::TextureData& data(const TextureObject& t) {
    return *reinterpret_cast<const kiln_host::TextureData*>(t.handle());
  }
};

TEST_F(TextureTest, ChannelFormatsAreCudaArrays) {
  EXPECT_NO_THROW((ChannelFormat{8, 8, 8, 8, kChannelUnsigned}.check()));
  EXPECT_NO_THROW((ChannelFormat{16, 16, 0, 0, kChannelFloat}.check()));
  EXPECT_THROW((ChannelFormat{32, 32, 32, 0, kChannelFloat}.check()), std::invalid_argument);   // 3 channels
  EXPECT_THROW((ChannelFormat{32, 0, 32, 0, kChannelFloat}.check()), std::invalid_argument);    // a gap
  EXPECT_THROW((ChannelFormat{8, 16, 0, 0, kChannelSigned}.check()), std::invalid_argument);    // mixed sizes
  EXPECT_THROW((ChannelFormat{8, 0, 0, 0, kChannelFloat}.check()), std::invalid_argument);      // 8-bit float
  EXPECT_THROW((ChannelFormat{32, 0, 0, 0, kChannelNone}.check()), std::invalid_argument);
  EXPECT_EQ((ChannelFormat{16, 16, 16, 16, kChannelSigned}.element_bytes()), 8u);
}

TEST_F(TextureTest, ArraysCopyInAndOut) {
  auto arr = std::make_shared<TextureArray>(ChannelFormat{8, 8, 8, 8, kChannelUnsigned}, 3, 2, 0, 0);
  EXPECT_EQ(arr->ndim(), 2);
  EXPECT_EQ(arr->nbytes(), 24u);
  std::vector<unsigned char> in(24), out(24, 0);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>(i * 7);
  arr->copy(in.data(), false, true, current_stream());
  arr->copy(out.data(), false, false, current_stream());
  EXPECT_EQ(in, out);
  EXPECT_THROW(TextureArray(ChannelFormat{32, 0, 0, 0, kChannelFloat}, 0, 0, 0, 0), std::invalid_argument);
  EXPECT_THROW(TextureArray(ChannelFormat{32, 0, 0, 0, kChannelFloat}, 4, 0, 2, 0), std::invalid_argument);
}

TEST_F(TextureTest, TextureDataDescribesTheResource) {
  auto arr = std::make_shared<TextureArray>(ChannelFormat{16, 16, 0, 0, kChannelSigned}, 5, 4, 3, kArrayLayered);
  ResourceDesc res;
  res.array = arr;
  TextureDesc desc;
  desc.address_mode = {kAddressBorder, kAddressMirror, kAddressWrap};
  desc.filter_mode = kFilterLinear;
  desc.read_mode = kReadNormalizedFloat;
  desc.normalized_coords = 1;
  desc.border_color = {1, 2, 3, 4};
  TextureObject tex(res, desc);
  const kiln_host::TextureData& t = data(tex);
  EXPECT_EQ(t.data, arr->handle());
  EXPECT_EQ(t.dims, 2);
  EXPECT_EQ(t.layered, 1);
  EXPECT_EQ(t.extent[0], 5u);
  EXPECT_EQ(t.extent[1], 4u);
  EXPECT_EQ(t.extent[2], 3u);
  EXPECT_EQ(t.pitch[0], 20u);
  EXPECT_EQ(t.pitch[1], 80u);
  EXPECT_EQ(t.channels, 2);
  EXPECT_EQ(t.channel_bits, 16);
  EXPECT_EQ(t.channel_kind, kChannelSigned);
  EXPECT_EQ(t.address_mode[1], kAddressMirror);
  EXPECT_EQ(t.filter_mode, kFilterLinear);
  EXPECT_EQ(t.read_mode, kReadNormalizedFloat);
  EXPECT_EQ(t.normalized_coords, 1);
  EXPECT_EQ(t.border_color[3], 4.0f);

  std::vector<float> memory(64);
  ResourceDesc pitched;
  pitched.type = kResourcePitch2D;
  pitched.ptr = memory.data();
  pitched.format = ChannelFormat{32, 0, 0, 0, kChannelFloat};
  pitched.width = 6;
  pitched.height = 4;
  pitched.pitch_in_bytes = 64;
  TextureObject rows(pitched, TextureDesc{});
  EXPECT_EQ(data(rows).dims, 2);
  EXPECT_EQ(data(rows).pitch[0], 64u);
  EXPECT_EQ(data(rows).extent[0], 6u);

  ResourceDesc linear = pitched;
  linear.type = kResourceLinear;
  linear.size_in_bytes = 256;
  TextureObject flat(linear, TextureDesc{});
  EXPECT_EQ(data(flat).linear, 1);
  EXPECT_EQ(data(flat).extent[0], 64u);
}

TEST_F(TextureTest, WhatCudaRejects) {
  auto ints = std::make_shared<TextureArray>(ChannelFormat{32, 0, 0, 0, kChannelSigned}, 4, 0, 0, 0);
  ResourceDesc res;
  res.array = ints;
  TextureDesc linear;
  linear.filter_mode = kFilterLinear;
  EXPECT_THROW(TextureObject(res, linear), std::invalid_argument);   // integers read as integers
  linear.read_mode = kReadNormalizedFloat;
  EXPECT_THROW(TextureObject(res, linear), std::invalid_argument);   // 32-bit integers are never normalized
  EXPECT_THROW(TextureObject{res}, std::invalid_argument);           // no cudaArraySurfaceLoadStore
  ResourceDesc pitched;
  pitched.type = kResourcePitch2D;
  pitched.ptr = ints->handle();
  pitched.format = ChannelFormat{32, 0, 0, 0, kChannelFloat};
  pitched.width = 8;
  pitched.height = 2;
  pitched.pitch_in_bytes = 16;   // less than a row
  EXPECT_THROW(TextureObject(pitched, TextureDesc{}), std::invalid_argument);
  auto surface = std::make_shared<TextureArray>(ChannelFormat{32, 0, 0, 0, kChannelFloat}, 4, 2, 0,
                                                kArraySurfaceLoadStore);
  res.array = surface;
  TextureObject s(res);
  EXPECT_TRUE(s.is_surface());
  EXPECT_EQ(data(s).extent[1], 2u);
}

}  // namespace
}  // namespace kiln::runtime
