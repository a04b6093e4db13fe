"""bitonic — sort PyTorch, CuPy, JAX, numba and NumPy arrays on NVIDIA GPUs with bitonic sorting
networks, without copies: a thin layer over the C++ library's public API (include/bitonic/).

``sort`` (keys, or keys and their indices), ``argsort``, ``sort_pairs`` (keys with values),
``topk`` (the k largest or smallest of each row, with their indices) and ``sort_segments`` (each
segment of an array on its own, CSR offsets).
"""

import functools
import operator
from collections import namedtuple

from . import _arrays, _core
from ._arrays import ARGSORT, SORT, SORT_COPY, SORT_INDICES, SORT_PAIRS
from ._core import Error

__version__ = "0.1.0"
__all__ = ["sort", "argsort", "sort_pairs", "topk", "sort_segments", "SortResult", "PairsResult",
           "TopKResult", "workspace_bytes", "gpu_available", "release_cached_memory",
           "cached_memory_bytes", "Error", "DTYPES", "VALUE_DTYPES"]

#: The key types every function accepts, as NumPy and PyTorch name them (those the C++ library is
#: precompiled for; float16 and bfloat16 are CUDA's __half and __nv_bfloat16).
DTYPES = _arrays.DTYPES
#: The types of sort_pairs' values: the 4- and 8-byte key types (values move as bits).
VALUE_DTYPES = _arrays.WIDE_DTYPES

#: ``sort(x, return_indices=True)``'s result, as ``torch.sort``'s: the sorted keys and, for each,
#: its position in its row of x.
SortResult = namedtuple("SortResult", ["values", "indices"])
#: ``sort_pairs``' result: the sorted keys and the values that moved with them.
PairsResult = namedtuple("PairsResult", ["keys", "values"])
#: ``topk``'s result, as ``torch.topk``'s: the k first keys of each row and their positions in it.
TopKResult = namedtuple("TopKResult", ["values", "indices"])

_COMMON_DOC = """
    Arrays: a torch.Tensor, cupy.ndarray, jax.Array or numba device array in CUDA device (or
        managed) memory: zero copies, through the library's own attributes (torch, cupy), DLPack
        (jax and any ``__dlpack__`` producer, with the protocol's stream argument) or the CUDA
        Array Interface (numba and any other producer of it). A numpy.ndarray, or any array in
        host memory, goes through the C++ host forms (``sort_host``, ``sort_pairs_host``,
        ``argsort_host``: the GPU when there is one, the CPU otherwise; synchronous). Results are
        of the input's kind. Key types: int32, uint32, int64, uint64, float32, float64, int8,
        uint8, int16, uint16, float16, bfloat16 (the last six sorted as 32-bit words of theirs).
        C-contiguous, at least 1-d; sorted along the last axis (dim=-1 or x.ndim - 1): the rows
        of a device array in one call of the C++ batched entry points, host rows one by one.

    Order: floats by a total order: -inf < ... < -0.0 == +0.0 < ... < +inf < NaN (NaNs of either
    sign, all equivalent), so NaNs come last ascending and first descending (as numpy.sort puts
    them ascending).
    Stable: equal keys (for floats also -0.0 and +0.0, and NaNs of any sign and payload) keep their
    input order, as numpy's kind="stable" and torch's stable=True; otherwise they end in any
    order of theirs.

    Streams and memory: the work is enqueued on the caller's current stream
    (torch.cuda.current_stream(), CuPy's current stream; for numba the stream its array interface
    names, else the legacy default stream) and the call returns without waiting, with no
    device-wide sync; for JAX and other DLPack producers, which have no current stream to share,
    the call waits for the stream it used. New arrays (copies, indices) are made by the input's
    library on that stream. Scratch comes from the caller's framework allocator (a torch or cupy
    uint8 array, so a torch.cuda.graph capture takes it from the graph's pool), else from the
    library's own memory pool (release_cached_memory gives it back). No autograd: results do not
    require grad.

    Raises TypeError (not an array, unsupported key type such as bool, complex or object,
    ``out`` of another kind) or ValueError (0-d, another dim, not C-contiguous, not on a
    CUDA device or the host, read-only where written, ``out`` of another shape/dtype/device)
    before anything is written; bitonic.Error (a RuntimeError) for failures of the C++ library.
"""


