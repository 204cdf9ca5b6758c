"""kiln.cuda.texture: CUDA arrays, texture and surface objects, and the fetches
of RawKernels and ElementwiseKernels against NumPy fetches computed with the
rules an H200 follows (docs/texture.md; measured with tools/texture_probe.py):
point and linear filtering with the GPU's 9-bit weights, the four address
modes, normalized coordinates, read modes, 1-D/2-D/3-D, layered arrays,
linear and pitched memory, surfaces."""
import numpy
import pytest

import kiln
from kiln.cuda import runtime as rt
from kiln.cuda.texture import (ChannelFormatDescriptor, CUDAarray, ResourceDescriptor, SurfaceObject,
                               TextureDescriptor, TextureObject)

WRAP, CLAMP, MIRROR, BORDER = (rt.cudaAddressModeWrap, rt.cudaAddressModeClamp, rt.cudaAddressModeMirror,
                               rt.cudaAddressModeBorder)
POINT, LINEAR = rt.cudaFilterModePoint, rt.cudaFilterModeLinear
KINDS = {"i": rt.cudaChannelFormatKindSigned, "u": rt.cudaChannelFormatKindUnsigned, "f": rt.cudaChannelFormatKindFloat}

# One module for every test (one host compile): each kernel fetches at the coordinates it is given.
SOURCE = r'''
#define INDEX int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
extern "C" {
__global__ void fetch1(float* out, cudaTextureObject_t t, const float* x, int n) {
    INDEX out[i] = tex1D<float>(t, x[i]);
}
__global__ void fetch2(float* out, cudaTextureObject_t t, const float* x, const float* y, int n) {
    INDEX out[i] = tex2D<float>(t, x[i], y[i]);
}
__global__ void fetch3(float* out, cudaTextureObject_t t, const float* x, const float* y, const float* z, int n) {
    INDEX out[i] = tex3D<float>(t, x[i], y[i], z[i]);
}
__global__ void fetch2_rgba(float4* out, cudaTextureObject_t t, const float* x, const float* y, int n) {
    INDEX out[i] = tex2D<float4>(t, x[i], y[i]);
}
__global__ void fetch3_rgba(float4* out, cudaTextureObject_t t, const float* x, const float* y, const float* z,
                            int n) {
    INDEX out[i] = tex3D<float4>(t, x[i], y[i], z[i]);
}
__global__ void fetch2_int(int* out, cudaTextureObject_t t, const float* x, const float* y, int n) {
    INDEX out[i] = tex2D<int>(t, x[i], y[i]);
}
__global__ void fetch_linear(float* out, cudaTextureObject_t t, const int* x, int n) {
    INDEX out[i] = tex1Dfetch<float>(t, x[i]);
}
__global__ void fetch_layered(float* out, cudaTextureObject_t t, const float* x, const float* y, int layer, int n) {
    INDEX out[i] = tex2DLayered<float>(t, x[i], y[i], layer);
}
__global__ void fetch_layered1(float* out, cudaTextureObject_t t, const float* x, int layer, int n) {
    INDEX out[i] = tex1DLayered<float>(t, x[i], layer);
}
__global__ void surface_update(cudaSurfaceObject_t s, int w, int h, int d) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
    if (x >= w || y >= h || z >= d) return;
    if (d > 1) {
        float v = surf3Dread<float>(s, x * 4, y, z);
        surf3Dwrite(v * 2.0f + 1.0f, s, x * 4, y, z);
    } else if (h > 1) {
        float v = surf2Dread<float>(s, x * 4, y);
        surf2Dwrite(v * 2.0f + 1.0f, s, x * 4, y);
    } else {
        float v = surf1Dread<float>(s, x * 4);
        surf1Dwrite(v * 2.0f + 1.0f, s, x * 4);
    }
}
__global__ void surface_edges(float* out, cudaSurfaceObject_t s, int w) {
    out[0] = surf1Dread<float>(s, -4, cudaBoundaryModeZero);
    out[1] = surf1Dread<float>(s, w * 4, cudaBoundaryModeClamp);
    surf1Dwrite(5.0f, s, w * 4, cudaBoundaryModeZero);
    surf1Dwrite(7.0f, s, -4, cudaBoundaryModeClamp);
}
}
'''


@pytest.fixture(scope="module")
def module():
    return kiln.RawModule(code=SOURCE)


