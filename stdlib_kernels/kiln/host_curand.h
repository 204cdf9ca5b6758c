// The cuRAND device API (<curand_kernel.h>) for the host backend, giving the
// numbers cuRAND gives on the GPU for the same calls: the XORWOW generator
// (curandState_t) and Philox4x32-10 (curandStatePhilox4_32_10_t), their
// curand_init, skipahead, skipahead_sequence, raw words and the uniform,
// normal and log-normal draws. kiln's <curand_kernel.h> includes it on the
// host; CUDA compilers get the toolkit's header instead.
//
//   curandState s;
//   curand_init(1234, i, 0, &s);        // seed, subsequence, offset
//   float u = curand_uniform(&s);       // (0, 1]
//   float g = curand_normal(&s);        // Box-Muller, the second of each pair cached
//
// Written from the published algorithms and cuRAND's documented behaviour,
// not from NVIDIA's code or tables:
// - XORWOW: Marsaglia, "Xorshift RNGs", J. Stat. Software 8(14), 2003: five
//   32-bit xorshift words v and a Weyl counter d += 362437; the output is
//   v[4] + d. cuRAND seeds it from the 64-bit seed's two halves (salted with
//   fixed constants, multiplied by odd constants, added to or xored with
//   Marsaglia's initial words) and then skips 2^67 draws per subsequence and
//   `offset` draws: Note [XORWOW jumps].
// - Philox4x32-10: Salmon et al., SC'11 (kiln/philox.h); the key is the seed,
//   the 128-bit counter's high half the subsequence (2^66 draws each) and its
//   low half offset / 4; each counter gives 4 words, drawn in order.
// - Conversions: a word x gives the float x * 2^-32 + 2^-33 in (0, 1]; two
//   words x, y the double (x ^ y << 21) * 2^-53 + 2^-54; normals are
//   Box-Muller (sqrt(-2 log u) times sin and cos of 2 pi v; the sine first).
// Integer words and uniforms are bit for bit cuRAND's; normals and
// log-normals are those of cuRAND's CPU generator, and differ from the GPU's
// in the last digits (cuRAND uses the fast __sincosf there for floats).
// MRG32k3a, Sobol, MTGP32, curand_poisson and curand_discrete are not here.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__HIPCC__)
#error "kiln/host_curand.h is for the host C++ compiler only"
#endif

#include <math.h>

#include "kiln/philox.h"

// ---- states, with cuRAND's layouts (48 and 64 bytes) so that arrays of
// states allocated by size work unchanged ----
struct curandStateXORWOW {
  unsigned int d, v[5];
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;

struct curandStatePhilox4_32_10 {
  uint4 ctr;
  uint4 output;
  uint2 key;
  unsigned int STATE;   // the next word of output to hand out
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

static_assert(sizeof(curandStateXORWOW_t) == 48, "curandState as cuRAND lays it out");
static_assert(sizeof(curandStatePhilox4_32_10_t) == 64, "curandStatePhilox4_32_10_t as cuRAND lays it out");

namespace kiln_curand {

// What a state's boxmuller_extra holds: the second normal of a pair, or the
// second log-normal (already exponentiated) of one.
constexpr int kExtraNormal = 1, kExtraLogNormal = 2;

// ---- XORWOW ----

constexpr unsigned kWeyl = 362437u;

// The xorshift part of one XORWOW step.
inline void xorshift_step(unsigned v[5]) {
  const unsigned t = v[0] ^ (v[0] >> 2);
  v[0] = v[1];
  v[1] = v[2];
  v[2] = v[3];
  v[3] = v[4];
  v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
}

// Note [XORWOW jumps]
// The xorshift words v (160 bits) move by a linear map M over GF(2), and the
// Weyl counter d by adding 362437: n steps are v <- M^n v and d += 362437 n
// (mod 2^32). curand_init skips 2^67 * subsequence + offset steps, so kiln
// keeps M^(2^k) for k < 64 (offsets) and 67 <= k < 131 (subsequences; d does
// not move, 362437 * 2^67 being 0 mod 2^32) and applies one per set bit of n.
// Each matrix is kept as 40 tables, one per 4-bit group of the input word
// bits (entry e of table g: the matrix applied to e << 4g), so applying one
// is 40 lookups. The table is built at the first curand_init or skipahead
// of a loaded module, by squaring M (whose columns are one step of each bit)
// 130 times: tens of milliseconds once, 1.7 MB. Squaring M 160 times gives M back
// (the xorshift's period is 2^160 - 1), which the tests check through the
// same construction in NumPy.
struct Gf2Matrix {
  unsigned table[40][16][5];

