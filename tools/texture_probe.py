"""Texture-fetch probe: what the GPU's texture unit returns, on dense coordinate sweeps, for the cases where
kiln's host emulation (stdlib_kernels/kiln/host_texture.h) and tests/python/kernels/test_texture.py disagreed
with an H200.

    KILN_BACKEND=cuda python tools/texture_probe.py            # through kiln.cuda.texture
    TEXPROBE_XP=cupy python tools/texture_probe.py             # the same through CuPy (the hardware's answer alone)

Saves ONE file, $OUT/texprobe.npz (or ./texprobe.npz): for each experiment NAME the texels (NAME.texels), the
coordinates (NAME.x/.y/.z) and the fetched values (NAME.got), plus a short summary on stdout. Runs in seconds.
"""
import os
import sys
import time

import numpy

XP = os.environ.get("TEXPROBE_XP", "kiln")
if XP == "cupy":
    import cupy as xp
else:
    import kiln as xp
rt = xp.cuda.runtime
T = xp.cuda.texture
WRAP, CLAMP, MIRROR, BORDER = (rt.cudaAddressModeWrap, rt.cudaAddressModeClamp, rt.cudaAddressModeMirror,
                               rt.cudaAddressModeBorder)
POINT, LINEAR = rt.cudaFilterModePoint, rt.cudaFilterModeLinear
LAYERED = getattr(rt, "cudaArrayLayered", 1)   # CuPy has no name for cudaArrayLayered
KINDS = {"i": rt.cudaChannelFormatKindSigned, "u": rt.cudaChannelFormatKindUnsigned, "f": rt.cudaChannelFormatKindFloat}

SOURCE = r'''
#define INDEX int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
extern "C" {
__global__ void fetch1(float4* out, cudaTextureObject_t t, const float* x, int n) {
    INDEX out[i] = tex1D<float4>(t, x[i]);
}
__global__ void fetch2(float4* out, cudaTextureObject_t t, const float* x, const float* y, int n) {
    INDEX out[i] = tex2D<float4>(t, x[i], y[i]);
}
__global__ void fetch3(float4* out, cudaTextureObject_t t, const float* x, const float* y, const float* z, int n) {
    INDEX out[i] = tex3D<float4>(t, x[i], y[i], z[i]);
}
__global__ void fetch1s(float* out, cudaTextureObject_t t, const float* x, int n) {
    INDEX out[i] = tex1D<float>(t, x[i]);
}
__global__ void fetch2s(float* out, cudaTextureObject_t t, const float* x, const float* y, int n) {
    INDEX out[i] = tex2D<float>(t, x[i], y[i]);
}
__global__ void fetch3s(float* out, cudaTextureObject_t t, const float* x, const float* y, const float* z, int n) {
    INDEX out[i] = tex3D<float>(t, x[i], y[i], z[i]);
}
__global__ void fetch_layered(float* out, cudaTextureObject_t t, const float* x, const float* y, int layer, int n) {
    INDEX out[i] = tex2DLayered<float>(t, x[i], y[i], layer);
}
__global__ void fetch_layered1(float* out, cudaTextureObject_t t, const float* x, int layer, int n) {
    INDEX out[i] = tex1DLayered<float>(t, x[i], layer);
}
}
'''
MODULE = xp.RawModule(code=SOURCE)
RESULTS = {}


def channel_format(dtype, channels=1):
    dtype = numpy.dtype(dtype)
    bits = [dtype.itemsize * 8 if c < channels else 0 for c in range(4)]
    return T.ChannelFormatDescriptor(*bits, KINDS[dtype.kind])


def texture(data, channels=1, *, modes=(CLAMP,) * 3, filter=LINEAR, normalized=False, read=0, border=None, flags=0):
    dims = data.shape[:-1][::-1]
    arr = T.CUDAarray(channel_format(data.dtype, channels), data.shape[-1] // channels, *dims, flags=flags)
    arr.copy_from(numpy.ascontiguousarray(data))
    res = T.ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr)
    desc = T.TextureDescriptor(modes, filter, read, normalizedCoords=int(normalized), borderColors=border)
    return T.TextureObject(res, desc), arr


