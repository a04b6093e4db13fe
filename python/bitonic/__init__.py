"""bitonic — sort PyTorch, CuPy, JAX, numba and NumPy arrays on NVIDIA GPUs with bitonic sorting
networks, without copies: a thin layer over the C++ library's public API (include/bitonic/).

Keys-only ``sort`` for now; ``argsort``, ``sort_pairs``, ``topk`` and ``sort_segments`` follow as
their C++ entry points land.
"""

from . import _arrays, _core
from ._core import Error

__version__ = "0.1.0"
__all__ = ["sort", "workspace_bytes", "gpu_available", "release_cached_memory",
           "cached_memory_bytes", "Error", "DTYPES"]

#: The key types sort accepts, as NumPy names them (those the C++ library is precompiled for).
DTYPES = _arrays.DTYPES


def sort(x, *, descending=False, stable=False, dim=-1, out=None, inplace=False):
    """Sorts `x` along its last axis and returns an array of the same kind.

    x: a torch.Tensor, cupy.ndarray, jax.Array or numba device array in CUDA device (or managed)
        memory: zero copies, through the library's own attributes (torch, cupy), DLPack (jax and
        any ``__dlpack__`` producer, with the protocol's stream argument) or the CUDA Array
        Interface (numba and any other producer of it). A numpy.ndarray, or any array in host
        memory, goes through the C++ ``sort_host`` (the GPU when there is one, the CPU otherwise).
        Key types: int32, uint32, int64, uint64, float32, float64. C-contiguous, at least 1-d.
    descending: largest first.
    stable: equal keys keep their order. Integer keys that compare equal are the same value, so
        for them any sort is stable; for float keys (-0.0 and +0.0 compare equal, so do NaNs with
        different payloads) NotImplementedError until the C++ library's stable option (issue 20).
    dim: the axis to sort along: only the last one (-1 or x.ndim - 1). Rows of an n-d array are
        sorted one C++ call each, on the same stream, until the segmented sort (issue 21) lands.
    out: an array of x's kind, shape, dtype and device to write the sorted keys to (may be x).
    inplace: sort x itself and return it (not for jax.Array: JAX arrays are immutable).

    Returns the sorted array: by default a new one (a device copy of x made with x's library on
    the caller's stream, then sorted in place); `out` or `x` itself when asked.

    Order: floats by a total order: -NaN < -inf < ... < -0.0 == +0.0 < ... < +inf < NaN, so NaNs
    come last ascending and first descending (as numpy.sort and torch.sort put them ascending).

    Streams and memory: the work is enqueued on the caller's current stream
    (torch.cuda.current_stream(), CuPy's current stream; for numba the stream its array interface
    names, else the legacy default stream) and the call returns without waiting, with no
    device-wide sync; for JAX and other DLPack producers, which have no current stream to share,
    the call waits for the stream it used. Scratch (past one L2 block of keys: n keys) comes from
    the caller's framework allocator (a torch or cupy uint8 array), else from the library's own
    memory pool (release_cached_memory gives it back). No autograd: the result does not require
    grad.

    Raises TypeError (not an array, unsupported key type such as bool, complex, float16 or
    object, ``out`` of another kind) or ValueError (0-d, another dim, not C-contiguous, not on a
    CUDA device or the host, read-only for in-place, ``out`` of another shape/dtype/device)
    before anything is written; bitonic.Error (a RuntimeError) for failures of the C++ library.
    """
    src = _arrays.wrap(x)
    _check_keys(src, "x", dim)
    dtype = src.dtype
    if stable and dtype in _arrays.FLOATS:
        raise NotImplementedError(
            "bitonic.sort(stable=True) with float keys needs the C++ library's stable option "
            "(issue 20): -0.0/+0.0 and NaNs with different payloads compare equal")
    if descending not in (True, False):  # bool, numpy.bool_, 0 or 1
        raise TypeError(f"bitonic.sort: descending must be a bool, got {descending!r}")
    if inplace and out is not None:
        raise ValueError("bitonic.sort: pass inplace=True or out=, not both")

    if inplace:
        if src.immutable:
            raise TypeError(f"bitonic.sort: a {src.kind} is immutable; sort it out of place")
        if not src.writeable:
            raise ValueError(f"bitonic.sort: the {src.kind} is read-only; cannot sort in place")
        dst = src
    elif out is not None:
        dst = src if out is x else _arrays.wrap(out)
        if dst is not src:
            _check_out(src, dst)
    else:
        dst = None

    shape = src.shape
    n = shape[-1]
    rows = _product(shape[:-1])
    code = _arrays.CODES[dtype]
    on_device = src.device_type == "cuda"
    stream = src.stream() if on_device else 0

    if dst is None:
        dst = src.copy()
        if dst is None:
            raise TypeError(f"bitonic.sort: cannot make a new {src.kind}; pass inplace=True or "
                            "out= (or use torch, cupy, jax, numba or numpy arrays)")
    elif dst is not src:
        src.copy_into(dst)

    if n > 1 and rows > 0:
        if on_device:
            ws_ptr, ws_bytes, owner = 0, 0, None
            need = _core.workspace_bytes(n, code, dst.device)
            if need:
                provided = dst.workspace(need)
                if provided is not None:
                    (ws_ptr, owner), ws_bytes = provided, need
            _core.sort_device(dst.ptr(), rows, n, code, descending, stream, ws_ptr, ws_bytes,
                              dst.device)
            del owner  # freed into its allocator after the sort was enqueued: stream-ordered
        else:
            _core.sort_host(dst.ptr(), rows, n, code, descending)
    return dst.finish(stream) if on_device else dst.x


