// The C and C++ library headers the host prelude is built on, included with
// the integer typedefs of <stdint.h> and <sys/types.h> kept out of the global
// namespace (Note [Host prelude names]). Host compiler only; the host prelude
// includes this first, so the prelude's own later #includes of these headers
// are no-ops.
//
// Note [Host prelude names]
// CUDA device code compiled by NVRTC sees no uint64_t, int32_t, intptr_t or
// ssize_t: a kernel that wants them declares them itself, commonly
// `typedef unsigned long long uint64_t;` in a preamble. glibc's headers
// declare them at global scope, some as other types (uint64_t is `unsigned
// long` there), so the same line failed on the host backend with
// "conflicting declaration". While the system headers are read here, each of
// those names is a macro for kiln_sys_<name>: glibc declares ::kiln_sys_uint64_t,
// libstdc++'s <cstdint> std::kiln_sys_uint64_t, and neither the global name.
// Afterwards std:: gets the standard's names back (std::uint64_t is still
// there for C++ code that includes <cstdint>), and the global namespace keeps
// only what NVRTC also has: size_t, ptrdiff_t, clock_t, the math functions.
// kiln's own headers spell their types `unsigned long long` and so on.
// What is left of the C library's global names (printf, memcpy, the math
// functions and their C++ overloads, Note [Host hypot]) is what CUDA device
// code also has, give or take a few POSIX names (index, div): docs/kernels.md.
#pragma once

// <stdint.h>'s names, given back in std:: at the end; <sys/types.h>'s (which
// <stdlib.h> brings in: ssize_t, uint, ulong, u_int64_t, off_t ...) follow.
#define KILN_HOST_HIDDEN_NAMES(X)                                                                        \
  X(int8_t) X(int16_t) X(int32_t) X(int64_t) X(uint8_t) X(uint16_t) X(uint32_t) X(uint64_t)              \
  X(int_least8_t) X(int_least16_t) X(int_least32_t) X(int_least64_t)                                     \
  X(uint_least8_t) X(uint_least16_t) X(uint_least32_t) X(uint_least64_t)                                 \
  X(int_fast8_t) X(int_fast16_t) X(int_fast32_t) X(int_fast64_t)                                         \
  X(uint_fast8_t) X(uint_fast16_t) X(uint_fast32_t) X(uint_fast64_t)                                     \
  X(intptr_t) X(uintptr_t) X(intmax_t) X(uintmax_t)

#define int8_t kiln_sys_int8_t
#define int16_t kiln_sys_int16_t
#define int32_t kiln_sys_int32_t
#define int64_t kiln_sys_int64_t
#define uint8_t kiln_sys_uint8_t
#define uint16_t kiln_sys_uint16_t
#define uint32_t kiln_sys_uint32_t
#define uint64_t kiln_sys_uint64_t
#define int_least8_t kiln_sys_int_least8_t
#define int_least16_t kiln_sys_int_least16_t
#define int_least32_t kiln_sys_int_least32_t
#define int_least64_t kiln_sys_int_least64_t
#define uint_least8_t kiln_sys_uint_least8_t
#define uint_least16_t kiln_sys_uint_least16_t
#define uint_least32_t kiln_sys_uint_least32_t
#define uint_least64_t kiln_sys_uint_least64_t
#define int_fast8_t kiln_sys_int_fast8_t
#define int_fast16_t kiln_sys_int_fast16_t
#define int_fast32_t kiln_sys_int_fast32_t
#define int_fast64_t kiln_sys_int_fast64_t
#define uint_fast8_t kiln_sys_uint_fast8_t
#define uint_fast16_t kiln_sys_uint_fast16_t
#define uint_fast32_t kiln_sys_uint_fast32_t
#define uint_fast64_t kiln_sys_uint_fast64_t
#define intptr_t kiln_sys_intptr_t
#define uintptr_t kiln_sys_uintptr_t
#define intmax_t kiln_sys_intmax_t
#define uintmax_t kiln_sys_uintmax_t
#define ssize_t kiln_sys_ssize_t
#define u_char kiln_sys_u_char
#define u_short kiln_sys_u_short
#define u_int kiln_sys_u_int
#define u_long kiln_sys_u_long
#define quad_t kiln_sys_quad_t
#define u_quad_t kiln_sys_u_quad_t
#define ulong kiln_sys_ulong
#define ushort kiln_sys_ushort
#define uint kiln_sys_uint
#define u_int8_t kiln_sys_u_int8_t
#define u_int16_t kiln_sys_u_int16_t
#define u_int32_t kiln_sys_u_int32_t
#define u_int64_t kiln_sys_u_int64_t
#define register_t kiln_sys_register_t
#define off_t kiln_sys_off_t
#define loff_t kiln_sys_loff_t
#define ino_t kiln_sys_ino_t
#define dev_t kiln_sys_dev_t
#define gid_t kiln_sys_gid_t
#define uid_t kiln_sys_uid_t
#define mode_t kiln_sys_mode_t
#define nlink_t kiln_sys_nlink_t
#define pid_t kiln_sys_pid_t
#define id_t kiln_sys_id_t
#define daddr_t kiln_sys_daddr_t
#define caddr_t kiln_sys_caddr_t
#define key_t kiln_sys_key_t
#define blksize_t kiln_sys_blksize_t
#define blkcnt_t kiln_sys_blkcnt_t
#define fsblkcnt_t kiln_sys_fsblkcnt_t
#define fsfilcnt_t kiln_sys_fsfilcnt_t
#define useconds_t kiln_sys_useconds_t
#define suseconds_t kiln_sys_suseconds_t