def run(name, tex, coords, *, vector=True, extra=(), texels=None, kernel=None):
    coords = [numpy.ascontiguousarray(c, numpy.float32) for c in coords]
    n = coords[0].size
    kernel = kernel or ("fetch%d" % len(coords) + ("" if vector else "s"))
    out = xp.zeros((n, 4) if vector else (n,), numpy.float32)
    MODULE.get_function(kernel)(((n + 127) // 128,), (128,), (out, tex) + tuple(xp.asarray(c) for c in coords)
                                + tuple(extra) + (numpy.int32(n),))
    got = out.get()
    for axis, c in zip("xyz", coords):
        RESULTS[name + "." + axis] = c
    RESULTS[name + ".got"] = got
    if texels is not None:
        RESULTS[name + ".texels"] = texels
    return got


def frac_sweep(lo, hi, step):
    return numpy.arange(lo, hi, step, dtype=numpy.float64).astype(numpy.float32)


def main():
    t0 = time.time()
    rng = numpy.random.default_rng(2026)
    # 1. The 1-D weight: a ramp t[i] = i read at x gives floor(x - 0.5) + alpha exactly (linear, clamp).
    ramp = numpy.arange(4096, dtype=numpy.float32)
    tex, keep = texture(ramp.reshape(1, -1)[0], modes=(CLAMP,) * 3)
    x = numpy.concatenate([frac_sweep(10.5, 11.5, 1 / 8192), frac_sweep(2000.5, 2001.5, 1 / 4096),
                           frac_sweep(4000.5, 4001.5, 1 / 2048)])
    got = run("ramp1d", tex, [x], vector=False, texels=ramp)
    a = got - numpy.floor(x - numpy.float32(0.5))
    print("ramp1d alpha*256 at x-0.5 = 10 + k/32, k=0..32:", numpy.round(a[:8193:256] * 256, 3).tolist())
    # Normalized coordinates over the same ramp, N = 4096 and a non-power-of-two N (u * N inexact).
    tex, keep = texture(ramp, normalized=True)
    u = frac_sweep(0.25, 0.25 + 2 / 4096, 1 / (4096 * 2048))
    run("ramp1d_norm4096", tex, [u], vector=False, texels=ramp)
    ramp37 = numpy.arange(37, dtype=numpy.float32)
    tex, keep = texture(ramp37, normalized=True)
    run("ramp1d_norm37", tex, [rng.random(20000, dtype=numpy.float32)], vector=False, texels=ramp37)
    tex, keep = texture(ramp37, normalized=True, modes=(WRAP,) * 3)
    run("ramp1d_norm37_wrap", tex, [(rng.random(20000) * 4 - 2).astype(numpy.float32)], vector=False, texels=ramp37)
    tex, keep = texture(ramp37, normalized=True, modes=(MIRROR,) * 3)
    run("ramp1d_norm37_mirror", tex, [(rng.random(20000) * 4 - 2).astype(numpy.float32)], vector=False, texels=ramp37)
    # How two texel values are mixed: random pairs, fine fractions.
    vals = rng.random(4096, dtype=numpy.float32)
    tex, keep = texture(vals)
    x = (rng.integers(0, 4095, 20000) + 0.5 + rng.integers(0, 65536, 20000) / 65536).astype(numpy.float32)
    run("random1d", tex, [x], vector=False, texels=vals)
    # 2. 1-D border: which axes' modes matter (the failing test set all three to border).
    t37 = rng.random(37, dtype=numpy.float32)
    x = frac_sweep(-3, 40, 1 / 64)
    for tag, modes in [("bbb", (BORDER,) * 3), ("bcc", (BORDER, CLAMP, CLAMP)), ("cbb", (CLAMP, BORDER, BORDER)),
                       ("bww", (BORDER, WRAP, WRAP))]:
        for filt, ftag in [(LINEAR, "lin"), (POINT, "pt")]:
            tex, keep = texture(t37, modes=modes, filter=filt, border=(0.25, 0.25, 0.25, 0.25))
            run("border1d_%s_%s" % (tag, ftag), tex, [x], vector=False, texels=t37)
    g = RESULTS["border1d_bbb_lin.got"]
    print("border1d bbb vs bcc (linear) max diff:", float(numpy.abs(g - RESULTS["border1d_bcc_lin.got"]).max()))
    # 1-D layered, for comparison with a 1-D array.
    try:   # CuPy refuses a 1-D layered array (height 0 with depth)
        arr = T.CUDAarray(channel_format(numpy.float32), 37, 0, 2, flags=LAYERED)   # 2 layers of 37
        arr.copy_from(numpy.stack([t37, t37[::-1]]))
        tex = T.TextureObject(T.ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr),
                              T.TextureDescriptor((BORDER,) * 3, LINEAR, 0, borderColors=(0.25,) * 4))
        run("border1d_layered", tex, [x], vector=False, extra=(numpy.int32(0),), kernel="fetch_layered1", texels=t37)
    except ValueError as e:
        print("border1d_layered skipped:", e)
    # 3. 2-D weights: a 2 x 2 float4 texture whose channel c is 1 at corner c (x-bit 0, y-bit 1), so one fetch
    # at (x, y) in [0.5, 1.5)^2 returns the four weights.
    one_hot = numpy.zeros((2, 2, 4), numpy.float32)
    for c in range(4):
        one_hot[c >> 1, c & 1, c] = 1
    tex, keep = texture(one_hot.reshape(2, 8), 4)
    fx = frac_sweep(0, 1, 1 / 512)
    fy = frac_sweep(0, 1, 1 / 64)
    X, Y = numpy.meshgrid(fx, fy)
    run("weights2d", tex, [X.ravel() + numpy.float32(0.5), Y.ravel() + numpy.float32(0.5)], texels=one_hot)
    w = RESULTS["weights2d.got"]
    print("weights2d: sum of weights range", float(w.sum(1).min()), float(w.sum(1).max()),
          "distinct weight values", numpy.unique(w).size, "min step", float(numpy.diff(numpy.unique(w)).min()))
    # 3-D weights: two textures (corners 0-3, 4-7), 2 x 2 x 2 float4.
    for half in range(2):
        hot = numpy.zeros((2, 2, 2, 4), numpy.float32)
        for c in range(4):
            k = c + 4 * half
            hot[k >> 2, (k >> 1) & 1, k & 1, c] = 1
        tex, keep = texture(hot.reshape(2, 2, 8), 4)
        f = frac_sweep(0, 1, 1 / 32)
        Xs, Ys, Zs = numpy.meshgrid(f, f, f, indexing="ij")
        run("weights3d_%d" % half, tex, [Xs.ravel() + numpy.float32(0.5), Ys.ravel() + numpy.float32(0.5),
                                          Zs.ravel() + numpy.float32(0.5)], texels=hot)
    # 2-D and 3-D random texels and coordinates (to check a model of the arithmetic).
    t2 = rng.random((13, 21), dtype=numpy.float32)
    tex, keep = texture(t2)
    run("random2d", tex, [rng.random(20000, dtype=numpy.float32) * 22 - 0.5,
                          rng.random(20000, dtype=numpy.float32) * 14 - 0.5], vector=False, texels=t2)
    t3 = rng.random((5, 6, 7), dtype=numpy.float32)
    tex, keep = texture(t3)
    run("random3d", tex, [rng.random(20000, dtype=numpy.float32) * 8 - 0.5,
                          rng.random(20000, dtype=numpy.float32) * 7 - 0.5,
                          rng.random(20000, dtype=numpy.float32) * 6 - 0.5], vector=False, texels=t3)
    # Normalized 2-D (wrap, mirror) as test_tex2d[modes1].
    t2n = rng.random((8, 32), dtype=numpy.float32)
    tex, keep = texture(t2n, modes=(WRAP, MIRROR), normalized=True)
    run("random2d_norm_wm", tex, [rng.random(20000, dtype=numpy.float32) * 3 - 1,
                                  rng.random(20000, dtype=numpy.float32) * 3 - 1], vector=False, texels=t2n)
    # 4. Read modes: every pair of 8-bit values (and random 16-bit and half pairs) mixed at fine fractions.
    for dtype in (numpy.uint8, numpy.int8, numpy.uint16, numpy.int16, numpy.float16):
        info = numpy.iinfo(dtype) if dtype != numpy.float16 else None
        if info is None:
            data = rng.standard_normal(4096).astype(dtype)
        else:
            data = rng.integers(info.min, info.max, 4096, endpoint=True, dtype=dtype)
        name = numpy.dtype(dtype).name
        tex, keep = texture(data, read=0 if info is None else 1)
        x = (rng.integers(0, 4095, 20000) + 0.5 + rng.integers(0, 65536, 20000) / 65536).astype(numpy.float32)
        run("read_" + name, tex, [x], vector=False, texels=data)
        tex, keep = texture(data, read=0 if info is None else 1, filter=POINT)
        run("readpt_" + name, tex, [numpy.arange(4096, dtype=numpy.float32) + numpy.float32(0.5)], vector=False,
            texels=data)
    # 5. Pitched memory and layered 2-D, as the failing tests.
    rows = rng.random((12, 32), dtype=numpy.float32)
    res = T.ResourceDescriptor(rt.cudaResourceTypePitch2D, arr=xp.asarray(rows), chDesc=channel_format(numpy.float32),
                               width=20, height=12, pitchInBytes=128)
    tex = T.TextureObject(res, T.TextureDescriptor((CLAMP, CLAMP), LINEAR))
    run("pitch2d", tex, [rng.random(5000, dtype=numpy.float32) * 22 - 1, rng.random(5000, dtype=numpy.float32) * 14 - 1],
        vector=False, texels=rows[:, :20].copy())
    lay = rng.random((3, 7, 9), dtype=numpy.float32)
    tex, keep = texture(lay, flags=LAYERED)
    run("layered2d", tex, [rng.random(5000, dtype=numpy.float32) * 11 - 1, rng.random(5000, dtype=numpy.float32) * 9 - 1],
        vector=False, extra=(numpy.int32(1),), kernel="fetch_layered", texels=lay[1].copy())
    # 6. Finer sweeps: 1-D border at odd weights, 2-D weights on the whole 257 x 257 grid, 3-D weights at random
    # (A, B, C), unnormalized coordinates just off a weight tie, normalized coordinates far outside [0, 1).
    x = frac_sweep(-2, 39, 1 / 2048)
    tex, keep = texture(t37, modes=(BORDER,) * 3, border=(0.25,) * 4)
    run("border1d_fine", tex, [x], vector=False, texels=t37)
    tex, keep = texture(one_hot.reshape(2, 8), 4)
    g = numpy.arange(257, dtype=numpy.float32) / 256
    X, Y = numpy.meshgrid(g, g)
    run("weights2d_full", tex, [X.ravel() + numpy.float32(0.5), Y.ravel() + numpy.float32(0.5)], texels=one_hot)
    for half in range(2):
        hot = numpy.zeros((2, 2, 2, 4), numpy.float32)
        for c in range(4):
            k = c + 4 * half
            hot[k >> 2, (k >> 1) & 1, k & 1, c] = 1
        tex, keep = texture(hot.reshape(2, 2, 8), 4)
        r3 = numpy.random.default_rng(5).integers(0, 257, (3, 30000)).astype(numpy.float32) / 256
        run("weights3d_rand_%d" % half, tex, [r3[0] + numpy.float32(0.5), r3[1] + numpy.float32(0.5),
                                               r3[2] + numpy.float32(0.5)], texels=hot)
    tex, keep = texture(ramp)
    base = rng.integers(1, 4000, 6000) + 0.5 + (rng.integers(0, 256, 6000) + 0.5) / 256
    off = rng.choice([-2.0 ** -k for k in range(10, 24)] + [2.0 ** -k for k in range(10, 24)], 6000)
    run("ramp1d_ties", tex, [(base + off).astype(numpy.float32)], vector=False, texels=ramp)
    tex, keep = texture(ramp37, normalized=True, modes=(WRAP,) * 3)
    run("ramp1d_norm37_far", tex, [(rng.random(20000) * 200 - 100).astype(numpy.float32)], vector=False,
        texels=ramp37)
    # 7. Random data in 2-D/3-D with border/wrap/mirror and normalized coordinates.
    for tag, shape, modes, normalized in [("2d_cb", (13, 21), (CLAMP, BORDER, WRAP), False),
                                          ("2d_wm", (8, 32), (WRAP, MIRROR, WRAP), True),
                                          ("2d_wm37", (9, 37), (WRAP, MIRROR, WRAP), True),
                                          ("3d_ccb", (5, 6, 7), (CLAMP, CLAMP, BORDER), False),
                                          ("3d_wmw", (4, 8, 16), (WRAP, MIRROR, WRAP), True),
                                          ("3d_bbb", (3, 5, 6), (BORDER, BORDER, BORDER), False)]:
        data = rng.random(shape, dtype=numpy.float32)
        tex, keep = texture(data, modes=modes, normalized=normalized, border=(0.5,) * 4)
        coords = []
        for d in range(len(shape)):
            n = shape[::-1][d]
            c = rng.random(5000) * (n + 4) - 2
            coords.append((c / n if normalized else c).astype(numpy.float32))
        run("rand" + tag, tex, coords, vector=False, texels=data)
    # 8. 4-channel 8/16-bit normalized reads in 2-D (as test_four_channels_and_read_modes).
    for dtype in (numpy.uint8, numpy.int16, numpy.int8, numpy.uint16):
        info = numpy.iinfo(dtype)
        data = rng.integers(info.min, info.max, (6, 10, 4), endpoint=True, dtype=dtype)
        tex, keep = texture(data.reshape(6, 40), 4, read=1)
        run("rgba_" + numpy.dtype(dtype).name, tex, [rng.random(3000, dtype=numpy.float32) * 12 - 1,
                                                     rng.random(3000, dtype=numpy.float32) * 8 - 1], texels=data)
    xp.cuda.runtime.deviceSynchronize()
    out = os.environ.get("OUT", ".")
    path = os.path.join(out, "texprobe.npz")
    numpy.savez_compressed(path, **RESULTS)
    print("saved %d arrays to %s with %s in %.1f s" % (len(RESULTS), path, XP, time.time() - t0))


if __name__ == "__main__":
    sys.exit(main())
