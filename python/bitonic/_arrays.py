"""What bitonic needs of an array, whatever library made it: its data pointer, shape, key type,
device, the caller's current stream, a copy of the same kind, new arrays of the same kind (for
indices), and scratch from its allocator.

One adapter per kind. PyTorch and CuPy are read through their own attributes (``data_ptr()``,
``.data.ptr``: the same zero-copy pointers DLPack hands out, at a fraction of the cost a call);
JAX and any other ``__dlpack__`` producer through DLPack, passing the consumer's stream as the
protocol asks; numba device arrays and any other ``__cuda_array_interface__`` producer through
that interface. Nothing here imports a framework: an object is recognised by the modules already
loaded, so ``import bitonic`` costs no ``import torch``.
"""

import sys

from . import _core

#: The 4- and 8-byte key types of the C++ API (bitonic.hpp's BITONIC_FOR_EACH_KEY): also the
#: types of sort_pairs' values, which move as bits.
WIDE_DTYPES = ("int32", "uint32", "int64", "uint64", "float32", "float64")
#: Every key type of the C++ API, the 1- and 2-byte ones (BITONIC_FOR_EACH_SMALL_KEY: float16 is
#: CUDA's __half, bfloat16 its __nv_bfloat16) after the others; the index is _core's code.
DTYPES = WIDE_DTYPES + ("int8", "uint8", "int16", "uint16", "float16", "bfloat16")
CODES = {name: code for code, name in enumerate(DTYPES)}
#: The C++ entry points by _core's operation codes.
OPS = ("sort", "sort_pairs", "argsort", "sort_copy", "sort_indices")
SORT, SORT_PAIRS, ARGSORT, SORT_COPY, SORT_INDICES = range(len(OPS))
#: Offset dtypes of sort_segments, with the C++ offset type whose bits they share (offsets are
#: never negative).
OFFSET_DTYPES = {"int32": "uint32", "uint32": "uint32", "int64": "uint64", "uint64": "uint64"}
#: Index dtypes argsort writes (C++ uint32_t/uint64_t indices, whose bits they share below 2^31 and
#: 2^63), with the largest row length each can index.
INDEX_DTYPES = {"int64": ("uint64", 1 << 63), "uint64": ("uint64", 1 << 64),
                "int32": ("uint32", 1 << 31), "uint32": ("uint32", 1 << 32)}

# DLPack device types (dlpack.h): host-readable ones go through sort_host, device ones through sort.
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
_DL_INT, _DL_UINT, _DL_FLOAT = 0, 1, 2
_DL_NAMES = {_DL_INT: "int", _DL_UINT: "uint", _DL_FLOAT: "float", 4: "bfloat", 5: "complex",
             6: "bool"}
# CUDA Array Interface and DLPack stream handles: 1 is the legacy default stream, 2 the per-thread
# default stream; 0 is not allowed. The CUDA runtime takes 1 and 2 as the same streams.
_LEGACY_STREAM = 1
_CAI_DTYPES = {"<i4": "int32", "<u4": "uint32", "<i8": "int64", "<u8": "uint64", "<f4": "float32",
               "<f8": "float64", "|i1": "int8", "|u1": "uint8", "<i1": "int8", "<u1": "uint8",
               "<i2": "int16", "<u2": "uint16", "<f2": "float16"}
_DL_BFLOAT = 4


def _module(name):
    return sys.modules.get(name)


def _device_kind(dl_type):
    if dl_type in (_DL_CUDA, _DL_CUDA_MANAGED):
        return "cuda"
    if dl_type in (_DL_CPU, _DL_CUDA_HOST):
        return "cpu"
    return f"DLPack device type {dl_type}"


def _c_contiguous(shape, strides, itemsize):
    """True when `strides` (in elements, DLPack's unit; None means compact) are row-major."""
    if strides is None:
        return True
    expected = 1
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != expected * itemsize:
            return False
        expected *= extent
    return True


def _iota(np, shape, dtype):
    """A host array of `shape` with 0, 1, ..., shape[-1] - 1 in every row."""
    return np.broadcast_to(np.arange(shape[-1], dtype=dtype), shape).copy()