// <cmath> (which reads the C library's <math.h> itself); the C++ overloads
// go to the global namespace below (Note [Host hypot]).
#include <cmath>

#include <assert.h>
#include <fenv.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>  // ::ptrdiff_t and ::size_t, which CUDA device code has without an include
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>  // sysconf (kiln/jit.h)

#include <cinttypes>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#undef int8_t
#undef int16_t
#undef int32_t
#undef int64_t
#undef uint8_t
#undef uint16_t
#undef uint32_t
#undef uint64_t
#undef int_least8_t
#undef int_least16_t
#undef int_least32_t
#undef int_least64_t
#undef uint_least8_t
#undef uint_least16_t
#undef uint_least32_t
#undef uint_least64_t
#undef int_fast8_t
#undef int_fast16_t
#undef int_fast32_t
#undef int_fast64_t
#undef uint_fast8_t
#undef uint_fast16_t
#undef uint_fast32_t
#undef uint_fast64_t
#undef intptr_t
#undef uintptr_t
#undef intmax_t
#undef uintmax_t
#undef ssize_t
#undef u_char
#undef u_short
#undef u_int
#undef u_long
#undef quad_t
#undef u_quad_t
#undef ulong
#undef ushort
#undef uint
#undef u_int8_t
#undef u_int16_t
#undef u_int32_t
#undef u_int64_t
#undef register_t
#undef off_t
#undef loff_t
#undef ino_t
#undef dev_t
#undef gid_t
#undef uid_t
#undef mode_t
#undef nlink_t
#undef pid_t
#undef id_t
#undef daddr_t
#undef caddr_t
#undef key_t
#undef blksize_t
#undef blkcnt_t
#undef fsblkcnt_t
#undef fsfilcnt_t
#undef useconds_t
#undef suseconds_t

// Note [Host hypot]
// `using std::hypot` would also bring C++17's three-argument overloads to the
// global namespace, which CUDA does not have, so a kernel's own
// `__device__ float hypot(float, float, float)` (a 3-D norm) would conflict
// with them. The two-argument calls resolve as with std::hypot: C's
// hypot(double, double) for doubles, this template for the rest
// (hypot(1.0f, 2.0f) is float).
#define KILN_HOST_STD_MATH(X)                                                                            \
  X(abs) X(acos) X(asin) X(atan) X(atan2) X(cos) X(sin) X(tan) X(cosh) X(sinh) X(tanh) X(exp) X(frexp)   \
  X(ldexp) X(log) X(log10) X(modf) X(pow) X(sqrt) X(ceil) X(fabs) X(floor) X(fmod) X(fpclassify)         \
  X(isfinite) X(isinf) X(isnan) X(isnormal) X(signbit) X(isgreater) X(isgreaterequal) X(isless)          \
  X(islessequal) X(islessgreater) X(isunordered) X(acosh) X(asinh) X(atanh) X(cbrt) X(copysign) X(erf)   \
  X(erfc) X(exp2) X(expm1) X(fdim) X(fma) X(fmax) X(fmin) X(ilogb) X(lgamma) X(llrint) X(llround)        \
  X(log1p) X(log2) X(logb) X(lrint) X(lround) X(nearbyint) X(nextafter) X(nexttoward) X(remainder)       \
  X(remquo) X(rint) X(round) X(scalbln) X(scalbn) X(tgamma) X(trunc)
#if defined(__GLIBCXX__) && !defined(_GLIBCXX_MATH_H)
#define _GLIBCXX_MATH_H 1  // libstdc++'s <math.h>, which would say `using std::hypot`, adds nothing now
#define KILN_HOST_USING_STD(name) using std::name;
KILN_HOST_STD_MATH(KILN_HOST_USING_STD)
#undef KILN_HOST_USING_STD
template <class A, class B>
inline auto hypot(A a, B b) -> decltype(std::hypot(a, b)) {
  return std::hypot(a, b);
}
#else
#include <math.h>  // another C++ library: its own global overloads
#endif
#undef KILN_HOST_STD_MATH

// The standard's names in std::, for C++ headers a kernel includes later
// (<atomic> and <random> name std::uint64_t and friends).
namespace std {
#define KILN_HOST_STD_NAME(name) using name = ::kiln_sys_##name;
KILN_HOST_HIDDEN_NAMES(KILN_HOST_STD_NAME)
#undef KILN_HOST_STD_NAME
}  // namespace std

#undef KILN_HOST_HIDDEN_NAMES