def launch(module, name, out, *args):
    n = out.shape[0]
    module.get_function(name)(((n + 63) // 64,), (64,), (out,) + args + (n,))
    return out.get()


def channel_format(dtype, channels=1):
    dtype = numpy.dtype(dtype)
    bits = [dtype.itemsize * 8 if c < channels else 0 for c in range(4)]
    return ChannelFormatDescriptor(*bits, KINDS[dtype.kind])


def make_texture(data, channels=1, *, modes=(CLAMP,) * 3, filter=POINT, normalized=False, read=0, border=None,
                 flags=0):
    """A CUDAarray with data's values ((depth,) (height,) width * channels) and a texture object over it."""
    dims = data.shape[:-1][::-1]
    arr = CUDAarray(channel_format(data.dtype, channels), data.shape[-1] // channels, *dims, flags=flags)
    arr.copy_from(data)
    res = ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr)
    desc = TextureDescriptor(modes, filter, read, normalizedCoords=int(normalized), borderColors=border)
    return TextureObject(res, desc)


# --- the reference: what an H200 returns (Note [Host texture fetches] in kiln/host_texture.h, docs/texture.md) ---
def address(i, n, mode, normalized):
    """Index i of an axis of n texels; -1 for the border."""
    if mode == WRAP and normalized:
        return i % n
    if mode == MIRROR and normalized:
        m = i % (2 * n)
        return numpy.where(m < n, m, 2 * n - 1 - m)
    if mode == BORDER:
        return numpy.where((i < 0) | (i >= n), -1, i)
    return numpy.clip(i, 0, n - 1)


def weight_product(p, q, up):
    """p * q / 256 to the nearest integer, ties up or down."""
    return (p * q + (128 if up else 127)) // 256


def corner_weight(A, B, C, bx, by, bz):
    """The GPU's weight out of 256 of corner (bx, by, bz) from the axes' 9-bit weights: not the product."""
    wz = C if bz else 256 - C
    wxz = weight_product(A, wz, True) if bx else weight_product(256 - A, wz, False)
    return weight_product(wxz, B if by else 256 - B, bx == by)


def round_to_half(v):
    """float64 v to half precision, ties away from zero (normal range)."""
    a = numpy.abs(v)
    ulp = numpy.exp2(numpy.maximum(numpy.floor(numpy.log2(numpy.where(a > 0, a, 1))), -14) - 10)
    return numpy.sign(v) * numpy.floor(a / ulp + 0.5) * ulp


def reference(texels, coords, *, modes=(CLAMP,) * 3, filter=POINT, normalized=False, border=0.0, fixed16=None):
    """tex{1,2,3}D of texels (axes z, y, x as stored) at coords (x, y, z arrays), float32. fixed16: the value of
    1.0 in the 16-bit fixed point that linear filtering of normalized-float integer reads works in (texels given
    in those units)."""
    texels = numpy.asarray(texels)
    if texels.ndim == 1:   # a 1-D array is read as 2-D of height 1 at y = 0
        texels, coords = texels[None], list(coords) + [numpy.zeros(len(coords[0]), numpy.float32)]
    nd = texels.ndim
    extent = texels.shape[::-1]
    linear = filter == LINEAR
    lows, weights = [], []
    for d in range(nd):
        x = numpy.asarray(coords[d], numpy.float32).astype(numpy.float64)
        if normalized:   # 21 fractional bits, then exactly scaled
            x = numpy.floor(x * 2.0 ** 21) / 2.0 ** 21 * extent[d]
        if linear:
            if modes[d] == CLAMP or (modes[d] != BORDER and not normalized):
                x = numpy.clip(x, 0.5, extent[d] - 0.5)
            x = x - 0.5
            weights.append(numpy.floor((x - numpy.floor(x)) * 256 + 0.5).astype(numpy.int64))
        lows.append(numpy.floor(x).astype(numpy.int64))
    if nd == 2:
        weights.append(0)
    out = numpy.zeros(len(coords[0]), numpy.float64)
    for corner in range(2 ** nd if linear else 1):
        bits = [(corner >> d) & 1 for d in range(3)]
        w = corner_weight(*weights, *bits) if linear else 256
        idx = [address(lows[d] + bits[d], extent[d], modes[d], normalized) for d in range(nd)]
        outside = numpy.any([i < 0 for i in idx], axis=0)
        values = texels[tuple(numpy.maximum(i, 0) for i in idx[::-1])].astype(numpy.float64)
        out += w * numpy.where(outside, border * (fixed16 or 1), values)
    out /= 256
    if fixed16 and linear:
        out = numpy.maximum(numpy.floor(out + 0.5) / fixed16, -1)
    elif fixed16:
        out = numpy.maximum(out / fixed16, -1)
    elif texels.dtype == numpy.float16:
        out = round_to_half(out)
    return out.astype(numpy.float32)


def coordinates(rng, n, extent, normalized, spread=1.0):
    """n coordinates over [-spread, 1 + spread) of the extent, whose fractions of a texel are (m + 1/4 or 3/4) / 256:
    exact in float32, never a tie of the 9-bit weight, never on a texel boundary."""
    whole = rng.integers(int(-spread * extent), int((1 + spread) * extent), n)
    frac = (rng.integers(0, 256, n) + rng.choice([0.25, 0.75], n)) / 256
    x = (whole + frac + 0.5).astype(numpy.float32)   # + 0.5: the same fractions for linear filtering
    return (x / numpy.float32(extent)).astype(numpy.float32) if normalized else x


def device(*arrays):
    return [kiln.asarray(a) for a in arrays]


# Wrap and mirror need normalized coordinates; extents are powers of two there so u * N is exact.
CASES_1D = [(CLAMP, POINT, False), (CLAMP, LINEAR, False), (BORDER, LINEAR, False), (BORDER, POINT, True),
            (WRAP, POINT, True), (WRAP, LINEAR, True), (MIRROR, POINT, True), (MIRROR, LINEAR, True),
            (CLAMP, LINEAR, True)]


@pytest.mark.parametrize("mode,filter,normalized", CASES_1D)
def test_tex1d(module, mode, filter, normalized):
    rng = numpy.random.default_rng(mode * 10 + filter)
    width = 16 if normalized else 37
    texels = rng.random(width, dtype=numpy.float32)
    tex = make_texture(texels, modes=(mode,) * 3, filter=filter, normalized=normalized, border=(0.25,))
    x = coordinates(rng, 300, width, normalized)
    got = launch(module, "fetch1", kiln.empty(300, numpy.float32), tex, *device(x))
    want = reference(texels, [x], modes=(mode,) * 3, filter=filter, normalized=normalized, border=0.25)
    numpy.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("modes,filter,normalized", [((CLAMP, BORDER), LINEAR, False), ((WRAP, MIRROR), LINEAR, True),
                                                     ((BORDER, CLAMP), POINT, False), ((MIRROR, WRAP), POINT, True)])
def test_tex2d(module, modes, filter, normalized):
    rng = numpy.random.default_rng(7)
    shape = (8, 32) if normalized else (13, 21)
    texels = rng.random(shape, dtype=numpy.float32)
    tex = make_texture(texels, modes=modes, filter=filter, normalized=normalized, border=(0.5,))
    x, y = coordinates(rng, 400, shape[1], normalized), coordinates(rng, 400, shape[0], normalized)
    got = launch(module, "fetch2", kiln.empty(400, numpy.float32), tex, *device(x, y))
    want = reference(texels, [x, y], modes=modes, filter=filter, normalized=normalized, border=0.5)
    numpy.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("modes,filter,normalized", [((CLAMP, CLAMP, BORDER), LINEAR, False),
                                                     ((WRAP, MIRROR, WRAP), LINEAR, True),
                                                     ((CLAMP, WRAP, MIRROR), POINT, True)])
def test_tex3d(module, modes, filter, normalized):
    rng = numpy.random.default_rng(11)
    shape = (4, 8, 16) if normalized else (5, 6, 7)
    texels = rng.random(shape, dtype=numpy.float32)
    tex = make_texture(texels, modes=modes, filter=filter, normalized=normalized)
    x, y, z = (coordinates(rng, 300, shape[2 - d], normalized) for d in range(3))
    got = launch(module, "fetch3", kiln.empty(300, numpy.float32), tex, *device(x, y, z))
    want = reference(texels, [x, y, z], modes=modes, filter=filter, normalized=normalized)
    numpy.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_linear_filtering_keeps_nine_bits(module):
    # Two texels 1 and 2 with normalized coordinates: u = 0.3 is 0.1 of the way from texel 0 to 1, which the
    # 9-bit weight makes 26/256 (the value a GPU returns), not 0.1 (float arithmetic) nor 25/256 (truncation).
    tex = make_texture(numpy.array([1, 2], numpy.float32), filter=LINEAR, normalized=True)
    u = numpy.array([0.3, 0.35, 0.4, 0.45, 0.5, 0.1, 0.9], numpy.float32)
    got = launch(module, "fetch1", kiln.empty(7, numpy.float32), tex, *device(u))
    numpy.testing.assert_array_equal(got, [1.1015625, 1.19921875, 1.30078125, 1.3984375, 1.5, 1.0, 2.0])


def test_fetches_an_h200_returned(module):
    # Values an H200 returned (tools/texture_probe.py), where a fetch is not the guide's formula with exact weights.
    # Corner weights: a 2 x 2 (x 2) float4 texture whose channel c is 1 at corner c returns the corners' weights,
    # for 9-bit weights (A, B[, C]) / 256 along x, y (, z): rounded to 1/256 by the GPU's rule, not the products.
    hot = numpy.zeros((2, 2, 4), numpy.float32)
    for c in range(4):
        hot[c >> 1, c & 1, c] = 1
    tex = make_texture(hot.reshape(2, 8), 4, filter=LINEAR)
    ab = numpy.array([(32, 4), (96, 4), (1, 128), (255, 129), (100, 200), (3, 5)], numpy.float32) / 256 + 0.5
    got = launch(module, "fetch2_rgba", kiln.empty((6, 4), numpy.float32), tex, *device(ab[:, 0], ab[:, 1]))
    numpy.testing.assert_array_equal(got * 256, [[221, 31, 3, 1], [158, 94, 2, 2], [128, 0, 127, 1], [0, 127, 1, 128],
                                                 [34, 22, 122, 78], [248, 3, 5, 0]])
    abc = numpy.array([(8, 8, 8), (8, 8, 16), (136, 72, 200)], numpy.float32) / 256 + 0.5
    corners = []
    for half in range(2):   # corners 0-3, then 4-7 (bit 0: x, 1: y, 2: z)
        hot = numpy.zeros((2, 2, 2, 4), numpy.float32)
        for c in range(4):
            k = c + 4 * half
            hot[k >> 2, (k >> 1) & 1, k & 1, c] = 1
        tex = make_texture(hot.reshape(2, 2, 8), 4, filter=LINEAR)
        corners.append(launch(module, "fetch3_rgba", kiln.empty((3, 4), numpy.float32), tex, *device(*abc.T)))
    numpy.testing.assert_array_equal(numpy.concatenate(corners, axis=1) * 256, [[233, 8, 7, 0, 8, 0, 0, 0],
                                                                                [225, 8, 7, 0, 15, 1, 0, 0],
                                                                                [19, 22, 7, 8, 68, 76, 26, 30]])
    # A 1-D array is read as 2-D of height 1 at y = 0: border on y makes row -1 the border colour (half the fetch).
    x = numpy.array([0.5 + 1 / 256, 1.0, 2.5], numpy.float32)
    for modes, want in [((BORDER,) * 3, [161 / 256, 0.875, 0.25]), ((BORDER, CLAMP, CLAMP), [257 / 256, 1.5, 0.25])]:
        tex = make_texture(numpy.array([1, 2], numpy.float32), modes=modes, filter=LINEAR, border=(0.25,))
        numpy.testing.assert_array_equal(launch(module, "fetch1", kiln.empty(3, numpy.float32), tex, *device(x)), want)
    # A 1-D layered array is not: the second layer of (1, 2), (1, 2) filters as 1-D with border on every axis.
    arr = CUDAarray(channel_format(numpy.float32), 2, 0, 2, flags=rt.cudaArrayLayered)
    arr.copy_from(numpy.array([[1, 2], [1, 2]], numpy.float32))
    tex = TextureObject(ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr),
                        TextureDescriptor((BORDER,) * 3, LINEAR, 0, borderColors=(0.25,)))
    got = launch(module, "fetch_layered1", kiln.empty(3, numpy.float32), tex, *device(x), 1)
    numpy.testing.assert_array_equal(got, [257 / 256, 1.5, 0.25])
    # Normalized coordinates keep 21 fractional bits: u * 37 in float would round these the other way.
    tex = make_texture(numpy.arange(37, dtype=numpy.float32), filter=LINEAR, normalized=True)
    u = numpy.array([0.9461044, 0.60140413, 0.16316515], numpy.float32)
    got = launch(module, "fetch1", kiln.empty(3, numpy.float32), tex, *device(u))
    numpy.testing.assert_array_equal(got, [34.50390625, 21.75, 5.53515625])


@pytest.mark.parametrize("dtype,read", [(numpy.uint8, 1), (numpy.int16, 1), (numpy.float16, 0)])
def test_four_channels_and_read_modes(module, dtype, read):
    # uchar4/short4 read as normalized floats and half4 read as floats, linear filtering, float4 results.
    rng = numpy.random.default_rng(3)
    if dtype == numpy.float16:
        # Filtered half data is rounded to half, which the GPU does a little differently when texels nearly cancel
        # (Note [Host texture fetches]): values under 1/8 keep its half ulps (2^-14 at most) under the tolerance,
        # while a wrong weight (1/256 of a texel difference) still exceeds it.
        texels = rng.uniform(-0.12, 0.12, (6, 10, 4)).astype(dtype)
        units, full, tol = texels, None, dict(rtol=1e-4, atol=1e-4)
    else:
        # Filtered in 16-bit fixed point: texels in units of 1/65535 (unsigned) or 1/32767 (signed); exact on a GPU.
        info = numpy.iinfo(dtype)
        texels = rng.integers(info.min, info.max, (6, 10, 4), endpoint=True, dtype=dtype)
        full = 65535 if info.min == 0 else 32767
        units, tol = texels.astype(numpy.float64) * (full / info.max), dict(rtol=1e-6, atol=1e-7)
    tex = make_texture(texels.reshape(6, 40), 4, filter=LINEAR, read=read)
    x, y = coordinates(rng, 200, 10, False), coordinates(rng, 200, 6, False)
    got = launch(module, "fetch2_rgba", kiln.empty((200, 4), numpy.float32), tex, *device(x, y))
    for c in range(4):
        want = reference(units[..., c], [x, y], filter=LINEAR, fixed16=full)
        numpy.testing.assert_allclose(got[:, c], want, **tol)


def test_integer_elements_read_as_integers(module):
    rng = numpy.random.default_rng(5)
    texels = rng.integers(-2**31, 2**31 - 1, (9, 12), dtype=numpy.int32)
    tex = make_texture(texels, modes=(BORDER, CLAMP))
    x, y = coordinates(rng, 200, 12, False), coordinates(rng, 200, 9, False)
    got = launch(module, "fetch2_int", kiln.empty(200, numpy.int32), tex, *device(x, y))
    xi, yi = numpy.floor(x).astype(int), numpy.clip(numpy.floor(y).astype(int), 0, 8)
    inside = (xi >= 0) & (xi < 12)
    want = numpy.where(inside, texels[yi, numpy.clip(xi, 0, 11)], 0)
    numpy.testing.assert_array_equal(got, want)


def test_linear_memory_tex1dfetch(module):
    data = kiln.arange(50, dtype=kiln.float32) * 0.5
    ch = channel_format(numpy.float32)
    res = ResourceDescriptor(rt.cudaResourceTypeLinear, arr=data, chDesc=ch, sizeInBytes=200)
    tex = TextureObject(res, TextureDescriptor())
    idx = numpy.array([0, 7, 49, 50, -1, 1000], numpy.int32)
    got = launch(module, "fetch_linear", kiln.empty(6, numpy.float32), tex, *device(idx))
    numpy.testing.assert_array_equal(got, [0, 3.5, 24.5, 0, 0, 0])   # out of range reads zero
    assert res.get_resource_desc() == {"resType": 2, "linear": {
        "devPtr": data.data.ptr, "desc": {"x": 32, "y": 0, "z": 0, "w": 0, "f": 2}, "sizeInBytes": 200}}


def test_pitch2d_memory(module):
    # 20 floats a row in rows of 32 (128 bytes, a multiple of every GPU's texture pitch alignment).
    rng = numpy.random.default_rng(9)
    rows = rng.random((12, 32), dtype=numpy.float32)
    res = ResourceDescriptor(rt.cudaResourceTypePitch2D, arr=kiln.asarray(rows), chDesc=channel_format(numpy.float32),
                             width=20, height=12, pitchInBytes=128)
    tex = TextureObject(res, TextureDescriptor((CLAMP, CLAMP), LINEAR))
    x, y = coordinates(rng, 300, 20, False), coordinates(rng, 300, 12, False)
    got = launch(module, "fetch2", kiln.empty(300, numpy.float32), tex, *device(x, y))
    numpy.testing.assert_allclose(got, reference(rows[:, :20], [x, y], filter=LINEAR), rtol=1e-6, atol=1e-7)


def test_layered_2d(module):
    rng = numpy.random.default_rng(13)
    texels = rng.random((3, 7, 9), dtype=numpy.float32)   # 3 layers of 7 x 9
    tex = make_texture(texels, filter=LINEAR, flags=rt.cudaArrayLayered)
    x, y = coordinates(rng, 100, 9, False), coordinates(rng, 100, 7, False)
    for layer in range(3):
        got = launch(module, "fetch_layered", kiln.empty(100, numpy.float32), tex, *device(x, y), layer)
        numpy.testing.assert_allclose(got, reference(texels[layer], [x, y], filter=LINEAR), rtol=1e-6, atol=1e-7)


def test_elementwise_kernel_takes_texture_objects():
    texels = numpy.arange(24, dtype=numpy.float32).reshape(4, 6)
    tex = make_texture(texels)
    kernel = kiln.ElementwiseKernel("T x, U tex, int32 w", "T y",
                                    "y = x + tex2D<T>(tex, (float)(i % w) + 0.5f, (float)(i / w) + 0.5f)",
                                    "kiln_test_texture_add")
    x = kiln.full((4, 6), 100, kiln.float32)
    numpy.testing.assert_array_equal(kernel(x, tex, 6).get(), texels + 100)


def test_reduction_kernel_takes_texture_objects():
    # Sum of linear fetches along rows: each row of x holds coordinates into the same 1-D texture.
    rng = numpy.random.default_rng(17)
    texels = rng.random(32, dtype=numpy.float32)
    tex = make_texture(texels, filter=LINEAR)
    x = coordinates(rng, 60, 32, False).reshape(3, 20)
    kernel = kiln.ReductionKernel("T x, U tex", "T y", "tex1D<T>(tex, x)", "a + b", "y = a", "0",
                                  "kiln_test_texture_sum")
    want = reference(texels, [x.ravel()], filter=LINEAR).reshape(3, 20).sum(axis=1, dtype=numpy.float64)
    numpy.testing.assert_allclose(kernel(kiln.asarray(x), tex, axis=1).get(), want, rtol=1e-5)


@pytest.mark.parametrize("dims", [(16,), (8, 16), (4, 8, 16)])
def test_surface_read_write(module, dims):
    ch = channel_format(numpy.float32)
    shape = dims[::-1]
    arr = CUDAarray(ch, *dims, flags=rt.cudaArraySurfaceLoadStore)
    start = numpy.arange(numpy.prod(shape), dtype=numpy.float32).reshape(shape)
    arr.copy_from(start)
    surf = SurfaceObject(ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr))
    full = tuple(dims) + (1,) * (3 - len(dims))
    module.get_function("surface_update")((1, full[1], full[2]), (16,), (surf, *full))
    out = numpy.zeros(shape, numpy.float32)
    arr.copy_to(out)
    numpy.testing.assert_array_equal(out, start * 2 + 1)


