// kiln::matmul::gemm_tile: kiln's own batched matrix product, one output
// tile of BM x BN a block (arraycore/matmul.h launches it; the cuda backend
// takes cuBLAS instead for floats where it can, Note [Matmul paths]).
//
//   struct Ops {                       // generated per dtype (arraycore/matmul.cpp)
//     typedef float T;                 // element type of A, B and C
//     typedef float Acc;               // what a product is summed in
//     static __device__ Acc load(T v);          // element -> accumulator
//     static __device__ Acc zero();
//     static __device__ void mac(Acc& s, Acc a, Acc b);   // s += a * b
//     static __device__ T store(Acc s);         // accumulator -> element
//   };
//   kiln::matmul::gemm_tile<Ops, 64, 64, 16, 4, 4>(a, b, c, m, n, k, strides...);
//
// Note [Matmul tile]
// A block of (BM / TM) * (BN / TN) threads computes the BM x BN tile of C at
// (blockIdx.y * BM, blockIdx.x * BN) of matrix blockIdx.z of the batch; each
// thread owns TM x TN outputs spread TY = BM / TM rows and TX = BN / TN
// columns apart (neighbouring threads read neighbouring shared words). K
// advances BK at a time: the block stages A's BM x BK and B's BK x BN
// panels in shared memory, already converted to Acc (zero past the edges),
// then every thread does its TM x TN multiply-adds per k. Operands are
// addressed by byte strides (any layout: transposed, strided, negative,
// broadcast with stride 0). Every output is the sum of its k products in k
// order, in Acc: float for float16 (as NumPy), the unsigned type of the
// integer's width or wider for integers, so overflow wraps modulo 2^bits
// exactly as NumPy's integer matmul does and no signed overflow is ever
// undefined; OR of ANDs for bool.
#pragma once

namespace kiln {
namespace matmul {

template <class Ops, int BM, int BN, int BK, int TM, int TN>
__device__ void gemm_tile(const char* a, const char* b, char* c, long long m, long long n, long long k,
                          long long a_rs, long long a_cs, long long b_rs, long long b_cs, long long c_rs,
                          long long c_cs, long long a_bs, long long b_bs, long long c_bs) {
  typedef typename Ops::T T;
  typedef typename Ops::Acc Acc;
  constexpr int TX = BN / TN, TY = BM / TM, NT = TX * TY;
  __shared__ Acc sa[BK][BM + 1];   // + 1: the staging stores (a row's BK values, BM + 1 apart) hit distinct banks
  __shared__ Acc sb[BK][BN];
  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % TX, ty = tid / TX;
  const long long row0 = static_cast<long long>(blockIdx.y) * BM, col0 = static_cast<long long>(blockIdx.x) * BN;
  const long long z = static_cast<long long>(blockIdx.z);
  a += z * a_bs;
  b += z * b_bs;
  c += z * c_bs;
  Acc acc[TM][TN];
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) acc[i][j] = Ops::zero();
  for (long long k0 = 0; k0 < k; k0 += BK) {
    for (int e = tid; e < BM * BK; e += NT) {   // consecutive threads: consecutive k of a row
      const int r = e / BK, kk = e % BK;
      const long long row = row0 + r, col = k0 + kk;
      sa[kk][r] = (row < m && col < k) ? Ops::load(*reinterpret_cast<const T*>(a + row * a_rs + col * a_cs))
                                       : Ops::zero();
    }
    for (int e = tid; e < BK * BN; e += NT) {   // consecutive threads: consecutive columns of a row
      const int kk = e / BN, cc = e % BN;
      const long long row = k0 + kk, col = col0 + cc;
      sb[kk][cc] = (row < k && col < n) ? Ops::load(*reinterpret_cast<const T*>(b + row * b_rs + col * b_cs))
                                        : Ops::zero();
    }
    __syncthreads();
    for (int kk = 0; kk < BK; ++kk) {
      Acc av[TM], bv[TN];
      for (int i = 0; i < TM; ++i) av[i] = sa[kk][ty + i * TY];
      for (int j = 0; j < TN; ++j) bv[j] = sb[kk][tx + j * TX];
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) Ops::mac(acc[i][j], av[i], bv[j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < TM; ++i) {
    const long long row = row0 + ty + i * TY;
    if (row >= m) continue;
    for (int j = 0; j < TN; ++j) {
      const long long col = col0 + tx + j * TX;
      if (col < n) *reinterpret_cast<T*>(c + row * c_rs + col * c_cs) = Ops::store(acc[i][j]);
    }
  }
}

}  // namespace matmul
}  // namespace kiln
