"""Device arrays: torch, cupy, jax (and numba, and any DLPack or CUDA Array Interface producer)
against numpy.sort / torch.sort, in place and out of place, on non-default streams, inside a CUDA
graph. Every test skips without a CUDA device or without its framework."""

import time

import numpy as np
import pytest
from conftest import (DTYPES, SEED, assert_sorted_like, edge_sizes, make_keys, needs_gpu,
                      reference_sort, stable_order)

import bitonic

# Sizes past one L2 block of four-byte keys (2^22 on an H100) need scratch: the workspace paths.
LARGE = [(1 << 20) + 3, 1 << 23]
SIZES = edge_sizes(12)[::5] + [(1 << 16), (1 << 16) + 1, (1 << 20) + 3]


def check(result, expected, descending):
    """result equals numpy.sort's `expected` (reversed for descending); NaNs compare equal."""
    want = expected[..., ::-1] if descending else expected
    assert np.array_equal(result, want, equal_nan=result.dtype.kind == "f")


def torch_dtype(torch, name):
    return getattr(torch, name)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_torch(torch, dtype, descending):
    def also_torch_sort(x, expected):
        if dtype in ("int32", "int64", "float32", "float64"):  # torch.sort's types everywhere
            # Without the NaNs: torch.sort on CUDA puts NaNs with the sign bit set first.
            keep = ~torch.isnan(x) if x.is_floating_point() else torch.ones_like(x, dtype=bool)
            values = torch.sort(x[keep], descending=descending).values.cpu().numpy()
            check(values, expected[~np.isnan(expected)] if expected.dtype.kind == "f" else expected,
                  descending)

    sort_three_ways(dtype, descending, lambda h: torch.from_numpy(h).cuda(),
                    lambda a: a.cpu().numpy(), torch.empty_like, torch.Tensor, also_torch_sort)


def test_torch_bfloat16(torch):
    """bfloat16 (numpy has none): sort, stable argsort, sort_pairs and topk of torch tensors
    against numpy on the same keys as float32 (exact, same order and ties), NaNs and zeros too."""
    host = make_keys(5000, "float32")
    x = torch.from_numpy(host).cuda().to(torch.bfloat16)
    as_f32 = x.float().cpu().numpy()
    bits16 = x.view(torch.int16).cpu().numpy()
    for descending in (False, True):
        order = stable_order(as_f32, descending)
        y = bitonic.sort(x, descending=descending, stable=True)
        assert y.dtype == torch.bfloat16 and torch.equal(x.view(torch.int16).cpu(),
                                                         torch.from_numpy(bits16))
        assert np.array_equal(y.view(torch.int16).cpu().numpy(), bits16[order])
        assert np.array_equal(bitonic.argsort(x, descending=descending, stable=True).cpu().numpy(),
                              order)
        keys, values = bitonic.sort_pairs(x, torch.arange(5000, device="cuda"),
                                          descending=descending, stable=True)
        assert np.array_equal(values.cpu().numpy(), order)
        top = bitonic.topk(x.reshape(5, 1000), 17, largest=descending)
        rows = stable_order(as_f32.reshape(5, 1000), descending)[:, :17]
        assert np.array_equal(top.indices.cpu().numpy(), rows)
        assert np.array_equal(top.values.view(torch.int16).cpu().numpy(),
                              np.take_along_axis(bits16.reshape(5, 1000), rows, axis=-1))


def sort_three_ways(dtype, descending, to_device, to_host, empty_like, kind, extra=None):
    """For each of SIZES: out of place (x untouched, the result of x's kind, dtype and device),
    into out=, then in place; each against numpy.sort."""
    for n in SIZES:
        host = make_keys(n, dtype)
        expected = reference_sort(host)
        x = to_device(host)
        y = bitonic.sort(x, descending=descending)
        assert isinstance(y, kind) and y.dtype == x.dtype and y.device == x.device
        assert_sorted_like(to_host(y), host, descending)
        assert np.array_equal(to_host(x).view(np.uint8), host.view(np.uint8)), "x changed"
        if extra is not None:
            extra(x, expected)
        out = empty_like(x)
        assert bitonic.sort(x, descending=descending, out=out) is out
        check(to_host(out), expected, descending)
        assert bitonic.sort(x, descending=descending, inplace=True) is x
        check(to_host(x), expected, descending)