def test_surface_boundary_modes(module):
    arr = CUDAarray(channel_format(numpy.float32), 8, flags=rt.cudaArraySurfaceLoadStore)
    arr.copy_from(numpy.arange(1, 9, dtype=numpy.float32))
    out = kiln.zeros(2, kiln.float32)
    surf = SurfaceObject(ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr))
    module.get_function("surface_edges")((1,), (1,), (out, surf, 8))
    numpy.testing.assert_array_equal(out.get(), [0, 8])   # zero outside; clamped to the last element
    back = kiln.zeros(8, kiln.float32)
    arr.copy_to(back)
    numpy.testing.assert_array_equal(back.get(), [7, 2, 3, 4, 5, 6, 7, 8])   # the clamped write, not the dropped one


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.int8, numpy.uint16, numpy.int32])
@pytest.mark.parametrize("dims", [(10,), (10, 3), (10, 3, 2)])
def test_cuda_array_round_trips(dtype, dims):
    rng = numpy.random.default_rng(1)
    channels = 2
    shape = dims[1:][::-1] + (dims[0] * channels,)
    host = rng.integers(-50, 50, shape).astype(dtype) if dtype != numpy.uint16 else rng.integers(0, 99, shape).astype(dtype)
    arr = CUDAarray(channel_format(dtype, channels), *dims)
    assert (arr.width, arr.height, arr.depth, arr.ndim) == (dims + (0, 0))[:3] + (len(dims),)
    strided = numpy.repeat(host, 2, axis=-1)[..., ::2]                # a non-contiguous NumPy source
    arr.copy_from(strided)
    back = kiln.zeros(shape, dtype)
    arr.copy_to(back)
    numpy.testing.assert_array_equal(back.get(), host)
    arr.copy_from(kiln.asarray(numpy.repeat(host, 2, axis=-1))[..., 1::2] + 1)   # non-contiguous kiln source
    out = numpy.empty(shape, dtype)
    arr.copy_to(out, kiln.cuda.get_current_stream())
    numpy.testing.assert_array_equal(out, host + 1)


