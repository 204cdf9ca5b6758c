// Structured dtypes in kernels (Note [Record kernel types] in
// arraycore/record_dtype.h): an ElementwiseKernel's T of a structured array
// is kiln::record<itemsize, alignment, kiln::record_field<type, offset>...>.
//
//   static_assert(T::field_count == 2, "two fields");
//   out.at<1>() = -in.at<0>();          // fields by position
#pragma once

namespace kiln {

template <class T, long long Offset>
struct record_field {
  typedef T type;
  static constexpr long long offset = Offset;
};

template <int I, class F, class... Rest>
struct record_field_at : record_field_at<I - 1, Rest...> {};
template <class F, class... Rest>
struct record_field_at<0, F, Rest...> {
  typedef F field;
};

template <long long Size, long long Align, class... Fields>
struct alignas(Align) record {
  unsigned char bytes[Size];
  static constexpr int field_count = sizeof...(Fields);

  template <int I>
  __device__ __forceinline__ typename record_field_at<I, Fields...>::field::type& at() {
    typedef typename record_field_at<I, Fields...>::field F;
    return *reinterpret_cast<typename F::type*>(bytes + F::offset);
  }
  template <int I>
  __device__ __forceinline__ const typename record_field_at<I, Fields...>::field::type& at() const {
    typedef typename record_field_at<I, Fields...>::field F;
    return *reinterpret_cast<const typename F::type*>(bytes + F::offset);
  }
};

}  // namespace kiln
