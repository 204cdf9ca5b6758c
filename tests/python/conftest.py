"""Shared fixtures. Every test runs on whatever backend kiln selected
(KILN_BACKEND=host in CI, KILN_BACKEND=cuda on the GPU machine)."""
import functools
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import tempfile
import time

import numpy
import pytest

import kiln

# Remember every kernel source compiled during the session: at the end each
# process compiles its sources again with NVRTC for sm_90 (Note [NVRTC check]).
kiln._core._record_sources(True)

ALL_DTYPES = [numpy.bool_, numpy.int8, numpy.int16, numpy.int32, numpy.int64,
              numpy.uint8, numpy.uint16, numpy.uint32, numpy.uint64,
              numpy.float16, numpy.float32, numpy.float64,
              numpy.complex64, numpy.complex128]


def pytest_configure(config):
    config.addinivalue_line("markers", "run_last: run after every other test")
    if not hasattr(config, "workerinput"):   # the controller (or the only process)
        os.environ["KILN_NVRTC_REPORTS"] = tempfile.mkdtemp(prefix="kiln-nvrtc-")


# Note [NVRTC check]
# Every kernel the suite compiled on the host backend must also compile for
# sm_90 with NVRTC: to PTX for compute_90, which is all of NVRTC's work but
# ptxas's (a full cubin takes about twice as long, and the GPU run builds
# every cubin anyway). Each pytest process (each xdist worker, or the only one)
# compiles its recorded sources when its session ends, each source once over
# all workers (_claimed), and writes a report; the controller prints the
# total and fails the run on any error. On
# the CUDA backend NVRTC compiled them all already.
#
# The check compiles with --Ofast-compile=max added to each source's own
# options (where this NVRTC has the option, CUDA 12.8 and later): the front
# end, template instantiation and code generation to PTX all run, and any
# error in them fails the check, but NVVM's expensive optimisations do not.
# Whether a source compiles does not depend on them, and they were nearly
# all of the check's time: 0.62 s a source without the option, 0.013 s with
# it (batches of 48 engine sources, a 2-core machine like CI's). On such a
# machine the check of the whole suite's 4512 sources went from about 14
# minutes to 34 s, and CI from 39 to 25 minutes. The GPU run compiles every
# source with its real options and runs it.
def _nvrtc_check():
    have, why = kiln._core._nvrtc_available()
    if not have or kiln.get_backend() == "cuda":
        return {"checked": 0, "failures": [], "skipped": why or "cuda backend", "seconds": 0.0, "options": []}
    started = time.monotonic()
    sources = [entry for entry in kiln._core._recorded_sources() if _claimed(entry)]
    batchable = [s for s in sources if _batchable(s)]
    failures = []
    for start in range(0, len(batchable), 48):
        batch = batchable[start:start + 48]
        if _nvrtc_errors(_batched_source(batch), list(batch[0][1])):
            for one in batch:   # find the culprit(s)
                failures += _nvrtc_errors(one[0], list(one[1]), one[2])
    for one in sources:
        if not _batchable(one):
            failures += _nvrtc_errors(one[0], list(one[1]), one[2])
    return {"checked": len(sources), "failures": failures, "skipped": "",
            "seconds": time.monotonic() - started, "options": _fast_compile_options()}


@functools.cache
def _fast_compile_options():
    """["--Ofast-compile=max"] where this NVRTC accepts it, else []."""
    try:
        kiln._core._nvrtc_compile('extern "C" __global__ void probe() {}', ["--Ofast-compile=max"], [], "compute_90")
        return ["--Ofast-compile=max"]
    except Exception:   # an NVRTC older than 12.8 rejects the option
        return []


