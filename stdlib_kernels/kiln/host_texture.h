// CUDA's texture and surface functions for host kernels (the host prelude
// includes this): tex1D/tex2D/tex3D, tex1Dfetch, tex1DLayered/tex2DLayered,
// surf1D/2D/3D read and write, over the kiln_host::TextureData
// (kiln/host_abi.h) that a cudaTextureObject_t / cudaSurfaceObject_t points
// to on the host backend. NVRTC has these built in; host compiler only.
//
// Note [Host texture fetches]
// A fetch returns what an H200's texture unit returns. CUDA's programming
// guide ("Texture Fetching" appendix) gives the outline; the details below
// were measured (tools/texture_probe.py: dense coordinate sweeps, one-hot
// texels, every pair of 2-D weights) and reproduce every probed float fetch
// to within one float ulp:
//  - normalized coordinates are truncated to 21 fractional bits, then scaled
//    exactly by the extent: x = floor(u * 2^21) / 2^21 * N (a float u * N
//    differs from the GPU next to a weight tie when N is not a power of 2);
//  - point filtering reads texel floor(x);
//  - linear filtering, along each axis: a clamp axis first clamps x to
//    [0.5, N - 0.5] (the coordinate, not only the index: see 3-D below);
//    then i = floor(x - 0.5), and the weight of texel i + 1 is frac(x - 0.5)
//    in 9-bit fixed point, A = round(256 frac(x - 0.5)), ties up, 0..256;
//  - the corner weights are integers out of 256 too, not the exact products
//    of the axes' weights. With P(p, q) = p * q / 256 rounded to the nearest
//    integer, ties up or down as marked, corner (bx, by, bz) weighs
//      wz  = bz ? C : 256 - C
//      wxz = bx ? P(A, wz) up : P(256 - A, wz) down
//      w   = P(wxz, by ? B : 256 - B), up if bx == by, else down
//    (2-D: C = 0, so wxz is A or 256 - A), and they add up to 256. The fetch
//    is sum(w * T) / 256, rounded once to float here (the GPU is within a
//    float ulp of that). In 3-D the weights of the two texels of an axis do
//    not add up to that axis' 1-D weights, so at a clamped edge, where the
//    two are the same texel, clamping the coordinate (weight 0) and clamping
//    only the index give different fetches: the GPU does the former;
//  - a 1-D array is read as a 2-D array of height 1 at y = 0 whose y axis has
//    address_mode[1]: with linear filtering and border there, row -1 is the
//    border (B = 128), so half of the fetch is the border colour. A 1-D
//    layered array is not: its fetches are 1-D;
//  - an index outside [0, N) is clamped (clamp), gives the border colour
//    (border), or, with normalized coordinates only, wraps (wrap: i mod N)
//    or reflects (mirror: period 2N); wrap and mirror without normalized
//    coordinates clamp, as CUDA supports only clamp and border there;
//  - read mode normalized float: a point fetch turns 8- and 16-bit integers
//    into v / (2^n - 1) (unsigned) or max(v / (2^(n-1) - 1), -1) (signed).
//    Linear filtering works in 16-bit fixed point, 65535 (signed: 32767)
//    for 1.0: the weighted sum of v scaled so is rounded to an integer (ties
//    up), divided, and a signed result clamped to -1 (so -128 counts as
//    -128/127 until then). Exact on the probe for uint8, uint16 and int16;
//    int8 is within one unit of 2^-15 (the GPU's 8-to-16-bit expansion of
//    signed values is not v * 32767 / 127 exactly). 32-bit integers and
//    float data are read as they are;
//  - half data: a filtered fetch is rounded to half precision, ties away from
//    zero (the GPU agrees but for 0.4 % of fetches whose texels nearly
//    cancel, where it differs by a few half ulps of the result);
//  - tex1Dfetch of a linear resource reads zero outside [0, N);
//  - the layer of a layered fetch is clamped to the layers there are.
// A surface access is at a byte offset along x; outside the surface it traps
// (cudaBoundaryModeTrap, the default), is clamped, or reads zero and drops
// the write (cudaBoundaryModeZero). docs/texture.md has the user's version.
#pragma once