class Adapter:
    """The common face of an array. Subclasses fill the attributes in __init__ (no side effects:
    an input that fails a check is never touched) and implement the methods they support."""

    kind = "array"
    device_type = "cpu"  # "cuda" (device or managed memory), "cpu" (host-readable) or a name
    device = -1  # CUDA device ordinal; -1 for host memory or "the current device"
    dtype = None  # one of DTYPES, or None when the array's type is not one of them
    dtype_repr = "?"  # the array's type as its library spells it, for error messages
    shape = ()
    contiguous = True
    writeable = True
    immutable = False  # JAX: arrays are values; in-place sorting of them is refused
    writes_indices = False  # fill_iota works: the kinds whose library makes arrays (new, copy)
    empty_is_free = False  # new() without iota allocates and writes nothing (torch, cupy)
    waits_in_finish = False  # finish() needs the stream (DLPack producers wait for it)

    def __init__(self, x):
        self.x = x

    def ptr(self):
        raise NotImplementedError

    def stream(self):
        """The caller's current stream on the array's device (a cudaStream_t as an int)."""
        return _LEGACY_STREAM

    def copy(self):
        """A C-contiguous copy of the same kind, made on stream(); None: this kind cannot."""
        return None

    def copy_into(self, out):
        raise TypeError(f"bitonic.sort: cannot copy a {self.kind} into out=; pass inplace=True")

    def workspace(self, nbytes):
        """Device memory from the array's own framework allocator, as (pointer, owner) with the
        owner kept alive until the sort is enqueued; None: the library's pool provides it."""
        return None

    def index_dtype(self):
        """The dtype this kind's own argsort returns (int64, as torch and numpy do)."""
        return "int64"

    def new(self, shape, dtype, iota=False):
        """A new C-contiguous array of this kind, shape and dtype on the same device, made on
        stream(): uninitialised, or with 0, 1, ..., shape[-1] - 1 in every row when `iota`.
        None: this kind cannot make one."""
        return None

    def fill_iota(self):
        """Writes 0, 1, ..., n - 1 into every row of this array, on stream()."""
        raise TypeError(f"bitonic: cannot write indices into a {self.kind}; use torch, cupy, "
                        "jax, numba or numpy arrays")

    def finish(self, stream):
        """Called after the sort is enqueued on `stream`; returns the array to give back."""
        return self.x


class NumpyArray(Adapter):
    kind = "numpy.ndarray"
    writes_indices = True

    def __init__(self, x):
        super().__init__(x)
        dt = x.dtype
        self.dtype = dt.name if dt.isnative and dt.name in CODES else None
        self.dtype_repr = str(dt) if dt.isnative else f"{dt} (non-native byte order)"
        self.shape = x.shape
        self.contiguous = x.flags.c_contiguous
        self.writeable = x.flags.writeable

    def ptr(self):
        return self.x.__array_interface__["data"][0]

    def copy(self):
        return NumpyArray(self.x.copy(order="C"))

    def copy_into(self, out):
        _module("numpy").copyto(out.x, self.x)

    def new(self, shape, dtype, iota=False):
        np = _module("numpy")
        return NumpyArray(_iota(np, shape, dtype) if iota else np.empty(shape, dtype=dtype))

    def fill_iota(self):
        self.x[...] = _module("numpy").arange(self.shape[-1], dtype=self.x.dtype)