  // From the columns: col[b] is the matrix applied to bit b.
  void set_columns(const unsigned (*col)[5]) {
    for (int g = 0; g < 40; ++g) {
      for (int j = 0; j < 5; ++j) table[g][0][j] = 0;
      for (unsigned e = 1; e < 16; ++e)
        for (int j = 0; j < 5; ++j) table[g][e][j] = table[g][e & (e - 1)][j] ^ col[4 * g + __builtin_ctz(e)][j];
    }
  }
  const unsigned* column(int b) const { return table[b / 4][1u << (b % 4)]; }
};

inline void gf2_apply(const Gf2Matrix& m, const unsigned x[5], unsigned y[5]) {
  unsigned r[5] = {0, 0, 0, 0, 0};
  for (int g = 0; g < 40; ++g) {
    const unsigned* e = m.table[g][(x[g / 8] >> (4 * (g % 8))) & 15u];
    for (int j = 0; j < 5; ++j) r[j] ^= e[j];
  }
  for (int j = 0; j < 5; ++j) y[j] = r[j];
}

constexpr int kSubsequenceJump = 67;   // log2 of the draws one subsequence skips
struct XorwowJumps {
  Gf2Matrix power[kSubsequenceJump + 64];   // power[k] = M^(2^k)
  XorwowJumps() {
    unsigned col[160][5];
    for (int b = 0; b < 160; ++b) {
      for (int j = 0; j < 5; ++j) col[b][j] = 0;
      col[b][b / 32] = 1u << (b % 32);
      xorshift_step(col[b]);
    }
    power[0].set_columns(col);
    for (int k = 1; k < kSubsequenceJump + 64; ++k) {
      for (int b = 0; b < 160; ++b) gf2_apply(power[k - 1], power[k - 1].column(b), col[b]);
      power[k].set_columns(col);
    }
  }
};

inline const XorwowJumps& xorwow_jumps() {
  static const XorwowJumps jumps;
  return jumps;
}

// v <- M^(n * 2^shift) v (Note [XORWOW jumps]).
inline void xorwow_jump(unsigned v[5], unsigned long long n, int shift) {
  if (n == 0) return;
  const XorwowJumps& jumps = xorwow_jumps();
  for (int k = shift; n != 0; ++k, n >>= 1)
    if (n & 1) gf2_apply(jumps.power[k], v, v);
}

// ---- Philox4x32-10 ----

inline void philox_refill(curandStatePhilox4_32_10_t* s) {
  unsigned x[4] = {s->ctr.x, s->ctr.y, s->ctr.z, s->ctr.w};
  kiln::random::philox4x32_10(x, s->key.x, s->key.y);
  s->output = make_uint4(x[0], x[1], x[2], x[3]);
}

// counter += n. As cuRAND's: the carry out of the low 64 bits goes into the
// high half by one increment, and a carry that wraps n's high word is lost.
inline void philox_advance(curandStatePhilox4_32_10_t* s, unsigned long long n) {
  const unsigned lo = static_cast<unsigned>(n);
  unsigned hi = static_cast<unsigned>(n >> 32);
  s->ctr.x += lo;
  if (s->ctr.x < lo) ++hi;
  s->ctr.y += hi;
  if (s->ctr.y >= hi) return;
  if (++s->ctr.z != 0) return;
  ++s->ctr.w;
}

// The counter's high 64 bits += n: n subsequences.
inline void philox_advance_high(curandStatePhilox4_32_10_t* s, unsigned long long n) {
  const unsigned lo = static_cast<unsigned>(n);
  unsigned hi = static_cast<unsigned>(n >> 32);
  s->ctr.z += lo;
  if (s->ctr.z < lo) ++hi;
  s->ctr.w += hi;
}

// ---- conversions ----

inline float uniform(unsigned x) { return static_cast<float>(x) * 2.3283064365386963e-10f + 1.1641532182693481e-10f; }

// Two words as a 53-bit fraction: x ^ (y << 21), half a step above.
inline double uniform_double(unsigned x, unsigned y) {
  const unsigned long long z = static_cast<unsigned long long>(x) ^ (static_cast<unsigned long long>(y) << 21);
  return static_cast<double>(z) * 1.1102230246251565e-16 + 5.5511151231257827e-17;
}

inline float2 box_muller(unsigned x, unsigned y) {
  const float step = 6.2831855f * 2.3283064365386963e-10f;   // 2 pi / 2^32 in float, as cuRAND's
  const float radius = sqrtf(-2.0f * logf(uniform(x)));
  const float angle = fmaf(static_cast<float>(y), step, step * 0.5f);   // the GPU contracts it to one fma
  float sn, cs;
  sincosf(angle, &sn, &cs);
  return make_float2(sn * radius, cs * radius);
}

// sin(pi t) and cos(pi t) for t in [0, 2], reduced exactly to [0, 1/4] first.
inline void sincospi_reduced(double t, double* sn, double* cs) {
  double sign = 1.0;
  if (t > 1.0) {   // sin, cos of pi + a: both negated
    t -= 1.0;
    sign = -1.0;
  }
  const bool upper = t > 0.5;
  if (upper) t = 1.0 - t;                                     // sin(pi - a), -cos(pi - a)
  const bool swap = t > 0.25;
  if (swap) t = 0.5 - t;                                      // sin and cos exchange
  double s = sin(M_PI * t), c = cos(M_PI * t);
  if (swap) {
    const double tmp = s;
    s = c;
    c = tmp;
  }
  if (upper) c = -c;
  *sn = sign * s;
  *cs = sign * c;
}

inline double2 box_muller_double(unsigned x0, unsigned x1, unsigned y0, unsigned y1) {
  const double radius = sqrt(-2.0 * log(uniform_double(x0, x1)));
  const unsigned long long zy = static_cast<unsigned long long>(y0) ^ (static_cast<unsigned long long>(y1) << 21);
  const double turns = static_cast<double>(zy) * 2.2204460492503131e-16 + 1.1102230246251565e-16;   // in (0, 2)
  double sn, cs;
  sincospi_reduced(turns, &sn, &cs);
  return make_double2(sn * radius, cs * radius);
}

template <class State> inline float2 normal_pair(State* s);
template <class State> inline double2 normal_pair_double(State* s);

// One of a pair at a time: the second waits in the state for the next call.
template <class State> inline float normal(State* s) {
  if (s->boxmuller_flag == kExtraNormal) {
    s->boxmuller_flag = 0;
    return s->boxmuller_extra;
  }
  const float2 v = normal_pair(s);
  s->boxmuller_extra = v.y;
  s->boxmuller_flag = kExtraNormal;
  return v.x;
}

template <class State> inline double normal_double(State* s) {
  if (s->boxmuller_flag_double == kExtraNormal) {
    s->boxmuller_flag_double = 0;
    return s->boxmuller_extra_double;
  }
  const double2 v = normal_pair_double(s);
  s->boxmuller_extra_double = v.y;
  s->boxmuller_flag_double = kExtraNormal;
  return v.x;
}

template <class State> inline float log_normal(State* s, float mean, float stddev) {
  if (s->boxmuller_flag == kExtraLogNormal) {
    s->boxmuller_flag = 0;
    return s->boxmuller_extra;
  }
  const float2 v = normal_pair(s);
  s->boxmuller_extra = expf(fmaf(stddev, v.y, mean));
  s->boxmuller_flag = kExtraLogNormal;
  return expf(fmaf(stddev, v.x, mean));
}

template <class State> inline double log_normal_double(State* s, double mean, double stddev) {
  if (s->boxmuller_flag_double == kExtraLogNormal) {
    s->boxmuller_flag_double = 0;
    return s->boxmuller_extra_double;
  }
  const double2 v = normal_pair_double(s);
  s->boxmuller_extra_double = exp(fma(stddev, v.y, mean));
  s->boxmuller_flag_double = kExtraLogNormal;
  return exp(fma(stddev, v.x, mean));
}

inline void clear_extras(int* flag, int* flag_double, float* extra, double* extra_double) {
  *flag = 0;
  *flag_double = 0;
  *extra = 0.0f;
  *extra_double = 0.0;
}

}  // namespace kiln_curand

// ---- XORWOW: curandState_t ----

inline unsigned int curand(curandStateXORWOW_t* state) {
  kiln_curand::xorshift_step(state->v);
  state->d += kiln_curand::kWeyl;
  return state->v[4] + state->d;
}

inline void skipahead(unsigned long long n, curandStateXORWOW_t* state) {
  kiln_curand::xorwow_jump(state->v, n, 0);
  state->d += kiln_curand::kWeyl * static_cast<unsigned>(n);
}

inline void skipahead_sequence(unsigned long long n, curandStateXORWOW_t* state) {
  kiln_curand::xorwow_jump(state->v, n, kiln_curand::kSubsequenceJump);
}

inline void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                        curandStateXORWOW_t* state) {
  // cuRAND's seeding: each half of the seed salted, then multiplied by an odd
  // constant, mixed into Marsaglia's initial words.
  const unsigned t0 = 1099087573u * (static_cast<unsigned>(seed) ^ 0xaad26b49u);
  const unsigned t1 = 2591861531u * (static_cast<unsigned>(seed >> 32) ^ 0xf7dcefddu);
  state->d = 6615241u + t1 + t0;
  state->v[0] = 123456789u + t0;
  state->v[1] = 362436069u ^ t0;
  state->v[2] = 521288629u + t1;
  state->v[3] = 88675123u ^ t1;
  state->v[4] = 5783321u + t0;
  skipahead_sequence(subsequence, state);
  skipahead(offset, state);
  kiln_curand::clear_extras(&state->boxmuller_flag, &state->boxmuller_flag_double, &state->boxmuller_extra,
                            &state->boxmuller_extra_double);
}

// ---- Philox4x32-10: curandStatePhilox4_32_10_t ----

inline unsigned int curand(curandStatePhilox4_32_10_t* state) {
  const unsigned words[4] = {state->output.x, state->output.y, state->output.z, state->output.w};
  const unsigned r = words[state->STATE & 3];
  if (++state->STATE == 4) {
    state->STATE = 0;
    kiln_curand::philox_advance(state, 1);
    kiln_curand::philox_refill(state);
  }
  return r;
}

// The next 4 words (cuRAND's curand4: the same as 4 calls of curand).
inline uint4 curand4(curandStatePhilox4_32_10_t* state) {
  const unsigned x = curand(state), y = curand(state), z = curand(state), w = curand(state);
  return make_uint4(x, y, z, w);
}

inline void skipahead(unsigned long long n, curandStatePhilox4_32_10_t* state) {
  state->STATE += static_cast<unsigned>(n & 3);
  n /= 4;
  if (state->STATE > 3) {
    state->STATE -= 4;
    ++n;
  }
  kiln_curand::philox_advance(state, n);
  kiln_curand::philox_refill(state);
}

inline void skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10_t* state) {
  kiln_curand::philox_advance_high(state, n);
  kiln_curand::philox_refill(state);
}