def _product(values):
    result = 1
    for v in values:
        result *= v
    return result


def _check_keys(a, name, dim):
    """TypeError/ValueError for what sort cannot take; runs before anything is written."""
    if a.dtype is None:
        raise TypeError(f"bitonic.sort: {name} has dtype {a.dtype_repr}; supported key types: "
                        f"{', '.join(_arrays.DTYPES)}")
    ndim = len(a.shape)
    if ndim == 0:
        raise ValueError(f"bitonic.sort: {name} is 0-d; a sort needs at least one axis")
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"bitonic.sort: dim must be an int, got {dim!r}")
    if dim not in (-1, ndim - 1):
        raise ValueError(f"bitonic.sort: sorts along the last axis only (dim=-1 or {ndim - 1} "
                         f"for {name} of {ndim} dims), got dim={dim}; move that axis last and "
                         "make the array contiguous first")
    if not a.contiguous:
        raise ValueError(f"bitonic.sort: {name} is not C-contiguous; pass a contiguous copy "
                         "(x.contiguous(), cupy.ascontiguousarray, numpy.ascontiguousarray)")
    if a.device_type not in ("cuda", "cpu"):
        raise ValueError(f"bitonic.sort: {name} is on {a.device_type}; bitonic sorts CUDA "
                         "device memory or host memory")


def _check_out(src, dst):
    if type(dst) is not type(src) or dst.kind != src.kind:
        raise TypeError(f"bitonic.sort: out must be a {src.kind} like x, got a {dst.kind}")
    _check_keys(dst, "out", -1)
    if dst.dtype != src.dtype or tuple(dst.shape) != tuple(src.shape):
        raise ValueError(f"bitonic.sort: out has {dst.dtype_repr} {tuple(dst.shape)}, x has "
                         f"{src.dtype_repr} {tuple(src.shape)}; they must match")
    if (dst.device_type, dst.device) != (src.device_type, src.device):
        raise ValueError(f"bitonic.sort: out is on {dst.device_type}:{dst.device}, x on "
                         f"{src.device_type}:{src.device}; they must be on the same device")
    if dst.immutable or not dst.writeable:
        raise ValueError(f"bitonic.sort: out (a {dst.kind}) is read-only")


def workspace_bytes(n, dtype="float32", device=-1):
    """Bytes of scratch a sort of `n` keys of `dtype` needs on `device` (-1: the current one) so
    that it allocates nothing; 0 where it sorts in place. Needs a CUDA device."""
    if dtype not in _arrays.CODES:
        raise TypeError(f"bitonic.workspace_bytes: dtype {dtype!r}; supported: "
                        f"{', '.join(_arrays.DTYPES)}")
    return _core.workspace_bytes(n, _arrays.CODES[dtype], device)


def gpu_available():
    """True when a CUDA device is usable by this process."""
    return _core.gpu_available()


def release_cached_memory():
    """Gives back the memory the library's own pool keeps between sorts without a framework
    allocator (waits for the devices that have such a pool, as torch.cuda.empty_cache does)."""
    _core.release_cached_memory()


def cached_memory_bytes():
    """Bytes the library's memory pool holds reserved on the current device."""
    return _core.cached_memory_bytes()
