"""The objects kernels name: thread indices, barriers, memory, atomics, warp
operations. Outside a kernel they only describe themselves; inside one the
transpiler knows them by their ``_kiln_builtin`` name (transpiler/builtins.cpp
is the table of what each does)."""


class Builtin:
    """A kernel builtin (``kiln.jit.threadIdx``, ``kiln.jit.syncthreads``, ...)."""

    def __init__(self, name, doc):
        self._kiln_builtin = name
        self.__doc__ = doc

    def __repr__(self):
        return "<kiln.jit builtin %s>" % self._kiln_builtin[len("kiln.jit."):]

    def __call__(self, *args, **kwargs):
        raise RuntimeError("%s can only be called inside a kernel (a function decorated with "
                           "@kiln.jit.rawkernel)" % self._kiln_builtin)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise AttributeError("%s.%s can only be read inside a kernel" % (self._kiln_builtin, attr))


def _b(name, doc):
    return Builtin("kiln.jit." + name, doc)


threadIdx = _b("threadIdx", "index of the thread in its block (.x, .y, .z; uint32)")
blockIdx = _b("blockIdx", "index of the block in the grid (.x, .y, .z; uint32)")
blockDim = _b("blockDim", "threads per block (.x, .y, .z; uint32)")
gridDim = _b("gridDim", "blocks per grid (.x, .y, .z; uint32)")
warpsize = _b("warpsize", "threads per warp (32; int32)")
laneid = _b("laneid", "laneid(): the thread's lane in its warp (uint32)")
grid = _b("grid", "grid(ndim): the thread's absolute index (a uint32, or a tuple of ndim)")
gridsize = _b("gridsize", "gridsize(ndim): threads in the grid (a uint32, or a tuple of ndim)")
syncthreads = _b("syncthreads", "syncthreads(): barrier of the block")
syncwarp = _b("syncwarp", "syncwarp(mask=0xffffffff): barrier of the warp's lanes in mask")
threadfence = _b("threadfence", "threadfence(): orders this thread's memory accesses for the whole device")
threadfence_block = _b("threadfence_block", "threadfence_block(): ... for the block")
threadfence_system = _b("threadfence_system", "threadfence_system(): ... for the device and the host")
shared_memory = _b("shared_memory", "shared_memory(dtype, size): an array shared by the block; "
                                    "size=None: sized at launch by shared_mem= (bytes)")
local_memory = _b("local_memory", "local_memory(dtype, size): a thread-private array")
range = _b("range", "range(start, stop, step, unroll=True|n): range with #pragma unroll")  # noqa: A001

_ATOMICS = ("add", "sub", "exch", "min", "max", "inc", "dec", "cas", "and", "or", "xor")
for _op in _ATOMICS:
    globals()["atomic_" + _op] = _b("atomic_" + _op, "atomic_%s(array, index, value%s): the old value"
                                    % (_op, ", new" if _op == "cas" else ""))
for _op in ("shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "all_sync", "any_sync",
            "ballot_sync"):
    globals()[_op] = _b(_op, "warp operation %s (CUDA's __%s)" % (_op, _op))
del _op