inline void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                        curandStatePhilox4_32_10_t* state) {
  state->ctr = make_uint4(0, 0, 0, 0);
  state->key = make_uint2(static_cast<unsigned>(seed), static_cast<unsigned>(seed >> 32));
  state->STATE = 0;
  kiln_curand::clear_extras(&state->boxmuller_flag, &state->boxmuller_flag_double, &state->boxmuller_extra,
                            &state->boxmuller_extra_double);
  skipahead_sequence(subsequence, state);
  skipahead(offset, state);
}

// ---- draws, for both generators ----

namespace kiln_curand {
template <class State> inline float2 normal_pair(State* s) {
  const unsigned x = curand(s), y = curand(s);
  return box_muller(x, y);
}
template <class State> inline double2 normal_pair_double(State* s) {
  const unsigned x0 = curand(s), x1 = curand(s), y0 = curand(s), y1 = curand(s);
  return box_muller_double(x0, x1, y0, y1);
}
}  // namespace kiln_curand

inline float curand_uniform(curandStateXORWOW_t* state) { return kiln_curand::uniform(curand(state)); }
inline float curand_uniform(curandStatePhilox4_32_10_t* state) { return kiln_curand::uniform(curand(state)); }

// XORWOW's double takes two words; Philox's one (as cuRAND 10.4's: (x + 1) * 2^-32).
inline double curand_uniform_double(curandStateXORWOW_t* state) {
  const unsigned x = curand(state), y = curand(state);
  return kiln_curand::uniform_double(x, y);
}
inline double curand_uniform_double(curandStatePhilox4_32_10_t* state) {
  return static_cast<double>(curand(state)) * 2.3283064365386963e-10 + 2.3283064365386963e-10;
}

