"""<cupy/carray.cuh>'s CArray and CIndexer in ElementwiseKernel code, as CuPy's kernels use them."""
import numpy
import pytest

import kiln

# A preamble device function over a raw param typed CArray, and a CIndexer
# walking the raw array's shape.
TRANSPOSED_GATHER = kiln.ElementwiseKernel(
    'raw T x', 'T y',
    '''
    CIndexer<2> ind(x.shape());
    ind.set(i);
    ptrdiff_t idx[] = {ind.get()[0], ind.get()[1]};
    y = at(x, idx) + (T)ind.size() * 0 + first(x) * 0;
    ''',
    'test_cupy_carray_gather',
    preamble='''
    template <class T> __device__ T at(const CArray<T, 2>& a, const ptrdiff_t* idx) { return a[idx]; }
    template <class T> __device__ T first(const CArray<T, 2, true>& a) { return a[0]; }
    ''')


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "negative"])
def test_carray_and_cindexer(rng, layout):
    base = rng.integers(-100, 100, (4, 6)).astype(numpy.float32)
    x = {"contiguous": base, "transposed": base.T, "negative": base[::-1, ::-2]}[layout]
    got = TRANSPOSED_GATHER(kiln.asarray(x), size=x.size)
    numpy.testing.assert_array_equal(got.get(), x.ravel())