class TorchTensor(Adapter):
    kind = "torch.Tensor"
    writes_indices = True
    empty_is_free = True
    _torch = None  # the module, looked up once: this adapter is on every torch call's path
    _dtypes = None
    _raw_stream = None

    def __init__(self, x):
        super().__init__(x)
        torch = TorchTensor._torch
        if torch is None:
            torch = TorchTensor._torch = _module("torch")
            TorchTensor._dtypes = {getattr(torch, n): n for n in DTYPES if hasattr(torch, n)}
            # torch's raw getter (what Triton calls) costs a fraction of current_stream(), which
            # builds a Stream object.
            TorchTensor._raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self.dtype = TorchTensor._dtypes.get(x.dtype)
        self.shape = tuple(x.shape)
        self.contiguous = x.is_contiguous()
        if x.is_cuda:  # get_device() is the index without building a torch.device
            self.device_type, self.device = "cuda", x.get_device()
        else:
            self.device_type = x.device.type  # "cpu", or another backend (refused)

    @property
    def dtype_repr(self):  # only error messages ask
        return str(self.x.dtype)

    def _same_device(self, x, dtype):
        """The adapter of x, a new contiguous tensor of `dtype` on this one's device: its fields
        are known, so none is asked of torch again."""
        made = object.__new__(TorchTensor)
        made.x, made.dtype, made.shape, made.contiguous = x, dtype, tuple(x.shape), True
        made.device_type, made.device = self.device_type, self.device
        return made

    def ptr(self):
        return self.x.data_ptr()

    def stream(self):
        # 0: the legacy default stream, which the C++ API takes as nullptr.
        if TorchTensor._raw_stream is not None:
            return TorchTensor._raw_stream(self.device)
        return TorchTensor._torch.cuda.current_stream(self.device).cuda_stream

    def copy(self):
        torch = TorchTensor._torch
        return self._same_device(self.x.detach().clone(memory_format=torch.contiguous_format),
                                 self.dtype)

    def copy_into(self, out):
        out.x.detach().copy_(self.x)

    def new(self, shape, dtype, iota=False):
        torch = TorchTensor._torch
        kind = getattr(torch, dtype)
        if iota:  # expand: a view; contiguous: one copy on the current stream (none for 1-d)
            row = torch.arange(shape[-1], dtype=kind, device=self.x.device)
            return self._same_device(row.expand(shape).contiguous(), dtype)
        return self._same_device(torch.empty(shape, dtype=kind, device=self.x.device), dtype)

    def fill_iota(self):
        torch = TorchTensor._torch
        self.x.detach().copy_(torch.arange(self.shape[-1], dtype=self.x.dtype,
                                           device=self.x.device))

    def workspace(self, nbytes):
        # The caching allocator hands out memory ordered on the current stream, where the sort
        # runs; when `owner` dies the block is reused on that stream only after the sort.
        torch = TorchTensor._torch
        owner = torch.empty(nbytes, dtype=torch.uint8, device=self.x.device)
        return owner.data_ptr(), owner


class CupyArray(Adapter):
    kind = "cupy.ndarray"
    device_type = "cuda"
    writes_indices = True
    empty_is_free = True

    def __init__(self, x):
        super().__init__(x)
        dt = x.dtype
        self.dtype = dt.name if dt.isnative and dt.name in CODES else None
        self.dtype_repr = str(dt)
        self.shape = x.shape
        self.contiguous = x.flags.c_contiguous
        self.device = x.device.id

    def _on_device(self):
        return _module("cupy").cuda.Device(self.device)

    def ptr(self):
        return self.x.data.ptr

    def stream(self):
        cupy = _module("cupy")
        if cupy.cuda.runtime.getDevice() == self.device:
            return cupy.cuda.get_current_stream().ptr
        with self._on_device():
            return cupy.cuda.get_current_stream().ptr

    def copy(self):
        with self._on_device():
            return CupyArray(self.x.copy(order="C"))

    def copy_into(self, out):
        with self._on_device():
            _module("cupy").copyto(out.x, self.x)

    def new(self, shape, dtype, iota=False):
        cupy = _module("cupy")
        with self._on_device():
            if iota:
                row = cupy.arange(shape[-1], dtype=dtype)
                return CupyArray(cupy.ascontiguousarray(cupy.broadcast_to(row, shape)))
            return CupyArray(cupy.empty(shape, dtype=dtype))

    def fill_iota(self):
        cupy = _module("cupy")
        with self._on_device():
            self.x[...] = cupy.arange(self.shape[-1], dtype=self.x.dtype)

    def workspace(self, nbytes):
        cupy = _module("cupy")
        with self._on_device():  # CuPy's pool keeps blocks per stream: reuse is stream-ordered
            owner = cupy.empty(nbytes, dtype=cupy.uint8)
        return owner.data.ptr, owner