def sort(x, *, descending=False, stable=False, dim=-1, out=None, inplace=False,
         return_indices=False):
    """Sorts `x` along its last axis and returns an array of the same kind; with
    ``return_indices=True`` a ``SortResult(values, indices)`` as ``torch.sort`` returns.

    descending: largest first.
    stable: equal keys keep their order (see below). Integer keys that compare equal are the same
        value, so for them only the indices can tell; float keys take the C++ stable sort (an
        argsort and a gather: about twice a plain sort's time).
    dim: the axis to sort along: only the last one.
    out: an array of x's kind, shape, dtype and device to write the sorted keys to (may be x);
        with return_indices a pair (values, indices) of such arrays, the indices of an integer
        dtype (int64, int32, uint64 or uint32) of x's shape.
    inplace: sort x itself and return it (not for jax.Array: JAX arrays are immutable).
    return_indices: also return, for each sorted key, its position in its row of x (int64, as
        torch.sort; int32 for JAX without jax_enable_x64, as jnp.argsort): on the GPU the C++
        argsort that also writes the sorted keys (stable with `stable`, as argsort), x read once;
        in place, into out[0] that is x, and on the host the C++ sort_pairs of the keys with
        their positions.

    Returns the sorted array: by default a new one (made with x's library on the caller's stream;
    a 1-d torch or cupy array on the GPU is sorted from x straight into it, as the C++ sort from
    d_in to d_out, others are copied and then sorted in place); `out` or `x` itself when asked.
    """
    fn = "bitonic.sort"
    _check_flags(fn, descending=descending, stable=stable, return_indices=return_indices)
    src = _keys(fn, x, dim)
    if not return_indices:
        dst = _target(fn, src, x, out, inplace, "out")
        if dst is not src and src.device_type == "cuda" and len(src.shape) == 1:
            if dst is None and src.empty_is_free:
                dst = src.new(tuple(src.shape), src.dtype)
            if dst is not None:  # x's keys sorted into dst: no copy first
                _run(SORT_COPY, src, dst, descending, stable, sorts_rows_of_one=True)
                return _finish(dst)[0]
        (dst,) = _materialise(fn, (src, dst))
        _run(SORT, dst, None, descending, stable)
        return _finish(dst)[0]
    keys_out, index_out = _pair(fn, out, "(values, indices)")
    dst = _target(fn, src, x, keys_out, inplace, "out[0]")
    if src.device_type == "cuda" and (dst is None and src.empty_is_free or
                                      dst is not None and dst.ptr() != src.ptr()):
        # The C++ argsort with the sorted keys: x read once, no positions to write first.
        index = _indices(fn, src, _index_target(fn, src, index_out, "out[1]", iota=False),
                         iota=False)
        if dst is None:
            dst = src.new(tuple(src.shape), src.dtype)
        _run(SORT_INDICES, src, index, descending, stable, sorts_rows_of_one=True, third=dst)
        return SortResult(*_finish(dst, index))
    index = _indices(fn, src, _index_target(fn, src, index_out, "out[1]", iota=True), iota=True)
    (dst,) = _materialise(fn, (src, dst))
    _run(SORT_PAIRS, dst, index, descending, stable)
    return SortResult(*_finish(dst, index))