def _claimed(entry):
    """Whether this process checks `entry`: xdist workers record the kernels
    they load, many the same, so the first to claim a source (an exclusive
    file named by its hash) compiles it and the others skip it."""
    claims = os.environ["KILN_NVRTC_REPORTS"] + ".claims"
    os.makedirs(claims, exist_ok=True)
    digest = hashlib.sha256(repr(entry).encode()).hexdigest()
    try:
        os.close(os.open(os.path.join(claims, digest), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False


# Engine-generated sources (includes, then kernels of the engine's making, no
# macros, no name expressions, default-ish options) are compiled 48 to a
# program, each in its own namespace, so NVRTC parses the headers once per
# batch instead of once per source.
_ENGINE_PREFIX = "#include <kiln/elementwise.h>\n"


def _batchable(entry):
    source, options, names = entry
    return (source.startswith(_ENGINE_PREFIX) and not names and "#define" not in source
            and tuple(options) in ((), tuple(kiln._core._EXACT_FP_OPTIONS)))


def _batched_source(batch):
    includes, bodies = [], []
    for k, (source, _, _) in enumerate(batch):
        lines = source.split("\n")
        head = [ln for ln in lines if ln.startswith("#include ")]
        rest = [ln for ln in lines if not ln.startswith("#include ")]
        includes += [ln for ln in head if ln not in includes]
        body = "\n".join(rest).replace('extern "C" __global__', "__global__")
        bodies.append("namespace kiln_nvrtc_check_%d {\n%s\n}\n" % (k, body))
    return "\n".join(includes) + "\n" + "".join(bodies)


def _nvrtc_errors(source, options, names=()):
    try:
        ptx = kiln._core._nvrtc_compile(source, options + _fast_compile_options(), list(names), "compute_90")
        return [] if b".target sm_90" in ptx else ["no sm_90 PTX:\n" + source[:2000]]
    except Exception as e:  # CompileException: the log names the line
        return ["%s\n--- source ---\n%s" % (e, source[:4000])]


def pytest_sessionfinish(session, exitstatus):
    reports = os.environ.get("KILN_NVRTC_REPORTS")
    if not reports:
        return
    result = _nvrtc_check()
    worker = getattr(session.config, "workerinput", {}).get("workerid", "main")
    with open(os.path.join(reports, worker + ".json"), "w") as f:
        json.dump(result, f)
    if worker != "main":
        return
    checked, failures, seconds = 0, [], 0.0
    for name in sorted(os.listdir(reports)):
        with open(os.path.join(reports, name)) as f:
            r = json.load(f)
        checked += r["checked"]
        failures += r["failures"]
        seconds = max(seconds, r["seconds"])
    shutil.rmtree(reports, ignore_errors=True)
    shutil.rmtree(reports + ".claims", ignore_errors=True)
    print("\nNVRTC check: %d kernel sources compiled for compute_90 (sm_90 PTX)%s, %d failed, %.0f s%s"
          % (checked, " with %s" % " ".join(result["options"]) if result["options"] else "", len(failures),
             seconds, " (skipped: %s)" % result["skipped"] if result["skipped"] else ""))
    for f in failures[:20]:
        print(f)
    if failures:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("run_last") is not None)


@pytest.fixture
def rng():
    return numpy.random.default_rng(12345)


def random_array(rng, shape, dtype):
    """Random values of ``dtype``, spanning negatives where the dtype has them."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dtype)
    if dtype.kind in "iu":
        info = numpy.iinfo(dtype)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape,
                            endpoint=True).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return (rng.standard_normal(shape) * 100).astype(dtype)


# Layouts every routine is checked over, and the helpers that build them.
LAYOUTS = ["C", "F", "strided", "negative", "0-d", "empty"]


def name(d):
    return numpy.dtype(d).name


def same_error(kiln_call, numpy_call):
    """Both calls raise the same exception type with the same message."""
    with pytest.raises(Exception) as expected:
        numpy_call()
    with pytest.raises(expected.type) as got:
        kiln_call()
    assert str(got.value) == str(expected.value)


def assert_same_bits(got, expected):
    """Equal values, dtypes and shapes; floating parts compared bit for bit
    (so -0.0 differs from 0.0 and NaN payloads count)."""
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if expected.dtype.kind in "fc":
        part = numpy.dtype("u%d" % (expected.dtype.itemsize // (2 if expected.dtype.kind == "c" else 1)))
        got = numpy.ascontiguousarray(got).reshape(-1).view(part)
        expected = numpy.ascontiguousarray(expected).reshape(-1).view(part)
    numpy.testing.assert_array_equal(got, expected)


def assert_same_values(got, expected):
    """As assert_same_bits, except that a NaN matches any NaN: the sign and
    payload of a NaN made by arithmetic are the hardware's (x86 keeps an
    input's payload, GPUs give one canonical NaN). Casts and copies keep
    payloads everywhere: test those with assert_same_bits."""
    got, expected = numpy.asarray(got), numpy.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if expected.dtype.kind not in "fc":
        numpy.testing.assert_array_equal(got, expected)
        return
    real = numpy.dtype("f%d" % (expected.dtype.itemsize // (2 if expected.dtype.kind == "c" else 1)))
    g = numpy.ascontiguousarray(got).reshape(-1).view(real)
    e = numpy.ascontiguousarray(expected).reshape(-1).view(real)
    nan = numpy.isnan(e)
    numpy.testing.assert_array_equal(numpy.isnan(g), nan, err_msg="NaN positions differ")
    part = numpy.dtype("u%d" % real.itemsize)
    numpy.testing.assert_array_equal(g[~nan].view(part), e[~nan].view(part))


def make(rng, layout, dtype, base=None):
    """(kiln array, the NumPy array it equals) in the given layout, cut from a
    6x8 host array: `base`, or values in range for every dtype by default."""
    dtype = numpy.dtype(dtype)
    # Floating values in [0, 100): in range for every integer type (casting
    # negative or out-of-range floats to integers is undefined in NumPy).
    if base is not None:
        pass
    elif dtype.kind == "f":
        base = (rng.random((6, 8)) * 100).astype(dtype)
    elif dtype.kind == "c":
        base = (rng.random((6, 8)) * 100 + 1j * (rng.random((6, 8)) * 100 - 50)).astype(dtype)
    else:
        base = random_array(rng, (6, 8), dtype)
    k = kiln.asarray(base)
    isz = dtype.itemsize
    if layout == "C":
        return k, base
    if layout == "F":
        return k.astype(dtype, order="F"), numpy.asfortranarray(base)
    if layout == "strided":
        return kiln._core._as_strided(k, (3, 3), (16 * isz, 3 * isz), isz), base[::2, 1::3]
    if layout == "negative":
        return kiln._core._as_strided(k, (6, 4), (-8 * isz, -2 * isz), 47 * isz), base[::-1, ::-2]
    if layout == "0-d":
        return kiln._core._as_strided(k, (), (), 13 * isz), base.reshape(-1)[13].reshape(())
    return kiln._core._as_strided(k, (0, 3), (8 * isz, isz), 0), base[:0, :3]


@pytest.fixture
def on_gpu():
    return kiln.get_backend() == "cuda"


# cuSOLVER's test double (Note [cuSOLVER test double]): the host backend runs
# the cuda backend's LAPACK primitives through it, in test_linalg_solver_primitives
# and test_linalg_decompositions.
FAKE_CUSOLVER_SOURCE = pathlib.Path(__file__).resolve().parents[1] / "cpp" / "cuda_fake" / "fake_libcusolver.cpp"
TEST_DOUBLE_ENV = "KILN_TEST_HOST_CUSOLVER"


def build_test_double(folder, *defines):
    """The cuSOLVER test double as a shared library (built with the macros
    `defines`), or (None, why not)."""
    compiler = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++")
    if compiler is None:
        return None, "no C++ compiler for the cuSOLVER test double"
    lib = folder / "libfakecusolver.so"
    built = subprocess.run([compiler, "-std=c++17", "-O1", "-shared", "-fPIC", str(FAKE_CUSOLVER_SOURCE), "-o", str(lib),
                            "-l:liblapack.so.3", *("-D" + d for d in defines)], capture_output=True, text=True)
    if built.returncode != 0:
        return None, "cannot build the cuSOLVER test double: " + built.stderr[-400:]
    return lib, ""


@pytest.fixture(scope="session")
def test_double_library(tmp_path_factory):
    """(the test double's path or None, why not), built once per process:
    kiln loads libcusolver once per process, so a second build at another
    path would be a library kiln never calls (and _batched_calls() would
    count on it). pytest-xdist may tear the module fixture down and set it
    up again in one worker, and a session fixture defined in two modules is
    two fixtures, which is why it lives here."""
    return build_test_double(tmp_path_factory.mktemp("cusolver"))


@pytest.fixture(scope="module")
def solver(request):
    """cuSOLVER on the cuda backend; its test double on the host backend."""
    if kiln.get_backend() != "host":
        ok, why = kiln._core._solver_usable()
        if not ok:
            pytest.skip(why)
        yield "cusolver"
        return
    lib, why = request.getfixturevalue("test_double_library")
    if lib is None:
        pytest.skip(why)
    # The double stands in for cuBLAS's batched LU too (Note [Batched primitives]).
    saved = {name: os.environ.get(name) for name in (TEST_DOUBLE_ENV, "KILN_CUSOLVER_PATH", "KILN_CUBLAS_PATH")}
    os.environ.update({TEST_DOUBLE_ENV: "1", "KILN_CUSOLVER_PATH": str(lib), "KILN_CUBLAS_PATH": str(lib)})
    try:
        ok, why = kiln._core._solver_usable()
        if not ok:
            pytest.skip(why)
        yield "test double"
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