#include <cstring>
#include <type_traits>

typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
enum cudaSurfaceBoundaryMode { cudaBoundaryModeZero = 0, cudaBoundaryModeClamp = 1, cudaBoundaryModeTrap = 2 };

namespace kiln_host {
namespace tex {

// What a fetch returns: T's component type C and count n (scalars and CUDA's vector types).
template <class T>
struct Components {
  using C = T;
  static constexpr int n = 1;
};
#define KILN_TEX_VECTOR(V, Comp)                 \
  template <>                                    \
  struct Components<V##1> {                      \
    using C = Comp;                              \
    static constexpr int n = 1;                  \
  };                                             \
  template <>                                    \
  struct Components<V##2> {                      \
    using C = Comp;                              \
    static constexpr int n = 2;                  \
  };                                             \
  template <>                                    \
  struct Components<V##4> {                      \
    using C = Comp;                              \
    static constexpr int n = 4;                  \
  };
KILN_TEX_VECTOR(char, signed char)
KILN_TEX_VECTOR(uchar, unsigned char)
KILN_TEX_VECTOR(short, short)
KILN_TEX_VECTOR(ushort, unsigned short)
KILN_TEX_VECTOR(int, int)
KILN_TEX_VECTOR(uint, unsigned int)
KILN_TEX_VECTOR(float, float)
#undef KILN_TEX_VECTOR

inline const TextureData& of(unsigned long long handle) { return *reinterpret_cast<const TextureData*>(handle); }

inline float half_to_float(unsigned short h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float v;
  if (exponent == 0) v = ldexpf(static_cast<float>(mantissa), -24);
  else if (exponent == 31) v = mantissa ? NAN : INFINITY;
  else v = ldexpf(static_cast<float>(mantissa | 0x400), exponent - 25);
  return (h & 0x8000) ? -v : v;
}