def test_cuda_array_errors():
    ch = channel_format(numpy.float32)
    with pytest.raises(ValueError, match="width must be nonzero"):
        CUDAarray(ch, 0)
    with pytest.raises(ValueError, match="height must be nonzero"):
        CUDAarray(ch, 4, 0, 3)
    with pytest.raises(ValueError, match="3"):
        CUDAarray(ChannelFormatDescriptor(32, 32, 32, 0, rt.cudaChannelFormatKindFloat), 4)
    with pytest.raises(ValueError, match="64-bit"):
        CUDAarray(ChannelFormatDescriptor(64, 0, 0, 0, rt.cudaChannelFormatKindFloat), 4)
    arr = CUDAarray(ch, 4, 3)
    with pytest.raises(ValueError, match="shape mismatch"):
        arr.copy_from(numpy.zeros((4, 3), numpy.float32))
    with pytest.raises(ValueError, match="dtype mismatch"):
        arr.copy_from(numpy.zeros((3, 4), numpy.float64))
    with pytest.raises(ValueError, match="dtype mismatch"):
        arr.copy_from(kiln.zeros((3, 4), kiln.int32))
    with pytest.raises(ValueError, match="C-contiguous"):
        arr.copy_to(kiln.zeros((4, 3), kiln.float32).T)
    with pytest.raises(TypeError):
        arr.copy_from([[0.0] * 4] * 3)