class DLPackArray(Adapter):
    """Any ``__dlpack__`` producer (JAX has a subclass). The capsule is asked for on first use of
    ptr(), with the stream the sort will run on, so that the producer orders its pending work on
    the array before it; the capsule stays alive as long as this adapter."""

    waits_in_finish = True

    def __init__(self, x):
        super().__init__(x)
        self.kind = f"{type(x).__module__}.{type(x).__qualname__}"
        dl_type, dl_id = x.__dlpack_device__()
        self.device_type = _device_kind(int(dl_type))
        self.device = int(dl_id) if self.device_type == "cuda" else -1
        self._capsule = None
        self._info = None
        self._describe()

    def _describe(self):
        # The shape and dtype come from the capsule itself (the protocol has no other way);
        # asking for it on the consumer stream costs at most an event wait on that stream.
        info = self._export()
        self._info = info
        data, _, _, shape, strides, (code, bits, lanes), read_only = info
        names = {(_DL_INT, 32): "int32", (_DL_UINT, 32): "uint32", (_DL_INT, 64): "int64",
                 (_DL_UINT, 64): "uint64", (_DL_FLOAT, 32): "float32", (_DL_FLOAT, 64): "float64",
                 (_DL_INT, 8): "int8", (_DL_UINT, 8): "uint8", (_DL_INT, 16): "int16",
                 (_DL_UINT, 16): "uint16", (_DL_FLOAT, 16): "float16",
                 (_DL_BFLOAT, 16): "bfloat16"}
        self.dtype = names.get((code, bits)) if lanes == 1 else None
        self.dtype_repr = f"{_DL_NAMES.get(code, f'code {code} ')}{bits}" + (
            f"x{lanes}" if lanes != 1 else "")
        self.shape = tuple(shape)
        self.contiguous = _c_contiguous(self.shape, strides, 1)
        self.writeable = not read_only

    def _export(self):
        if self.device_type == "cuda":
            self._capsule = self.x.__dlpack__(stream=self.stream())
        else:
            self._capsule = self.x.__dlpack__()
        return _core.dlpack_info(self._capsule)

    def ptr(self):
        return self._info[0]

    def finish(self, stream):
        # The producer does not know the stream the sort ran on: wait for it, on that stream only.
        if self.device_type == "cuda":
            _core.stream_synchronize(stream, self.device)
        return self.x


class JaxArray(DLPackArray):
    """jax.Array: immutable, so only the out-of-place sort: jnp.copy, then that fresh buffer is
    sorted through DLPack and handed back once the sort has finished (JAX has no current stream to
    order it on, so the call waits for its own stream: no device-wide sync, but not asynchronous
    either)."""

    immutable = True

    def __init__(self, x):
        Adapter.__init__(self, x)
        self.kind = "jax.Array"
        if len(x.devices()) != 1:
            self.device_type = "several devices (a sharded jax.Array)"
            return
        dl_type, dl_id = x.__dlpack_device__()
        self.device_type = _device_kind(int(dl_type))
        self.device = int(dl_id) if self.device_type == "cuda" else -1
        dt = x.dtype
        self.dtype = dt.name if dt.name in CODES else None
        self.dtype_repr = str(dt)
        self.shape = tuple(x.shape)
        self.writeable = False
        self._capsule = self._info = None

    def ptr(self):
        if self._info is None:
            if self.device_type != "cuda":
                self.x.block_until_ready()
            try:
                self._info = self._export()
            except (TypeError, ValueError):  # a JAX that refuses the stream argument: wait here
                self.x.block_until_ready()
                self._capsule = self.x.__dlpack__()
                self._info = _core.dlpack_info(self._capsule)
        return self._info[0]

    def copy(self):
        return self._ours(_module("jax.numpy").copy(self.x))

    @staticmethod
    def _ours(x):
        made = JaxArray(x)
        made.writeable = True  # a buffer nobody else holds: ours to write
        return made

    def index_dtype(self):
        # jnp.argsort's: int64 with jax_enable_x64, else int32 (JAX has no 64-bit arrays then).
        return str(_module("jax").dtypes.canonicalize_dtype("int64"))

    def new(self, shape, dtype, iota=False):
        jnp = _module("jax.numpy")
        with _module("jax").default_device(self.x.devices().pop()):
            if iota:
                return self._ours(jnp.copy(jnp.broadcast_to(jnp.arange(shape[-1], dtype=dtype),
                                                            shape)))
            return self._ours(jnp.zeros(shape, dtype=dtype))