// Component c of the texel at `p`, exactly (every format fits a double).
inline double raw_component(const TextureData& t, const unsigned char* p, int c) {
  p += c * (t.channel_bits / 8);
  if (t.channel_kind == 2) {
    if (t.channel_bits == 16) {
      unsigned short h;
      memcpy(&h, p, 2);
      return half_to_float(h);
    }
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  const bool is_signed = t.channel_kind == 0;
  switch (t.channel_bits) {
    case 8: return is_signed ? static_cast<double>(*reinterpret_cast<const signed char*>(p)) : p[0];
    case 16: {
      unsigned short u;
      memcpy(&u, p, 2);
      return is_signed ? static_cast<double>(static_cast<short>(u)) : u;
    }
    default: {
      unsigned int u;
      memcpy(&u, p, 4);
      return is_signed ? static_cast<double>(static_cast<int>(u)) : u;
    }
  }
}

// Index i along an axis of n texels under address mode `mode`; -1: the border.
inline long long address(long long i, long long n, int mode, bool normalized) {
  if (i >= 0 && i < n) return i;
  if (mode == 3) return -1;
  if (normalized && mode == 0) {
    long long m = i % n;
    return m < 0 ? m + n : m;
  }
  if (normalized && mode == 2) {
    long long m = i % (2 * n);
    if (m < 0) m += 2 * n;
    return m < n ? m : 2 * n - 1 - m;
  }
  return i < 0 ? 0 : n - 1;
}

// floor(x) as an index; NaN reads texel 0 and huge coordinates stay far outside.
inline long long floor_index(double x) {
  if (!(x == x)) return 0;
  const double f = floor(x);
  if (f < -1e15) return -1000000000000000LL;
  if (f > 1e15) return 1000000000000000LL;
  return static_cast<long long>(f);
}

// Coordinate c along an axis of n texels, in texels: normalized ones keep 21 fractional bits.
inline double texel_coordinate(float c, unsigned long long n, bool normalized) {
  if (!normalized) return c;
  return floor(static_cast<double>(c) * 2097152.0) / 2097152.0 * static_cast<double>(n);
}

// p * q / 256 to the nearest integer, ties up or down.
inline int weight_product(int p, int q, bool up) { return (p * q + (up ? 128 : 127)) >> 8; }

// The weight out of 256 of corner (bx, by, bz), from the axes' 9-bit weights A, B, C.
inline int corner_weight(int A, int B, int C, int bx, int by, int bz) {
  const int wz = bz ? C : 256 - C;
  const int wxz = bx ? weight_product(A, wz, true) : weight_product(256 - A, wz, false);
  return weight_product(wxz, by ? B : 256 - B, bx == by);
}

// v rounded to half precision, ties away from zero.
inline double round_to_half(double v) {
  if (!(v == v) || v == 0.0 || fabs(v) == INFINITY) return v;
  int e;
  frexp(v, &e);   // |v| = m 2^e, m in [0.5, 1): the ulp is 2^(e - 11), 2^-24 at least
  const double ulp = ldexp(1.0, (e - 1 < -14 ? -14 : e - 1) - 10);
  double r = floor(fabs(v) / ulp + 0.5) * ulp;
  if (r > 65504.0) r = INFINITY;
  return v < 0 ? -r : r;
}

inline unsigned long long layer_index(const TextureData& t, int layer) {
  if (!t.layered || layer < 0) return 0;
  const unsigned long long n = t.extent[t.dims];
  return static_cast<unsigned long long>(layer) >= n ? n - 1 : static_cast<unsigned long long>(layer);
}

inline const unsigned char* texel_address(const TextureData& t, const long long* idx, unsigned long long layer) {
  const unsigned char* p = t.data + idx[0] * static_cast<long long>(t.channels * (t.channel_bits / 8));
  if (t.dims > 1) p += idx[1] * t.pitch[0];
  if (t.dims > 2) p += idx[2] * t.pitch[1];
  if (t.layered) p += layer * t.pitch[t.dims - 1];
  return p;
}

// One axis of a fetch: its texels, address mode, first texel and the second's weight.
struct Axis {
  long long n = 1, lo = 0;
  int mode = 1, weight = 0;
};

// The filtered value of every component at coordinates xs (Note [Host texture fetches]).
inline void sample(const TextureData& t, const float* xs, int layer, float* out) {
  const bool linear = t.filter_mode == 1, normalized = t.normalized_coords != 0;
  // A 1-D array is fetched as 2-D of height 1 at y = 0 (a 1-D layered array is not).
  const bool as_2d = t.dims == 1 && !t.layered;
  const int dims = as_2d ? 2 : t.dims;
  Axis ax[3];
  for (int d = 0; d < dims; ++d) {
    const bool extra = as_2d && d == 1;
    const unsigned long long n = extra ? 1 : t.extent[d];
    ax[d].n = static_cast<long long>(n);
    ax[d].mode = t.address_mode[d];
    double x = texel_coordinate(extra ? 0.0f : xs[d], n, normalized);
    if (linear) {
      const bool clamps = ax[d].mode == 1 || (!normalized && ax[d].mode != 3);
      if (clamps && x == x) x = x < 0.5 ? 0.5 : x > n - 0.5 ? n - 0.5 : x;
      x -= 0.5;
      if (x == x) ax[d].weight = static_cast<int>(floor((x - floor(x)) * 256.0 + 0.5));
    }
    ax[d].lo = floor_index(x);
  }
  // Normalized-float reads of 8/16-bit integers: filtered in units of 1/`full`.
  const bool fixed16 = t.read_mode == 1 && t.channel_kind != 2 && t.channel_bits <= 16;
  const double full = t.channel_kind == 0 ? 32767.0 : 65535.0;
  const double unit = fixed16 ? full / ((1 << (t.channel_bits - (t.channel_kind == 0))) - 1) : 1.0;
  const unsigned long long lay = layer_index(t, layer);
  double acc[4] = {0, 0, 0, 0};
  for (int k = 0; k < (linear ? 1 << dims : 1); ++k) {
    const int b[3] = {k & 1, (k >> 1) & 1, (k >> 2) & 1};
    const int w = linear ? corner_weight(ax[0].weight, ax[1].weight, ax[2].weight, b[0], b[1], b[2]) : 256;
    long long idx[3] = {0, 0, 0};
    bool border = false;
    for (int d = 0; d < dims; ++d) {
      idx[d] = address(ax[d].lo + b[d], ax[d].n, ax[d].mode, normalized);
      border = border || idx[d] < 0;
    }
    const unsigned char* p = border ? nullptr : texel_address(t, idx, lay);
    for (int c = 0; c < t.channels; ++c) {
      double v;
      if (border) v = fixed16 ? t.border_color[c] * full : t.border_color[c];
      else if (fixed16) v = raw_component(t, p, c) * unit;
      else v = static_cast<float>(raw_component(t, p, c));   // float data as stored, 32-bit integers as floats
      acc[c] += w * v;
    }
  }
  for (int c = 0; c < 4; ++c) {
    double v = acc[c] / 256.0;
    if (fixed16) {
      v = (linear ? floor(v + 0.5) : v) / full;   // a point fetch is v / (2^n - 1) exactly
      if (v < -1.0) v = -1.0;
    } else if (t.channel_kind == 2 && t.channel_bits == 16) {
      v = round_to_half(v);
    }
    out[c] = c < t.channels ? static_cast<float>(v) : 0.0f;
  }
}

// The texel at coordinates xs, point sampled, as integers (element-type reads of integer data).
template <class C>
void sample_integer(const TextureData& t, const float* xs, int layer, C* out, int n) {
  long long idx[3] = {0, 0, 0};
  bool border = false;
  for (int d = 0; d < t.dims; ++d) {
    const double x = texel_coordinate(xs[d], t.extent[d], t.normalized_coords);
    idx[d] = address(floor_index(x), static_cast<long long>(t.extent[d]), t.address_mode[d], t.normalized_coords);
    border = border || idx[d] < 0;
  }
  const unsigned char* p = border ? nullptr : texel_address(t, idx, layer_index(t, layer));
  for (int c = 0; c < n && c < t.channels; ++c)
    out[c] = border ? static_cast<C>(t.border_color[c]) : static_cast<C>(raw_component(t, p, c));
}

template <class T>
T fetch(unsigned long long handle, float x, float y, float z, int layer) {
  using K = Components<T>;
  using C = typename K::C;
  static_assert(std::is_arithmetic<C>::value, "texture fetches return scalars or CUDA vector types");
  const TextureData& t = of(handle);
  const float xs[3] = {x, y, z};
  T result{};
  C* out = reinterpret_cast<C*>(&result);
  if (std::is_floating_point<C>::value) {
    float v[4];
    sample(t, xs, layer, v);
    for (int c = 0; c < K::n; ++c) out[c] = static_cast<C>(v[c]);
  } else {
    sample_integer(t, xs, layer, out, K::n);
  }
  return result;
}

template <class T>
T fetch_linear(unsigned long long handle, int i) {
  const TextureData& t = of(handle);
  T result{};
  if (i < 0 || static_cast<unsigned long long>(i) >= t.extent[0]) return result;
  // In range, a point fetch at the texel's index reads exactly that texel.
  TextureData point = t;
  point.filter_mode = 0;
  point.normalized_coords = 0;
  return fetch<T>(reinterpret_cast<unsigned long long>(&point), static_cast<float>(i), 0.0f, 0.0f, 0);
}

// The byte address of a surface access, or nullptr when it reads zero / drops the write.
template <class T>
unsigned char* surface_address(unsigned long long handle, long long x, long long y, long long z, int dims,
                               cudaSurfaceBoundaryMode mode, const char* func) {
  const TextureData& t = of(handle);
  const long long pos[3] = {x, y, z};
  const long long limit[3] = {static_cast<long long>(t.extent[0] * t.channels * (t.channel_bits / 8)) -
                                  static_cast<long long>(sizeof(T)),
                              static_cast<long long>(t.extent[1]) - 1, static_cast<long long>(t.extent[2]) - 1};
  long long at[3] = {0, 0, 0};
  for (int d = 0; d < dims; ++d) {
    at[d] = pos[d];
    if (pos[d] >= 0 && pos[d] <= limit[d]) continue;
    if (mode == cudaBoundaryModeZero) return nullptr;
    if (mode == cudaBoundaryModeTrap) {
      char what[160];
      snprintf(what, sizeof what, "%s: coordinate %lld of axis %d is outside the surface (0 to %lld)", func, pos[d],
               d, limit[d]);
      fail_with(what, __FILE__, __LINE__, func);
    }
    at[d] = pos[d] < 0 ? 0 : limit[d];
  }
  return t.data + at[0] + at[1] * static_cast<long long>(t.pitch[0]) + at[2] * static_cast<long long>(t.pitch[1]);
}

template <class T>
T surface_read(unsigned long long s, long long x, long long y, long long z, int dims, cudaSurfaceBoundaryMode mode,
               const char* func) {
  T v{};
  if (const unsigned char* p = surface_address<T>(s, x, y, z, dims, mode, func)) memcpy(&v, p, sizeof(T));
  return v;
}

template <class T>
void surface_write(const T& v, unsigned long long s, long long x, long long y, long long z, int dims,
                   cudaSurfaceBoundaryMode mode, const char* func) {
  if (unsigned char* p = surface_address<T>(s, x, y, z, dims, mode, func)) memcpy(p, &v, sizeof(T));
}

}  // namespace tex
}  // namespace kiln_host