def argsort(x, *, descending=False, stable=False, dim=-1, out=None):
    """The positions that sort `x` along its last axis, as an array of x's kind: x[..., i[0]],
    x[..., i[1]], ... is sorted (as ``torch.argsort`` and ``numpy.argsort``). x is not changed
    (a read-only or JAX array is fine).

    descending: largest first.
    stable: equal keys in ascending positions, as ``torch.argsort(stable=True)`` and
        ``numpy.argsort(kind="stable")``. By default the positions of equal keys may come in any
        order (the C++ argsort: 4-byte keys from 2^23 a row take 5-7 % less time unstable; other
        sorts, and rows of more than one, are stable either way).
    dim: the axis to sort along: only the last one.
    out: an integer array of x's kind, shape and device for the indices: int64 or uint64 (any
        size), int32 (rows up to 2^31 keys) or uint32 (up to 2^32).

    Returns the indices: int64 (torch's and numpy's index type; int32 for JAX without
    jax_enable_x64, as jnp.argsort), or `out`. The C++ argsort writes them as 64-bit (or 32-bit)
    unsigned positions into that memory.
    """
    fn = "bitonic.argsort"
    _check_flags(fn, descending=descending, stable=stable)
    src = _keys(fn, x, dim)
    index = _index_target(fn, src, out, "out", iota=False)
    if index is not None and index.x is x:
        raise ValueError(f"{fn}: out is x; the indices need an array of their own")
    index = _indices(fn, src, index, iota=False)
    _run(ARGSORT, src, index, descending, stable, sorts_rows_of_one=True)
    return _finish(src, index)[1]


def sort_pairs(keys, values, *, descending=False, stable=False, dim=-1, out=None,
               inplace=False):
    """Sorts (key, value) records by key along the last axis: both arrays end in the order of the
    keys (the C++ sort_pairs). Returns ``PairsResult(keys, values)`` of the inputs' kind.

    keys, values: arrays of the same kind, shape and device; values of any 4- or 8-byte key type
        (VALUE_DTYPES: they move as bits).
    descending: largest key first.
    stable: records with equal keys keep their input order; otherwise they end in any order of
        theirs (faster: 4-byte keys with 4-byte values sort as one 64-bit word each).
    dim: the axis to sort along: only the last one.
    out: a pair (keys_out, values_out) of arrays like keys and values to write the result to (may
        be keys and values themselves).
    inplace: sort keys and values themselves and return them (not for jax.Array).
    """
    fn = "bitonic.sort_pairs"
    _check_flags(fn, descending=descending, stable=stable)
    src = _keys(fn, keys, dim, "keys")
    vsrc = _arrays.wrap(values, fn)
    _check_array(fn, vsrc, "values", -1)
    _check_same(fn, src, vsrc, "values", "keys", same_dtype=False)
    if vsrc.dtype not in _arrays.WIDE_DTYPES:
        raise TypeError(f"{fn}: values have dtype {vsrc.dtype_repr}; values are of 4 or 8 bytes: "
                        f"{', '.join(_arrays.WIDE_DTYPES)}")
    keys_out, values_out = _pair(fn, out, "(keys, values)")
    dst = _target(fn, src, keys, keys_out, inplace, "out[0]")
    vdst = _target(fn, vsrc, values, values_out, inplace, "out[1]")
    if dst is not None and vdst is not None and dst.x is vdst.x:
        raise ValueError(f"{fn}: the keys and the values would be written to one array")
    dst, vdst = _materialise(fn, (src, dst), (vsrc, vdst))
    _run(SORT_PAIRS, dst, vdst, descending, stable)
    return PairsResult(*_finish(dst, vdst))


