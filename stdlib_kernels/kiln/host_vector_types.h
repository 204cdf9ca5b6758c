// CUDA's built-in vector types (char1 ... double4, with the device's sizes and
// alignments) and their make_* constructors, for the host prelude
// (host_kernel.h includes this after uint3). Host compiler only.
#pragma once

// name: the CUDA spelling without the count; A2/A4: the alignment of the 2-
// and 4-element types (1- and 3-element types align as their element).
#define KILN_HOST_VECTOR_1_2_4(T, name, A2, A4)                                      \
  struct name##1 {                                                                 \
    T x;                                                                           \
  };                                                                               \
  struct __attribute__((aligned(A2))) name##2 {                                    \
    T x, y;                                                                        \
  };                                                                               \
  struct __attribute__((aligned(A4))) name##4 {                                    \
    T x, y, z, w;                                                                  \
  };                                                                               \
  inline constexpr name##1 make_##name##1(T x) { return name##1{x}; }              \
  inline constexpr name##2 make_##name##2(T x, T y) { return name##2{x, y}; }      \
  inline constexpr name##4 make_##name##4(T x, T y, T z, T w) { return name##4{x, y, z, w}; }
#define KILN_HOST_VECTOR_3(T, name) \
  inline constexpr name##3 make_##name##3(T x, T y, T z) { return name##3{x, y, z}; }
#define KILN_HOST_VECTOR(T, name, A2, A4) \
  KILN_HOST_VECTOR_1_2_4(T, name, A2, A4) \
  struct name##3 {                        \
    T x, y, z;                            \
  };                                      \
  KILN_HOST_VECTOR_3(T, name)

KILN_HOST_VECTOR(signed char, char, 2, 4)
KILN_HOST_VECTOR(unsigned char, uchar, 2, 4)
KILN_HOST_VECTOR(short, short, 4, 8)
KILN_HOST_VECTOR(unsigned short, ushort, 4, 8)
KILN_HOST_VECTOR(int, int, 8, 16)
KILN_HOST_VECTOR_1_2_4(unsigned int, uint, 8, 16)  // uint3 is host_kernel.h's (threadIdx)
KILN_HOST_VECTOR_3(unsigned int, uint)
KILN_HOST_VECTOR(long, long, 16, 16)
KILN_HOST_VECTOR(unsigned long, ulong, 16, 16)
KILN_HOST_VECTOR(long long, longlong, 16, 16)
KILN_HOST_VECTOR(unsigned long long, ulonglong, 16, 16)
KILN_HOST_VECTOR(float, float, 8, 16)
KILN_HOST_VECTOR(double, double, 16, 16)

#undef KILN_HOST_VECTOR
#undef KILN_HOST_VECTOR_3
#undef KILN_HOST_VECTOR_1_2_4

static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4 as on the device");
static_assert(sizeof(double2) == 16 && alignof(double2) == 16, "double2 as on the device");
static_assert(sizeof(char3) == 3 && alignof(short2) == 4, "char3/short2 as on the device");