template <class T>
T tex1Dfetch(cudaTextureObject_t t, int x) { return kiln_host::tex::fetch_linear<T>(t, x); }
template <class T>
T tex1D(cudaTextureObject_t t, float x) { return kiln_host::tex::fetch<T>(t, x, 0.0f, 0.0f, 0); }
template <class T>
T tex2D(cudaTextureObject_t t, float x, float y) { return kiln_host::tex::fetch<T>(t, x, y, 0.0f, 0); }
template <class T>
T tex3D(cudaTextureObject_t t, float x, float y, float z) { return kiln_host::tex::fetch<T>(t, x, y, z, 0); }
template <class T>
T tex1DLayered(cudaTextureObject_t t, float x, int layer) { return kiln_host::tex::fetch<T>(t, x, 0.0f, 0.0f, layer); }
template <class T>
T tex2DLayered(cudaTextureObject_t t, float x, float y, int layer) {
  return kiln_host::tex::fetch<T>(t, x, y, 0.0f, layer);
}
template <class T>
void tex1Dfetch(T* out, cudaTextureObject_t t, int x) { *out = tex1Dfetch<T>(t, x); }
template <class T>
void tex1D(T* out, cudaTextureObject_t t, float x) { *out = tex1D<T>(t, x); }
template <class T>
void tex2D(T* out, cudaTextureObject_t t, float x, float y) { *out = tex2D<T>(t, x, y); }
template <class T>
void tex3D(T* out, cudaTextureObject_t t, float x, float y, float z) { *out = tex3D<T>(t, x, y, z); }