def topk(x, k, *, largest=True, dim=-1, sorted=True):
    """The `k` largest (or, with ``largest=False``, smallest) keys of each row of `x` along its
    last axis, sorted, with their positions in the row: ``TopKResult(values, indices)`` of x's
    kind and shape with the last axis k (as ``torch.topk``). Among equal keys the lower position
    comes first, so the result is the first k of a stable sort of each row; NaNs are the largest
    keys. x is not changed (a read-only or JAX array is fine).

    k: 0 <= k <= the row length (an int).
    largest: the k largest (descending) or the k smallest (ascending).
    dim: the axis to select along: only the last one.
    sorted: accepted for torch's signature; the result is always sorted.

    Returns new arrays made by x's library: the keys, and the indices as int64 (torch's and
    numpy's index type; int32 for JAX without jax_enable_x64). The C++ topk (device arrays) or
    topk_host (host arrays) writes them."""
    fn = "bitonic.topk"
    _check_flags(fn, largest=largest, sorted=sorted)
    src = _keys(fn, x, dim)
    if isinstance(k, bool):
        raise TypeError(f"{fn}: k must be an int, got {k!r}")
    try:
        k = operator.index(k)
    except TypeError:
        raise TypeError(f"{fn}: k must be an int, got {k!r}") from None
    n = src.shape[-1]
    if not 0 <= k <= n:
        raise ValueError(f"{fn}: k = {k} is not in [0, {n}] (the row length)")
    shape = tuple(src.shape[:-1]) + (k,)
    index_dtype = src.index_dtype()
    _check_index_range(fn, src, index_dtype)
    values = src.new(shape, src.dtype)
    indices = src.new(shape, index_dtype)
    if values is None or indices is None:
        raise TypeError(f"{fn}: cannot make new arrays of a {src.kind} (use torch, cupy, jax, "
                        "numba or numpy arrays)")
    rows = _product(src.shape[:-1])
    if rows != 0 and k != 0:
        key_code = _arrays.CODES[src.dtype]
        index_code = _arrays.CODES[_arrays.INDEX_DTYPES[index_dtype][0]]
        if src.device_type != "cuda":
            _core.topk(False, src.ptr(), rows, n, k, values.ptr(), indices.ptr(), key_code,
                       index_code, largest, 0, 0, 0, -1)
        else:
            stream = src.stream()
            ws_ptr, ws_bytes, owner = _workspace(src, _core.topk_workspace_bytes(
                rows, n, k, key_code, index_code, largest, src.device))
            _core.topk(True, src.ptr(), rows, n, k, values.ptr(), indices.ptr(), key_code,
                       index_code, largest, stream, ws_ptr, ws_bytes, src.device)
            del owner  # freed into its allocator after the call was enqueued: stream-ordered
    return TopKResult(*_finish(values, indices))


def sort_segments(x, offsets, *, descending=False, stable=False, out=None, inplace=False):
    """Sorts each segment of the 1-d array `x` on its own: segment i is
    ``x[offsets[i]:offsets[i + 1]]`` for i < len(offsets) - 1 (CSR offsets, as CUB's
    DeviceSegmentedSort and ragged rows take them); keys outside the segments stay where they are.

    offsets: a 1-d array of x's kind and device of non-decreasing int32, uint32, int64 or uint64
        offsets into x (len(offsets) - 1 segments; segments may be empty or of any length).
    descending: largest first. stable: equal keys keep their order within their segment.
    out: an array of x's kind, shape, dtype and device to write the result to (may be x).
    inplace: sort x itself and return it (not for jax.Array).

    Returns the array with its segments sorted: by default a new copy of x. On the GPU the C++
    sort_segments runs; it reads the offsets' first, last and bins back to the host, so the call
    synchronises the caller's stream (as CUB's segmented sort does) and cannot be captured in a
    CUDA graph. Host arrays go through sort_segments_host. Offsets that decrease, or that point
    past x, raise bitonic.Error (a RuntimeError) naming the problem, x untouched.
    """
    fn = "bitonic.sort_segments"
    _check_flags(fn, descending=descending, stable=stable)
    src = _keys(fn, x, -1)
    if len(src.shape) != 1:
        raise ValueError(f"{fn}: x must be 1-d (segments of one array), got shape "
                         f"{tuple(src.shape)}")
    off = _arrays.wrap(offsets, fn)
    if off.dtype not in _arrays.OFFSET_DTYPES:
        raise TypeError(f"{fn}: offsets have dtype {off.dtype_repr}; supported: "
                        f"{', '.join(_arrays.OFFSET_DTYPES)}")
    if len(off.shape) != 1 or off.shape[0] < 1:
        raise ValueError(f"{fn}: offsets must be 1-d with at least one entry (len = segments + "
                         f"1), got shape {tuple(off.shape)}")
    if not off.contiguous:
        raise ValueError(f"{fn}: offsets are not contiguous; pass a contiguous copy")
    if type(off) is not type(src) or off.kind != src.kind:
        raise TypeError(f"{fn}: offsets must be a {src.kind} like x, got a {off.kind}")
    if (off.device_type, off.device) != (src.device_type, src.device):
        raise ValueError(f"{fn}: offsets are on {off.device_type}:{off.device}, x on "
                         f"{src.device_type}:{src.device}; they must be on the same device")
    (dst,) = _materialise(fn, (src, _target(fn, src, x, out, inplace, "out")))
    num_segments = off.shape[0] - 1
    if num_segments == 0:
        return _finish(dst)[0]
    key_code = _arrays.CODES[dst.dtype]
    offset_code = _arrays.CODES[_arrays.OFFSET_DTYPES[off.dtype]]
    if dst.device_type != "cuda":
        _core.sort_segments(False, dst.ptr(), off.ptr(), num_segments, key_code, offset_code,
                            descending, stable, 0, 0, 0, -1)
        return _finish(dst)[0]
    stream = dst.stream()
    ws_ptr, ws_bytes, owner = _workspace(dst, _core.segments_workspace_bytes(
        dst.shape[0], num_segments, key_code, stable, dst.device))
    _core.sort_segments(True, dst.ptr(), off.ptr(), num_segments, key_code, offset_code,
                        descending, stable, stream, ws_ptr, ws_bytes, dst.device)
    del owner  # freed into its allocator after the sort was enqueued: stream-ordered
    return _finish(dst)[0]