@pytest.mark.parametrize("dtype", DTYPES)
def test_large_with_workspace(torch, cupy, dtype):
    """Past one L2 block: scratch from torch's and cupy's allocators."""
    n = LARGE[1]
    host = make_keys(n, dtype)
    expected = reference_sort(host)
    for descending in (False, True):
        check(bitonic.sort(torch.from_numpy(host).cuda(), descending=descending).cpu().numpy(),
              expected, descending)
        check(cupy.asnumpy(bitonic.sort(cupy.asarray(host), descending=descending)), expected,
              descending)


def test_torch_rows_and_errors(torch):
    host = make_keys(9 * 1000, "float32").reshape(9, 1000)
    x = torch.from_numpy(host).cuda()
    assert_sorted_like(bitonic.sort(x, dim=1).cpu().numpy(), host)
    before = x.clone()
    for bad, error in ((x.to(torch.complex64), TypeError), (x.bool(), TypeError),
                       (x.t(), ValueError), (x[:, ::2], ValueError)):
        with pytest.raises(error):
            bitonic.sort(bad, inplace=True)
    with pytest.raises(ValueError, match="same device"):
        bitonic.sort(x, out=torch.empty(x.shape, dtype=x.dtype))
    with pytest.raises(ValueError, match="last axis"):
        bitonic.sort(x, dim=0, inplace=True)
    assert torch.equal(x.view(torch.int32), before.view(torch.int32))  # bit for bit: NaNs too
    g = x.clone().requires_grad_(True)
    assert not bitonic.sort(g).requires_grad  # no autograd: a plain result


@pytest.mark.parametrize("dtype", DTYPES)
def test_out_of_place_tiny_and_cluster_sizes(torch, cupy, dtype):
    """1-d GPU results are sorted from x straight into a new empty array (the C++ sort from d_in
    to d_out): every key written at n = 1 and 2, x untouched, and at the one-cluster sizes, whose
    plan copies first."""
    for n in (0, 1, 2, 3, 16384, 65536, (1 << 17) + 1):
        host = make_keys(n, dtype)
        for x, to_host in ((torch.from_numpy(host).cuda(), lambda a: a.cpu().numpy()),
                           (cupy.asarray(host), cupy.asnumpy)):
            for descending in (False, True):
                assert_sorted_like(to_host(bitonic.sort(x, descending=descending)), host,
                                   descending)
                assert_sorted_like(to_host(bitonic.sort(x, descending=descending, stable=True)),
                                   host, descending)
            assert np.array_equal(to_host(x).view(np.uint8), host.view(np.uint8)), "x changed"


def test_torch_cpu_tensor():
    torch = pytest.importorskip("torch")
    for dtype in ("int32", "int64", "float32", "float64"):
        host = make_keys(5000, dtype)
        x = torch.from_numpy(host.copy())
        y = bitonic.sort(x, descending=True)
        assert isinstance(y, torch.Tensor) and y.device.type == "cpu"
        assert_sorted_like(y.numpy(), host, descending=True)
        assert bitonic.sort(x, inplace=True) is x
        assert_sorted_like(x.numpy(), host)


def test_torch_non_default_stream(torch):
    """The sort runs on the caller's current stream, after the work already there, and returns
    without waiting for it (no device-wide sync)."""
    n = 1 << 23
    host = make_keys(n, "float32", special=False)
    src = torch.from_numpy(host).cuda()
    x = torch.empty_like(src)
    bitonic.sort(src.clone(), inplace=True)  # kernels loaded outside the timing below
    torch.cuda.synchronize()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        assert bitonic._arrays.TorchTensor(x).stream() == stream.cuda_stream
        torch.cuda._sleep(200_000_000)  # ~0.1 s of spinning on `stream` only
        x.copy_(src)  # on `stream` after the spin: a sort on another stream would race it
        start = time.perf_counter()
        y = bitonic.sort(x)
        elapsed = time.perf_counter() - start
        still_busy = not stream.query()
    assert still_busy, "the stream finished during the call: did the call wait for it?"
    assert elapsed < 0.05, f"the call took {elapsed:.3f} s: did it wait for the stream?"
    stream.synchronize()
    assert torch.equal(y, torch.sort(src).values)


def test_torch_scratch_from_caching_allocator(torch):
    n = 1 << 23
    if bitonic.workspace_bytes(n, "float32") == 0:
        pytest.skip("this device sorts 2^23 keys in place: no scratch to take")
    bitonic.release_cached_memory()
    x = torch.rand(n, device="cuda")
    y = bitonic.sort(x)
    torch.cuda.synchronize()
    assert bitonic.cached_memory_bytes() == 0, "scratch came from the library's pool"
    assert torch.equal(y, torch.sort(x).values)