class CudaArrayInterface(Adapter):
    """numba device arrays and any other ``__cuda_array_interface__`` (v2/v3) producer. The sort
    runs on the producer's stream when the interface names one, else on the legacy default stream
    (numba's default), so nothing waits on the host."""

    device_type = "cuda"

    def __init__(self, x):
        super().__init__(x)
        self.kind = f"{type(x).__module__}.{type(x).__qualname__}"
        cai = x.__cuda_array_interface__
        self._cai = cai
        typestr = cai["typestr"]
        self.dtype = _CAI_DTYPES.get(typestr.replace("=", "<"))
        self.dtype_repr = typestr
        self.shape = tuple(cai["shape"])
        itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 1
        self.contiguous = _c_contiguous(self.shape, cai.get("strides"), itemsize)
        self._data, read_only = cai["data"]
        self.writeable = not read_only
        self._numba = type(x).__module__.startswith("numba")
        self.writes_indices = self._numba

    def ptr(self):
        return self._data

    def stream(self):
        stream = self._cai.get("stream")
        return stream if stream else _LEGACY_STREAM

    def copy(self):
        if not self._numba:
            return None
        cuda = _module("numba.cuda")
        copied = cuda.device_array(self.shape, dtype=self.x.dtype)
        copied.copy_to_device(self.x)  # synchronous on the legacy default stream
        return CudaArrayInterface(copied)

    def copy_into(self, out):
        if not (self._numba and out._numba):
            return super().copy_into(out)
        out.x.copy_to_device(self.x)

    def new(self, shape, dtype, iota=False):
        if not self._numba:
            return None
        np, cuda = _module("numpy"), _module("numba.cuda")
        if iota:  # synchronous copies on the legacy default stream, as copy() makes
            return CudaArrayInterface(cuda.to_device(_iota(np, shape, dtype)))
        return CudaArrayInterface(cuda.device_array(shape, dtype=dtype))

    def fill_iota(self):
        if not self._numba:
            return super().fill_iota()
        self.x.copy_to_device(_iota(_module("numpy"), self.shape, self.x.dtype))


#: Adapter classes by the exact type of arrays already wrapped, for the kinds recognised by
#: their library's class (a dictionary lookup instead of up to four isinstance checks a call).
_ADAPTER_OF_TYPE = {}


def wrap(x, caller="bitonic.sort"):
    """The adapter for `x`; TypeError naming what is accepted when there is none."""
    known = _ADAPTER_OF_TYPE.get(type(x))
    if known is not None:
        return known(x)
    np, torch, cupy, jax = (_module(n) for n in ("numpy", "torch", "cupy", "jax"))
    if np is not None and isinstance(x, np.generic):  # a NumPy scalar: refused as 0-d
        return NumpyArray(np.asarray(x))
    for module, cls, adapter in ((np, "ndarray", NumpyArray), (torch, "Tensor", TorchTensor),
                                 (cupy, "ndarray", CupyArray), (jax, "Array", JaxArray)):
        if module is not None and isinstance(x, getattr(module, cls)):
            _ADAPTER_OF_TYPE[type(x)] = adapter
            return adapter(x)
    if hasattr(x, "__cuda_array_interface__"):
        return CudaArrayInterface(x)
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        return DLPackArray(x)
    raise TypeError(
        f"{caller}: expected a torch.Tensor, cupy.ndarray, jax.Array, numba device array, "
        "numpy.ndarray or another array with __dlpack__ or __cuda_array_interface__; got "
        f"{type(x).__module__}.{type(x).__qualname__}")
