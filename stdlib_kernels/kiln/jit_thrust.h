// What kernels using kiln.jit.thrust include (Note [kiln.jit.thrust] in
// transpiler/thrust.h): Thrust's algorithms as one thread runs them, over
// raw pointers, strided iterators (a row or column of an array), constant
// and counting iterators. The same code on every backend.
//
//   kiln::jit::StridedIter<int> first{bytes, 640}, last = first + 160;
//   kiln::jit::thr::sort(first, last);                     // thrust::sort(thrust::seq, first, last)
//   long long n = kiln::jit::thr::count(first, last, 3);  // thrust::count
#pragma once

#include "kiln/jit.h"

namespace kiln {
namespace jit {

// An element every `stride` bytes: a 1-d view of any layout.
template <class T>
struct StridedIter {
  char* p;
  long long stride;
  KILN_JIT_FN T& operator*() const { return *reinterpret_cast<T*>(p); }
  KILN_JIT_FN T& operator[](long long n) const { return *reinterpret_cast<T*>(p + n * stride); }
  KILN_JIT_FN StridedIter operator+(long long n) const { return StridedIter{p + n * stride, stride}; }
  KILN_JIT_FN StridedIter operator-(long long n) const { return StridedIter{p - n * stride, stride}; }
  KILN_JIT_FN long long operator-(const StridedIter& o) const { return stride ? (p - o.p) / stride : 0; }
  KILN_JIT_FN StridedIter& operator++() { p += stride; return *this; }
  KILN_JIT_FN StridedIter& operator--() { p -= stride; return *this; }
  KILN_JIT_FN bool operator==(const StridedIter& o) const { return p == o.p; }
  KILN_JIT_FN bool operator!=(const StridedIter& o) const { return p != o.p; }
};

// thrust::make_constant_iterator(v) and make_counting_iterator(v): read-only.
template <class T>
struct ConstantIter {
  T v;
  long long i;
  KILN_JIT_FN T operator*() const { return v; }
  KILN_JIT_FN T operator[](long long) const { return v; }
  KILN_JIT_FN ConstantIter operator+(long long n) const { return ConstantIter{v, i + n}; }
  KILN_JIT_FN ConstantIter operator-(long long n) const { return ConstantIter{v, i - n}; }
  KILN_JIT_FN long long operator-(const ConstantIter& o) const { return i - o.i; }
  KILN_JIT_FN ConstantIter& operator++() { ++i; return *this; }
  KILN_JIT_FN bool operator==(const ConstantIter& o) const { return i == o.i; }
  KILN_JIT_FN bool operator!=(const ConstantIter& o) const { return i != o.i; }
};
template <class T>
struct CountingIter {
  T v;
  KILN_JIT_FN T operator*() const { return v; }
  KILN_JIT_FN T operator[](long long n) const { return static_cast<T>(v + n); }
  KILN_JIT_FN CountingIter operator+(long long n) const { return CountingIter{static_cast<T>(v + n)}; }
  KILN_JIT_FN CountingIter operator-(long long n) const { return CountingIter{static_cast<T>(v - n)}; }
  KILN_JIT_FN long long operator-(const CountingIter& o) const { return static_cast<long long>(v) - static_cast<long long>(o.v); }
  KILN_JIT_FN CountingIter& operator++() { ++v; return *this; }
  KILN_JIT_FN bool operator==(const CountingIter& o) const { return v == o.v; }
  KILN_JIT_FN bool operator!=(const CountingIter& o) const { return v != o.v; }
};

template <class T> KILN_JIT_FN StridedIter<T> strided_begin(T* data, long long stride) {
  return StridedIter<T>{reinterpret_cast<char*>(data), stride};
}

namespace thr {

template <class It> struct Value;
template <class T> struct Value<T*> { typedef T type; };
template <class T> struct Value<StridedIter<T>> { typedef T type; };
template <class T> struct Value<ConstantIter<T>> { typedef T type; };
template <class T> struct Value<CountingIter<T>> { typedef T type; };

template <class T> KILN_JIT_FN void swap_values(T& a, T& b) {
  T t = a;
  a = b;
  b = t;
}

// ---- queries ----
template <class It, class V> KILN_JIT_FN long long count(It first, It last, V v) {
  long long n = 0;
  for (; first != last; ++first) n += (*first == v) ? 1 : 0;
  return n;
}
template <class It, class V> KILN_JIT_FN It find(It first, It last, V v) {
  for (; first != last; ++first)
    if (*first == v) break;
  return first;
}
template <class It1, class It2> KILN_JIT_FN bool equal(It1 first, It1 last, It2 other) {
  for (; first != last; ++first, ++other)
    if (!(*first == *other)) return false;
  return true;
}
template <class It1, class It2> KILN_JIT_FN Tuple2<It1, It2> mismatch(It1 first, It1 last, It2 other) {
  for (; first != last; ++first, ++other)
    if (!(*first == *other)) break;
  return Tuple2<It1, It2>{first, other};
}
template <class It> KILN_JIT_FN It is_sorted_until(It first, It last) {
  if (first == last) return last;
  It next = first + 1;
  for (; next != last; ++first, ++next)
    if (*next < *first) return next;
  return last;
}
template <class It> KILN_JIT_FN bool is_sorted(It first, It last) { return is_sorted_until(first, last) == last; }
template <class It, class V> KILN_JIT_FN V reduce(It first, It last, V init) {
  for (; first != last; ++first) init = static_cast<V>(init + *first);
  return init;
}
template <class It> KILN_JIT_FN typename Value<It>::type reduce(It first, It last) {
  return reduce(first, last, static_cast<typename Value<It>::type>(0));
}
template <class It1, class It2, class V> KILN_JIT_FN V inner_product(It1 first, It1 last, It2 other, V init) {
  for (; first != last; ++first, ++other) init = static_cast<V>(init + *first * *other);
  return init;
}

// ---- binary searches over sorted ranges ----
// The first element not below v (Upper false) or above v (Upper true), by operator< as Thrust compares.
template <bool Upper, class It, class V> KILN_JIT_FN It bisect(It first, It last, V v) {
  long long n = last - first;
  while (n > 0) {
    long long half = n / 2;
    It mid = first + half;
    if (Upper ? !(v < *mid) : *mid < v) {
      first = mid + 1;
      n -= half + 1;
    } else {
      n = half;
    }
  }
  return first;
}
template <class It, class V> KILN_JIT_FN It lower_bound(It first, It last, V v) { return bisect<false>(first, last, v); }
template <class It, class V> KILN_JIT_FN It upper_bound(It first, It last, V v) { return bisect<true>(first, last, v); }
template <class It, class V> KILN_JIT_FN bool binary_search(It first, It last, V v) {
  It i = lower_bound(first, last, v);
  return i != last && !(v < *i);
}
template <class It, class V> KILN_JIT_FN Tuple2<It, It> equal_range(It first, It last, V v) {
  return Tuple2<It, It>{lower_bound(first, last, v), upper_bound(first, last, v)};
}
// The vector forms: one search per value, the answer written to out.
#define KILN_JIT_THRUST_SEARCHES(NAME)                                                    \
  template <class It, class Vs, class Out>                                                \
  KILN_JIT_FN Out NAME(It first, It last, Vs vfirst, Vs vlast, Out out) {                 \
    for (; vfirst != vlast; ++vfirst, ++out) *out = NAME##_one(first, last, *vfirst);     \
    return out;                                                                           \
  }
template <class It, class V> KILN_JIT_FN long long lower_bound_one(It first, It last, V v) { return lower_bound(first, last, v) - first; }
template <class It, class V> KILN_JIT_FN long long upper_bound_one(It first, It last, V v) { return upper_bound(first, last, v) - first; }
template <class It, class V> KILN_JIT_FN bool binary_search_one(It first, It last, V v) { return binary_search(first, last, v); }
KILN_JIT_THRUST_SEARCHES(lower_bound)
KILN_JIT_THRUST_SEARCHES(upper_bound)
KILN_JIT_THRUST_SEARCHES(binary_search)
#undef KILN_JIT_THRUST_SEARCHES

// ---- filling and copying ----
template <class It, class V> KILN_JIT_FN void fill(It first, It last, V v) {
  for (; first != last; ++first) *first = v;
}
template <class It> KILN_JIT_FN void sequence(It first, It last) {
  typedef typename Value<It>::type T;
  for (T v = T(0); first != last; ++first, v = static_cast<T>(v + T(1))) *first = v;
}
template <class It, class V> KILN_JIT_FN void sequence(It first, It last, V init) {
  for (; first != last; ++first, init = static_cast<V>(init + V(1))) *first = init;
}
template <class It, class V, class S> KILN_JIT_FN void sequence(It first, It last, V init, S step) {
  for (long long k = 0; first != last; ++first, ++k) *first = static_cast<V>(init + k * step);
}
template <class It, class Out> KILN_JIT_FN Out copy(It first, It last, Out out) {
  for (; first != last; ++first, ++out) *out = *first;
  return out;
}
template <class It, class V, class W> KILN_JIT_FN void replace(It first, It last, V old_value, W new_value) {
  for (; first != last; ++first)
    if (*first == old_value) *first = new_value;
}
template <class It, class Out, class V, class W>
KILN_JIT_FN Out replace_copy(It first, It last, Out out, V old_value, W new_value) {
  for (; first != last; ++first, ++out) {
    if (*first == old_value) *out = new_value;
    else *out = *first;
  }
  return out;
}
template <class It, class V> KILN_JIT_FN It remove(It first, It last, V v) {
  It out = first;
  for (; first != last; ++first)
    if (!(*first == v)) {
      *out = *first;
      ++out;
    }
  return out;
}
template <class It, class Out, class V> KILN_JIT_FN Out remove_copy(It first, It last, Out out, V v) {
  for (; first != last; ++first)
    if (!(*first == v)) {
      *out = *first;
      ++out;
    }
  return out;
}
template <class It> KILN_JIT_FN void reverse(It first, It last) {
  long long n = last - first;
  for (long long i = 0; i < n / 2; ++i) swap_values(first[i], first[n - 1 - i]);
}
template <class It, class Out> KILN_JIT_FN Out reverse_copy(It first, It last, Out out) {
  long long n = last - first;
  for (long long i = 0; i < n; ++i, ++out) *out = first[n - 1 - i];
  return out;
}
template <class It1, class It2> KILN_JIT_FN It2 swap_ranges(It1 first, It1 last, It2 other) {
  for (; first != last; ++first, ++other) swap_values(*first, *other);
  return other;
}
template <class Map, class In, class Out> KILN_JIT_FN Out gather(Map first, Map last, In input, Out out) {
  for (; first != last; ++first, ++out) *out = input[*first];
  return out;
}
template <class In, class Map, class Out> KILN_JIT_FN void scatter(In first, In last, Map map, Out out) {
  for (; first != last; ++first, ++map) out[*map] = *first;
}
template <class It> KILN_JIT_FN It unique(It first, It last) {
  if (first == last) return last;
  It out = first;
  for (It i = first + 1; i != last; ++i)
    if (!(*i == *out)) {
      ++out;
      *out = *i;
    }
  return out + 1;
}
template <class K, class V> KILN_JIT_FN Tuple2<K, V> unique_by_key(K first, K last, V values) {
  if (first == last) return Tuple2<K, V>{last, values};
  K out = first;
  V vout = values;
  V vi = values + 1;
  for (K i = first + 1; i != last; ++i, ++vi)
    if (!(*i == *out)) {
      ++out;
      ++vout;
      *out = *i;
      *vout = *vi;
    }
  return Tuple2<K, V>{out + 1, vout + 1};
}

// ---- scans ----
template <class It, class Out> KILN_JIT_FN Out adjacent_difference(It first, It last, Out out) {
  if (first == last) return out;
  typename Value<It>::type prev = *first;
  *out = prev;
  for (++first, ++out; first != last; ++first, ++out) {
    typename Value<It>::type cur = *first;
    *out = static_cast<typename Value<It>::type>(cur - prev);
    prev = cur;
  }
  return out;
}
template <class It, class Out> KILN_JIT_FN Out inclusive_scan(It first, It last, Out out) {
  if (first == last) return out;
  typename Value<It>::type acc = *first;
  for (*out = acc, ++first, ++out; first != last; ++first, ++out) *out = acc = static_cast<typename Value<It>::type>(acc + *first);
  return out;
}
template <class It, class Out, class V> KILN_JIT_FN Out exclusive_scan(It first, It last, Out out, V init) {
  V acc = init;
  for (; first != last; ++first, ++out) {
    V next = static_cast<V>(acc + *first);
    *out = acc;
    acc = next;
  }
  return out;
}
template <class It, class Out> KILN_JIT_FN Out exclusive_scan(It first, It last, Out out) {
  return exclusive_scan(first, last, out, static_cast<typename Value<It>::type>(0));
}
template <class K, class It, class Out> KILN_JIT_FN Out inclusive_scan_by_key(K first, K last, It values, Out out) {
  typename Value<It>::type acc = typename Value<It>::type(0);
  for (K k = first; k != last; ++k, ++values, ++out) {
    acc = (k == first || !(*k == *(k - 1))) ? *values : static_cast<typename Value<It>::type>(acc + *values);
    *out = acc;
  }
  return out;
}
template <class K, class It, class Out, class V> KILN_JIT_FN Out exclusive_scan_by_key(K first, K last, It values, Out out, V init) {
  V acc = init;
  for (K k = first; k != last; ++k, ++values, ++out) {
    if (k != first && !(*k == *(k - 1))) acc = init;
    V next = static_cast<V>(acc + *values);
    *out = acc;
    acc = next;
  }
  return out;
}
template <class K, class It, class Out> KILN_JIT_FN Out exclusive_scan_by_key(K first, K last, It values, Out out) {
  return exclusive_scan_by_key(first, last, values, out, static_cast<typename Value<It>::type>(0));
}
template <class K, class V, class KO, class VO>
KILN_JIT_FN Tuple2<KO, VO> reduce_by_key(K first, K last, V values, KO kout, VO vout) {
  while (first != last) {
    typename Value<K>::type key = *first;
    typename Value<V>::type acc = *values;
    for (++first, ++values; first != last && *first == key; ++first, ++values)
      acc = static_cast<typename Value<V>::type>(acc + *values);
    *kout = key;
    *vout = acc;
    ++kout;
    ++vout;
  }
  return Tuple2<KO, VO>{kout, vout};
}

// ---- sorting: heap sort (in place, O(n log n)); the stable sorts are a
// binary insertion sort (in place, O(n^2) moves) ----
// No values: what sorts and set operations without values carry along.
struct Discard {
  KILN_JIT_FN Discard& operator*() { return *this; }
  KILN_JIT_FN Discard& operator++() { return *this; }
  KILN_JIT_FN Discard operator+(long long) const { return *this; }
  template <class T> KILN_JIT_FN Discard& operator=(const T&) { return *this; }
  template <class T> KILN_JIT_FN operator T() const { return T(); }
};
template <class V> KILN_JIT_FN void swap_at(V v, long long i, long long j) { swap_values(v[i], v[j]); }
KILN_JIT_FN void swap_at(Discard, long long, long long) {}
template <class K, class V> KILN_JIT_FN void sift_down(K keys, V values, long long root, long long n) {
  while (2 * root + 1 < n) {
    long long child = 2 * root + 1;
    if (child + 1 < n && keys[child] < keys[child + 1]) ++child;
    if (!(keys[root] < keys[child])) return;
    swap_values(keys[root], keys[child]);
    swap_at(values, root, child);
    root = child;
  }
}
template <class K, class V> KILN_JIT_FN void heap_sort(K keys, V values, long long n) {
  for (long long i = n / 2 - 1; i >= 0; --i) sift_down(keys, values, i, n);
  for (long long end = n - 1; end > 0; --end) {
    swap_values(keys[0], keys[end]);
    swap_at(values, 0, end);
    sift_down(keys, values, 0, end);
  }
}
template <class K, class V> KILN_JIT_FN void insertion_sort(K keys, V values, long long n) {
  for (long long i = 1; i < n; ++i) {
    long long lo = 0, hi = i;
    while (lo < hi) {   // the first element greater than keys[i]: equal keys keep their order
      long long mid = (lo + hi) / 2;
      if (keys[i] < keys[mid]) hi = mid;
      else lo = mid + 1;
    }
    for (long long j = i; j > lo; --j) {
      swap_values(keys[j], keys[j - 1]);
      swap_at(values, j, j - 1);
    }
  }
}
template <class It> KILN_JIT_FN void sort(It first, It last) { heap_sort(first, Discard{}, last - first); }
template <class K, class V> KILN_JIT_FN void sort_by_key(K first, K last, V values) { heap_sort(first, values, last - first); }
template <class It> KILN_JIT_FN void stable_sort(It first, It last) { insertion_sort(first, Discard{}, last - first); }
template <class K, class V> KILN_JIT_FN void stable_sort_by_key(K first, K last, V values) {
  insertion_sort(first, values, last - first);
}

// ---- set operations over sorted ranges (Thrust's: multiset semantics) ----
// kind: 0 union, 1 intersection, 2 difference, 3 symmetric difference.
// Values ride along when vout is given: from the first range where the key
// comes from it, from the second otherwise.
template <int kind, class A, class B, class AV, class BV, class O, class OV>
KILN_JIT_FN Tuple2<O, OV> set_operation(A a, A alast, B b, B blast, AV av, BV bv, O out, OV vout, bool values) {
  auto emit_a = [&]() { *out = *a; if (values) *vout = *av; ++out; ++vout; };
  auto emit_b = [&]() { *out = *b; if (values) *vout = *bv; ++out; ++vout; };
  while (a != alast && b != blast) {
    if (*a < *b) {
      if (kind == 0 || kind == 2 || kind == 3) emit_a();
      ++a; ++av;
    } else if (*b < *a) {
      if (kind == 0 || kind == 3) emit_b();
      ++b; ++bv;
    } else {
      if (kind == 0 || kind == 1) emit_a();
      ++a; ++av; ++b; ++bv;
    }
  }
  if (kind == 0 || kind == 2 || kind == 3)
    for (; a != alast; ++a, ++av) emit_a();
  if (kind == 0 || kind == 3)
    for (; b != blast; ++b, ++bv) emit_b();
  return Tuple2<O, OV>{out, vout};
}
#define KILN_JIT_THRUST_SET(NAME, KIND)                                                                      \
  template <class A, class B, class O> KILN_JIT_FN O NAME(A a, A alast, B b, B blast, O out) {               \
    return set_operation<KIND>(a, alast, b, blast, Discard{}, Discard{}, out, Discard{}, false).e0;          \
  }                                                                                                          \
  template <class A, class B, class AV, class BV, class O, class OV>                                         \
  KILN_JIT_FN Tuple2<O, OV> NAME##_by_key(A a, A alast, B b, B blast, AV av, BV bv, O out, OV vout) {        \
    return set_operation<KIND>(a, alast, b, blast, av, bv, out, vout, true);                                 \
  }
KILN_JIT_THRUST_SET(set_union, 0)
KILN_JIT_THRUST_SET(set_intersection, 1)
KILN_JIT_THRUST_SET(set_difference, 2)
KILN_JIT_THRUST_SET(set_symmetric_difference, 3)
#undef KILN_JIT_THRUST_SET
// set_intersection_by_key takes no second values (they are never output).
template <class A, class B, class AV, class O, class OV>
KILN_JIT_FN Tuple2<O, OV> set_intersection_by_key(A a, A alast, B b, B blast, AV av, O out, OV vout) {
  return set_operation<1>(a, alast, b, blast, av, Discard{}, out, vout, true);
}

}  // namespace thr
}  // namespace jit
}  // namespace kiln