for _f in (sort, argsort, sort_pairs, topk, sort_segments):
    if _f.__doc__:  # None under python -OO
        _f.__doc__ += _COMMON_DOC
del _f


def _product(values):
    result = 1
    for v in values:
        result *= v
    return result


def _check_flags(fn, **flags):
    for name, value in flags.items():
        if value not in (True, False):  # bool, numpy.bool_, 0 or 1
            raise TypeError(f"{fn}: {name} must be a bool, got {value!r}")


def _keys(fn, x, dim, name="x"):
    src = _arrays.wrap(x, fn)
    _check_array(fn, src, name, dim)
    return src


def _check_array(fn, a, name, dim):
    """TypeError/ValueError for what the sorts cannot take; runs before anything is written."""
    if a.dtype is None:
        raise TypeError(f"{fn}: {name} has dtype {a.dtype_repr}; supported key types: "
                        f"{', '.join(_arrays.DTYPES)}")
    ndim = len(a.shape)
    if ndim == 0:
        raise ValueError(f"{fn}: {name} is 0-d; a sort needs at least one axis")
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"{fn}: dim must be an int, got {dim!r}")
    if dim not in (-1, ndim - 1):
        raise ValueError(f"{fn}: sorts along the last axis only (dim=-1 or {ndim - 1} for "
                         f"{name} of {ndim} dims), got dim={dim}; move that axis last and make "
                         "the array contiguous first")
    if not a.contiguous:
        raise ValueError(f"{fn}: {name} is not C-contiguous; pass a contiguous copy "
                         "(x.contiguous(), cupy.ascontiguousarray, numpy.ascontiguousarray)")
    if a.device_type not in ("cuda", "cpu"):
        raise ValueError(f"{fn}: {name} is on {a.device_type}; bitonic sorts CUDA device memory "
                         "or host memory")


def _check_same(fn, src, other, name, like, same_dtype=True):
    """`other` (named `name`) is of src's kind, shape and device, and dtype when same_dtype."""
    if type(other) is not type(src) or other.kind != src.kind:
        raise TypeError(f"{fn}: {name} must be a {src.kind} like {like}, got a {other.kind}")
    if tuple(other.shape) != tuple(src.shape) or (same_dtype and other.dtype != src.dtype):
        raise ValueError(f"{fn}: {name} has {other.dtype_repr} {tuple(other.shape)}, {like} has "
                         f"{src.dtype_repr} {tuple(src.shape)}; they must match")
    if (other.device_type, other.device) != (src.device_type, src.device):
        raise ValueError(f"{fn}: {name} is on {other.device_type}:{other.device}, {like} on "
                         f"{src.device_type}:{src.device}; they must be on the same device")


