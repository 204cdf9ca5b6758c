// CUDA's texture and surface functions for host kernels (the host prelude
// includes this): tex1D/tex2D/tex3D, tex1Dfetch, tex1DLayered/tex2DLayered,
// surf1D/2D/3D read and write, over the kiln_host::TextureData
// (kiln/host_abi.h) that a cudaTextureObject_t / cudaSurfaceObject_t points
// to on the host backend. NVRTC has these built in; host compiler only.
//
// Note [Host texture fetches]
// A fetch does what CUDA's programming guide ("Texture Fetching" appendix)
// says the hardware does, so that host and GPU return the same values:
//  - normalized coordinates are scaled by the extent in float: x = u * N;
//  - point filtering reads texel floor(x);
//  - linear filtering reads the texels i = floor(x - 0.5) and i + 1 along
//    each axis and weighs them by alpha = frac(x - 0.5) rounded to the
//    nearest multiple of 1/256 (the GPU keeps alpha in 9-bit fixed point
//    with 8 fractional bits; ties round up): tex(x) = (1 - alpha) T[i] +
//    alpha T[i+1], and the products of these weights in 2-D and 3-D, summed
//    in float in the guide's order;
//  - an index outside [0, N) is clamped (clamp), gives the border colour
//    (border), or, with normalized coordinates only, wraps (wrap: i mod N)
//    or reflects (mirror: period 2N); wrap and mirror without normalized
//    coordinates clamp, as CUDA supports only clamp and border there;
//  - read mode normalized float turns 8- and 16-bit integers into v / (2^n - 1)
//    (unsigned) or max(v / (2^(n-1) - 1), -1) (signed); 32-bit integers and
//    float data are read as they are; half data is read as float;
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

// Component c as a filtered fetch sees it (Note [Host texture fetches]: read modes).
inline float float_component(const TextureData& t, const unsigned char* p, int c) {
  const double v = raw_component(t, p, c);
  if (t.read_mode != 1 || t.channel_kind == 2 || t.channel_bits > 16) return static_cast<float>(v);
  if (t.channel_kind == 1) return static_cast<float>(v) / static_cast<float>((1 << t.channel_bits) - 1);
  const float s = static_cast<float>(v) / static_cast<float>((1 << (t.channel_bits - 1)) - 1);
  return s < -1.0f ? -1.0f : s;
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
inline long long floor_index(float x) {
  if (!(x == x)) return 0;
  const float f = floorf(x);
  if (f < -1e15f) return -1000000000000000LL;
  if (f > 1e15f) return 1000000000000000LL;
  return static_cast<long long>(f);
}

// frac in [0, 1) to the nearest multiple of 1/256, ties up: the GPU's 9-bit weight.
inline float quantize_weight(float frac) {
  const float scaled = frac * 256.0f, whole = floorf(scaled);
  return (scaled - whole >= 0.5f ? whole + 1.0f : whole) / 256.0f;
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

// The filtered value of every component at coordinates xs (Note [Host texture fetches]).
inline void sample(const TextureData& t, const float* xs, int layer, float* out) {
  long long lo[3] = {0, 0, 0};
  float alpha[3] = {0, 0, 0};
  const bool linear = t.filter_mode == 1;
  for (int d = 0; d < t.dims; ++d) {
    float x = t.normalized_coords ? xs[d] * static_cast<float>(t.extent[d]) : xs[d];
    if (linear) {
      x -= 0.5f;
      lo[d] = floor_index(x);
      alpha[d] = quantize_weight(x - floorf(x));
    } else {
      lo[d] = floor_index(x);
    }
  }
  const unsigned long long lay = layer_index(t, layer);
  const int corners = linear ? 1 << t.dims : 1;
  for (int c = 0; c < 4; ++c) out[c] = 0.0f;
  for (int k = 0; k < corners; ++k) {
    float w = 1.0f;
    long long idx[3] = {0, 0, 0};
    bool border = false;
    for (int d = 0; d < t.dims; ++d) {
      const bool upper = (k >> d) & 1;
      if (linear) w *= upper ? alpha[d] : 1.0f - alpha[d];
      idx[d] = address(lo[d] + upper, static_cast<long long>(t.extent[d]), t.address_mode[d], t.normalized_coords);
      border = border || idx[d] < 0;
    }
    const unsigned char* p = border ? nullptr : texel_address(t, idx, lay);
    for (int c = 0; c < t.channels; ++c) out[c] += w * (border ? t.border_color[c] : float_component(t, p, c));
  }
}

// The texel at coordinates xs, point sampled, as integers (element-type reads of integer data).
template <class C>
void sample_integer(const TextureData& t, const float* xs, int layer, C* out, int n) {
  long long idx[3] = {0, 0, 0};
  bool border = false;
  for (int d = 0; d < t.dims; ++d) {
    const float x = t.normalized_coords ? xs[d] * static_cast<float>(t.extent[d]) : xs[d];
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