template <class T>
T surf1Dread(cudaSurfaceObject_t s, int x, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  return kiln_host::tex::surface_read<T>(s, x, 0, 0, 1, m, "surf1Dread");
}
template <class T>
T surf2Dread(cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  return kiln_host::tex::surface_read<T>(s, x, y, 0, 2, m, "surf2Dread");
}
template <class T>
T surf3Dread(cudaSurfaceObject_t s, int x, int y, int z, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  return kiln_host::tex::surface_read<T>(s, x, y, z, 3, m, "surf3Dread");
}
template <class T>
void surf1Dread(T* out, cudaSurfaceObject_t s, int x, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  *out = surf1Dread<T>(s, x, m);
}
template <class T>
void surf2Dread(T* out, cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  *out = surf2Dread<T>(s, x, y, m);
}
template <class T>
void surf3Dread(T* out, cudaSurfaceObject_t s, int x, int y, int z, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  *out = surf3Dread<T>(s, x, y, z, m);
}
template <class T>
void surf1Dwrite(T v, cudaSurfaceObject_t s, int x, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  kiln_host::tex::surface_write(v, s, x, 0, 0, 1, m, "surf1Dwrite");
}
template <class T>
void surf2Dwrite(T v, cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  kiln_host::tex::surface_write(v, s, x, y, 0, 2, m, "surf2Dwrite");
}
template <class T>
void surf3Dwrite(T v, cudaSurfaceObject_t s, int x, int y, int z, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  kiln_host::tex::surface_write(v, s, x, y, z, 3, m, "surf3Dwrite");
}