def _check_writeable(fn, a, name):
    if a.immutable:
        raise TypeError(f"{fn}: a {a.kind} is immutable; sort it out of place")
    if not a.writeable:
        raise ValueError(f"{fn}: {name} (a {a.kind}) is read-only")


def _pair(fn, out, names):
    """out= of a call that writes two arrays: None, or a pair of them."""
    if out is None:
        return None, None
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"{fn}: out must be a pair {names}, got {type(out).__name__}")
    return out


def _target(fn, src, x, out, inplace, name):
    """The checked adapter a sort writes src's data to: src itself (inplace), out's, or None (a
    new copy, made by _materialise once every check has passed)."""
    if inplace and out is not None:
        raise ValueError(f"{fn}: pass inplace=True or out=, not both")
    if inplace:
        _check_writeable(fn, src, "the array")
        return src
    if out is None:
        return None
    if out is x:
        dst = src
    else:
        dst = _arrays.wrap(out, fn)
        _check_array(fn, dst, name, -1)
        _check_same(fn, src, dst, name, "its input")
    _check_writeable(fn, dst, name)
    return dst


def _materialise(fn, *pairs):
    """For each (src, dst) of _target, dst holding src's data: a new copy when dst is None, src
    copied into it otherwise. The new copies come first, so that a kind that cannot make one is
    refused before any array of the caller's is written."""
    made = []
    for src, dst in pairs:
        if dst is None:
            dst = src.copy()
            if dst is None:
                raise TypeError(f"{fn}: cannot make a new {src.kind}; pass inplace=True or out= "
                                "(or use torch, cupy, jax, numba or numpy arrays)")
        made.append(dst)
    for src, dst in pairs:
        if dst is not None and dst is not src:  # out=
            src.copy_into(dst)
    return made


def _index_target(fn, src, out, name, iota):
    """The checked adapter of indices for src (out=), or None for a new one; `iota`: the call
    writes 0, 1, ... into it first (sort_pairs' values), which its kind must be able to do."""
    if out is None:
        return None
    dst = _arrays.wrap(out, fn)
    if dst.dtype not in _arrays.INDEX_DTYPES:
        raise TypeError(f"{fn}: {name} has dtype {dst.dtype_repr}; indices are "
                        f"{', '.join(_arrays.INDEX_DTYPES)}")
    _check_array(fn, dst, name, -1)
    _check_same(fn, src, dst, name, "x", same_dtype=False)
    _check_writeable(fn, dst, name)
    _check_index_range(fn, src, dst.dtype)
    if iota and not dst.writes_indices:
        raise TypeError(f"{fn}: cannot write indices into a {dst.kind}; use torch, cupy, numba or "
                        "numpy arrays")
    return dst


def _check_index_range(fn, src, dtype):
    limit = _arrays.INDEX_DTYPES[dtype][1]
    if src.shape[-1] > limit:
        raise ValueError(f"{fn}: rows of {src.shape[-1]} keys have positions past {dtype}")


def _indices(fn, src, dst, iota):
    """dst (out=), or a new index array of src's kind; 0, 1, ... in each row when `iota` (the
    values sort_pairs moves with the keys)."""
    if dst is None:
        dtype = src.index_dtype()
        _check_index_range(fn, src, dtype)
        dst = src.new(tuple(src.shape), dtype, iota)
        if dst is None:
            raise TypeError(f"{fn}: cannot make an index array of a {src.kind}; pass out= (or "
                            "use torch, cupy, jax, numba or numpy arrays)")
    elif iota:
        dst.fill_iota()
    return dst