def test_descriptor_checks_and_dicts(module):
    ch = ChannelFormatDescriptor(8, 8, 8, 8, rt.cudaChannelFormatKindUnsigned)
    assert ch.get_channel_format() == {"x": 8, "y": 8, "z": 8, "w": 8, "f": 1}
    arr = CUDAarray(ch, 4, 4)
    res = ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr)
    assert res.cuArr is arr and res.get_resource_desc() == {"resType": 0, "array": {"array": arr.ptr}}
    desc = TextureDescriptor((WRAP, MIRROR), LINEAR, 1, borderColors=(1, 2), normalizedCoords=1)
    assert desc.get_texture_desc() == {"addressMode": (WRAP, MIRROR, WRAP), "filterMode": LINEAR, "readMode": 1,
                                       "sRGB": 0, "borderColor": (1.0, 2.0, 0.0, 0.0), "normalizedCoords": 1,
                                       "maxAnisotropy": 0}
    tex = TextureObject(res, desc)
    assert tex.ResDesc is res and tex.TexDesc is desc and tex.ptr != 0
    with pytest.raises(ValueError, match="linear filtering"):   # uchar elements read as integers cannot be filtered
        TextureObject(res, TextureDescriptor((CLAMP,), LINEAR, 0))
    with pytest.raises(ValueError, match="cudaArraySurfaceLoadStore"):
        SurfaceObject(res)
    with pytest.raises(NotImplementedError):
        ResourceDescriptor(rt.cudaResourceTypeMipmappedArray)
    with pytest.raises(ValueError, match="cuArr"):
        ResourceDescriptor(rt.cudaResourceTypeArray)
    with pytest.raises(TypeError, match="64-bit handle"):   # a texture object is no float
        module.get_function("fetch1")((1,), (1,), (tex, tex, tex, 1))