def test_torch_cuda_graph_capture(torch):
    n = 1 << 23
    need = bitonic.workspace_bytes(n, "float32")
    static_in = torch.rand(n, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up outside the capture, as torch asks
        for _ in range(2):
            bitonic.sort(static_in)
    torch.cuda.current_stream().wait_stream(side)
    bitonic.release_cached_memory()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = bitonic.sort(static_in)  # copy + workspace from torch's graph pool + sort
    assert bitonic.cached_memory_bytes() == 0 or need == 0
    for trial in range(3):
        data = torch.rand(n, device="cuda", generator=torch.Generator("cuda").manual_seed(trial))
        static_in.copy_(data)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(static_out, torch.sort(data).values), f"replay {trial}"


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_cupy(cupy, dtype, descending):
    sort_three_ways(dtype, descending, cupy.asarray, cupy.asnumpy, cupy.empty_like, cupy.ndarray)


SPIN = r"""extern "C" __global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {}
}"""


def test_cupy_non_default_stream_and_allocator(cupy):
    n = 1 << 23
    host = make_keys(n, "float32", special=False)
    src = cupy.asarray(host)
    x = cupy.empty_like(src)
    bitonic.sort(src.copy(), inplace=True)
    cupy.cuda.Device().synchronize()
    bitonic.release_cached_memory()
    spin = cupy.RawKernel(SPIN, "spin")
    with cupy.cuda.Stream(non_blocking=True) as stream:
        spin((1,), (1,), (np.int64(200_000_000),))
        x[...] = src
        y = bitonic.sort(x)
        still_busy = not stream.done
    assert still_busy, "the stream finished during the call: did the call wait for it?"
    stream.synchronize()
    assert cupy.array_equal(y, cupy.sort(src))
    if bitonic.workspace_bytes(n, "float32"):
        assert bitonic.cached_memory_bytes() == 0, "scratch came from the library's pool"


@pytest.mark.parametrize("dtype", DTYPES)
def test_jax(jax, dtype):
    jnp = jax.numpy
    for n in SIZES[::2] + LARGE:
        host = make_keys(n, dtype)
        expected = reference_sort(host)
        x = jnp.asarray(host)
        assert x.dtype == host.dtype
        for descending in (False, True):
            y = bitonic.sort(x, descending=descending)
            assert isinstance(y, jax.Array) and y.dtype == x.dtype
            check(np.asarray(y), expected, descending)
        assert np.array_equal(np.asarray(x).view(np.uint8), host.view(np.uint8)), "x changed"
        with pytest.raises(TypeError, match="immutable"):
            bitonic.sort(x, inplace=True)


def test_jax_rows_and_later_ops(jax):
    jnp = jax.numpy
    host = make_keys(4 * 3000, "float32", special=False).reshape(4, 3000)
    y = bitonic.sort(jnp.asarray(host))
    assert np.array_equal(np.asarray(y + 1), reference_sort(host) + 1)  # JAX sees the result


class DeviceDLPack:
    """Only DLPack: the generic producer path, with the consumer's stream passed to __dlpack__."""

    def __init__(self, a):
        self.a = a
        self.streams = []

    def __dlpack__(self, stream=None, **kwargs):
        self.streams.append(stream)
        return self.a.__dlpack__(stream=stream, **kwargs)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


class DeviceCAI:
    def __init__(self, a):
        self.__cuda_array_interface__ = a.__cuda_array_interface__


@pytest.mark.parametrize("dtype", DTYPES)
def test_generic_producers(torch, cupy, dtype):
    host = make_keys(70_000, dtype)
    t = torch.from_numpy(host).cuda()
    wrapped = DeviceDLPack(t)
    assert bitonic.sort(wrapped, inplace=True) is wrapped
    assert wrapped.streams and all(s not in (None, 0) for s in wrapped.streams)
    assert_sorted_like(t.cpu().numpy(), host)
    c = cupy.asarray(host)
    assert bitonic.sort(DeviceCAI(c), inplace=True, descending=True) is not None
    assert_sorted_like(cupy.asnumpy(c), host, descending=True)


def test_numba():
    needs_gpu()
    cuda = pytest.importorskip("numba.cuda")
    host = make_keys(50_000, "float64")
    x = cuda.to_device(host)
    y = bitonic.sort(x)
    assert_sorted_like(y.copy_to_host(), host)
    assert bitonic.sort(x, inplace=True) is x
    assert_sorted_like(x.copy_to_host(), host)


def test_seed_is_fixed():
    assert SEED == 20261125  # printed in pytest's header: reruns see the same keys