def _run(op, keys, second, descending, stable, sorts_rows_of_one=False, third=None):
    """The C++ entry point `op` on every row of keys (and of second: values or indices; of third:
    SORT_INDICES' sorted keys), on the keys' stream with scratch from their framework's allocator
    where it has one."""
    shape = keys.shape
    n = shape[-1]
    rows = _product(shape[:-1])
    if rows == 0 or n < (1 if sorts_rows_of_one else 2):
        return
    key_code = _arrays.CODES[keys.dtype]
    if second is None:
        second_ptr, second_code = 0, key_code
    else:
        second_ptr = second.ptr()
        second_code = _arrays.CODES[second.dtype]
        if op == ARGSORT or op == SORT_INDICES:
            second_code = _arrays.CODES[_arrays.INDEX_DTYPES[second.dtype][0]]
    if keys.device_type != "cuda":
        _core.run(op, False, keys.ptr(), second_ptr, rows, n, key_code, second_code, descending,
                  stable, 0, 0, 0, -1)
        return
    stream = keys.stream()
    ws_ptr, ws_bytes, owner = _workspace(
        keys, _scratch_bytes(op, n, key_code, second_code, stable, keys.device, rows))
    _core.run(op, True, keys.ptr(), second_ptr, rows, n, key_code, second_code, descending,
              stable, stream, ws_ptr, ws_bytes, keys.device,
              third.ptr() if third is not None else 0)
    del owner  # freed into its allocator after the sort was enqueued: stream-ordered


#: _core.workspace_bytes, remembered: the bytes depend only on the arguments (the device's kind
#: fixed for the process), and a dictionary lookup costs a fraction of the C++ call (an in-place
#: torch sort of 2^16 keys: 4.9 -> 2.8 us over the C++ call; README, Python).
_scratch_bytes = functools.lru_cache(maxsize=4096)(_core.workspace_bytes)


def _workspace(a, need):
    """(pointer, bytes, owner) of `need` bytes of scratch from a's framework allocator, the owner
    kept alive until the call is enqueued; (0, 0, None) when none is needed or a's kind has no
    allocator (the library's pool provides it)."""
    if need:
        provided = a.workspace(need)
        if provided is not None:
            (ptr, owner) = provided
            return ptr, need, owner
    return 0, 0, None


def _finish(*arrays):
    """The arrays to hand back, once the work is enqueued on the first one's stream (JAX and
    other DLPack producers: finished)."""
    first = arrays[0]
    if first.device_type != "cuda" or not any(a.waits_in_finish for a in arrays):
        return tuple(a.x for a in arrays)
    stream = first.stream()
    return tuple(a.finish(stream) for a in arrays)


def workspace_bytes(n, dtype="float32", device=-1, *, stable=False, values=None, indices=None):
    """Bytes of scratch a call on `n` keys of `dtype` needs on `device` (-1: the current one) so
    that it allocates nothing; 0 where it sorts in place. By default for ``sort``; with
    ``values=`` a dtype, for ``sort_pairs`` with values of it (and ``sort(return_indices=True)``
    with values="int64"); with ``indices=`` "int64" or "int32" (or unsigned), for ``argsort``.
    Needs a CUDA device."""
    op, second = SORT, dtype
    if values is not None and indices is not None:
        raise TypeError("bitonic.workspace_bytes: values= or indices=, not both")
    if values is not None:
        if values not in _arrays.WIDE_DTYPES:
            raise TypeError(f"bitonic.workspace_bytes: values {values!r}; supported: "
                            f"{', '.join(_arrays.WIDE_DTYPES)}")
        op, second = SORT_PAIRS, values
    elif indices is not None:
        if indices not in _arrays.INDEX_DTYPES:
            raise TypeError(f"bitonic.workspace_bytes: indices {indices!r}; supported: "
                            f"{', '.join(_arrays.INDEX_DTYPES)}")
        op, second = ARGSORT, _arrays.INDEX_DTYPES[indices][0]
    for name in (dtype, second):
        if name not in _arrays.CODES:
            raise TypeError(f"bitonic.workspace_bytes: dtype {name!r}; supported: "
                            f"{', '.join(_arrays.DTYPES)}")
    return _core.workspace_bytes(op, n, _arrays.CODES[dtype], _arrays.CODES[second], stable,
                                 device)


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