inline float4 curand_uniform4(curandStatePhilox4_32_10_t* state) {
  const uint4 w = curand4(state);
  return make_float4(kiln_curand::uniform(w.x), kiln_curand::uniform(w.y), kiln_curand::uniform(w.z),
                     kiln_curand::uniform(w.w));
}
inline double2 curand_uniform2_double(curandStatePhilox4_32_10_t* state) {
  const uint4 w = curand4(state);
  return make_double2(kiln_curand::uniform_double(w.x, w.y), kiln_curand::uniform_double(w.z, w.w));
}

inline float curand_normal(curandStateXORWOW_t* state) { return kiln_curand::normal(state); }
inline float curand_normal(curandStatePhilox4_32_10_t* state) { return kiln_curand::normal(state); }
inline float2 curand_normal2(curandStateXORWOW_t* state) { return kiln_curand::normal_pair(state); }
inline float2 curand_normal2(curandStatePhilox4_32_10_t* state) { return kiln_curand::normal_pair(state); }
inline float4 curand_normal4(curandStatePhilox4_32_10_t* state) {
  const float2 a = kiln_curand::normal_pair(state), b = kiln_curand::normal_pair(state);
  return make_float4(a.x, a.y, b.x, b.y);
}
inline double curand_normal_double(curandStateXORWOW_t* state) { return kiln_curand::normal_double(state); }
inline double curand_normal_double(curandStatePhilox4_32_10_t* state) { return kiln_curand::normal_double(state); }
inline double2 curand_normal2_double(curandStateXORWOW_t* state) { return kiln_curand::normal_pair_double(state); }
inline double2 curand_normal2_double(curandStatePhilox4_32_10_t* state) {
  return kiln_curand::normal_pair_double(state);
}

inline float curand_log_normal(curandStateXORWOW_t* state, float mean, float stddev) {
  return kiln_curand::log_normal(state, mean, stddev);
}
inline float curand_log_normal(curandStatePhilox4_32_10_t* state, float mean, float stddev) {
  return kiln_curand::log_normal(state, mean, stddev);
}
inline float2 curand_log_normal2(curandStateXORWOW_t* state, float mean, float stddev) {
  const float2 v = kiln_curand::normal_pair(state);
  return make_float2(expf(fmaf(stddev, v.x, mean)), expf(fmaf(stddev, v.y, mean)));
}
inline float2 curand_log_normal2(curandStatePhilox4_32_10_t* state, float mean, float stddev) {
  const float2 v = kiln_curand::normal_pair(state);
  return make_float2(expf(fmaf(stddev, v.x, mean)), expf(fmaf(stddev, v.y, mean)));
}
inline double curand_log_normal_double(curandStateXORWOW_t* state, double mean, double stddev) {
  return kiln_curand::log_normal_double(state, mean, stddev);
}
inline double curand_log_normal_double(curandStatePhilox4_32_10_t* state, double mean, double stddev) {
  return kiln_curand::log_normal_double(state, mean, stddev);
}
