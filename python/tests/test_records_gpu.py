"""argsort, sort(return_indices=True), sort_pairs and stable sorts of device arrays (torch, cupy,
jax, numba) against numpy's stable argsort of the same keys (bit for bit, NaNs and -0.0 included)
and against torch.sort/torch.argsort(stable=True) on NaN-free keys (CUDA torch.sort puts NaNs
with the sign bit first). Unstable results are checked as a permutation. Every test skips
without a CUDA device or without its framework."""

import numpy as np
import pytest
from conftest import (DTYPES, FLOATS, assert_records, bits, edge_sizes, gathered, make_keys,
                      needs_gpu, stable_order)

import bitonic

# Around the network's boundaries and the word sort's regimes; past one L2 block of 8-byte words
# the record sorts need scratch (the workspace path).
SIZES = edge_sizes(12)[::5] + [1 << 14, (1 << 16) + 1, (1 << 20) + 3]
LARGE = 1 << 23
TORCH_SORTS = ("int32", "int64", "float32", "float64")  # torch.sort's key types on CUDA


def framework(request, name):
    """(to_device, to_host, kind, module) for a framework by fixture name."""
    mod = request.getfixturevalue(name)
    if name == "torch":
        return (lambda h: mod.from_numpy(h).cuda()), (lambda a: a.cpu().numpy()), mod.Tensor, mod
    if name == "cupy":
        return mod.asarray, mod.asnumpy, mod.ndarray, mod
    raise ValueError(name)


def nan_free(host):
    """host with its NaNs replaced by +0.0 (-0.0 and +0.0 still tie): keys torch orders as we do."""
    host = host.copy()
    if host.dtype.kind == "f":
        host[np.isnan(host)] = 0
    return host


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["torch", "cupy"])
def test_argsort(request, name, dtype, descending):
    to_device, to_host, kind, mod = framework(request, name)
    for n in SIZES + [LARGE]:
        host = make_keys(n, dtype)
        x = to_device(host)
        i = to_host(bitonic.argsort(x, descending=descending, stable=True))
        assert np.array_equal(i, stable_order(host, descending)), n
        i = bitonic.argsort(x, descending=descending)  # not stable: any order among equal keys
        assert isinstance(i, kind) and str(i.dtype).endswith("int64") and i.device == x.device
        i = to_host(i)
        assert_records(gathered(host, i), i, host, descending)
        assert np.array_equal(bits(to_host(x)), bits(host)), "x changed"
    out = to_device(np.full(1000, 7, np.int32))
    host = make_keys(1000, dtype)
    assert bitonic.argsort(to_device(host), descending=descending, stable=True, out=out) is out
    assert np.array_equal(to_host(out), stable_order(host, descending))
    if name == "torch" and dtype in TORCH_SORTS:
        host = nan_free(make_keys(70_000, dtype))
        x = to_device(host)
        assert mod.equal(bitonic.argsort(x, descending=descending, stable=True),
                         mod.argsort(x, descending=descending, stable=True))


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["torch", "cupy"])
def test_sort_return_indices(request, name, dtype, descending):
    to_device, to_host, kind, mod = framework(request, name)
    for n in SIZES + ([] if descending else [LARGE]):
        host = make_keys(n, dtype)
        x = to_device(host)
        for stable in (False, True):
            values, indices = bitonic.sort(x, descending=descending, stable=stable,
                                           return_indices=True)
            assert isinstance(values, kind) and isinstance(indices, kind)
            assert str(indices.dtype).endswith("int64")
            assert_records(to_host(values), to_host(indices), host, descending, stable)
        assert np.array_equal(bits(to_host(x)), bits(host)), "x changed"
    host = make_keys(3 * 1000, dtype).reshape(3, 1000)
    x = to_device(host)
    result = bitonic.sort(x, descending=descending, inplace=True, return_indices=True)
    assert result.values is x
    assert_records(to_host(x), to_host(result.indices), host, descending)
    if name == "torch" and dtype in TORCH_SORTS:
        host = nan_free(make_keys(70_000, dtype))
        x = to_device(host)
        ours = bitonic.sort(x, descending=descending, stable=True, return_indices=True)
        theirs = mod.sort(x, descending=descending, stable=True)
        assert mod.equal(ours.values, theirs.values) and mod.equal(ours.indices, theirs.indices)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["torch", "cupy"])
def test_sort_pairs(request, name, dtype):
    to_device, to_host, kind, mod = framework(request, name)
    for n in SIZES[::2] + [LARGE]:
        host = make_keys(n, dtype)
        for value_dtype in ("int64", "uint32", "float32"):
            if n == LARGE and value_dtype != "int64":
                continue  # the checks of 2^23 records take seconds each
            values = np.arange(n).astype(value_dtype)
            for descending in (False, True):
                for stable in (False, True):
                    k, v = bitonic.sort_pairs(to_device(host), to_device(values),
                                              descending=descending, stable=stable)
                    assert isinstance(k, kind) and isinstance(v, kind)
                    assert_records(to_host(k), to_host(v).astype(np.int64), host, descending,
                                   stable)
    keys, values = to_device(host), to_device(np.arange(host.size, dtype=np.uint64))
    out = (to_device(np.empty_like(host)), to_device(np.empty(host.size, np.uint64)))
    result = bitonic.sort_pairs(keys, values, stable=True, out=out)
    assert result.keys is out[0] and result.values is out[1]
    assert_records(to_host(out[0]), to_host(out[1]).astype(np.int64), host, stable=True)
    result = bitonic.sort_pairs(keys, values, descending=True, inplace=True)
    assert result.keys is keys and result.values is values
    assert_records(to_host(keys), to_host(values).astype(np.int64), host, descending=True)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ["torch", "cupy"])
def test_stable_sort_of_floats(request, name, dtype):
    """-0.0 and +0.0, and NaNs of either sign keep their input order: the keys in their stable
    order, bit for bit."""
    to_device, to_host, kind, mod = framework(request, name)
    for n in SIZES + [LARGE]:
        host = make_keys(n, dtype)
        for descending in (False, True):
            y = bitonic.sort(to_device(host), stable=True, descending=descending)
            want = gathered(host, stable_order(host, descending))
            assert np.array_equal(bits(to_host(y)), bits(want)), (n, descending)


SPIN = r"""extern "C" __global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {}
}"""


def test_torch_records_on_a_side_stream(torch):
    """On the caller's current stream, after the work already there, returning without waiting
    for it; the indices' arange and the scratch on that stream too."""
    n = 1 << 23
    host = make_keys(n, "float32")
    src = torch.from_numpy(host).cuda()
    x = torch.empty_like(src)
    for _ in range(2):  # kernels loaded and the caching allocator warm before what follows
        bitonic.sort_pairs(src, bitonic.sort(src, return_indices=True).indices, stable=True)
        bitonic.argsort(src)
    torch.cuda.synchronize()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        torch.cuda._sleep(200_000_000)  # ~0.1 s of spinning on `stream` only
        x.copy_(src)  # on `stream` after the spin: work on another stream would race it
        i = bitonic.argsort(x)
        values, indices = bitonic.sort(x, return_indices=True)
        keys, moved = bitonic.sort_pairs(x, i, stable=True)
        still_busy = not stream.query()
    assert still_busy, "the stream finished during the calls: did a call wait for it?"
    stream.synchronize()
    want = stable_order(host)
    assert np.array_equal(i.cpu().numpy(), want)
    assert_records(values.cpu().numpy(), indices.cpu().numpy(), host)
    assert np.array_equal(bits(keys.cpu().numpy()), bits(gathered(host, want)))
    assert np.array_equal(moved.cpu().numpy(), want[want])  # i gathered through itself


def test_torch_records_scratch_from_caching_allocator(torch):
    n = 1 << 23
    if bitonic.workspace_bytes(n, "float32", indices="int64") == 0:
        pytest.skip("no scratch at 2^23 keys on this device")
    x = torch.rand(n, device="cuda")
    bitonic.argsort(x)
    torch.cuda.synchronize()
    bitonic.release_cached_memory()
    i = bitonic.argsort(x, stable=True)
    result = bitonic.sort(x, return_indices=True)
    torch.cuda.synchronize()
    assert bitonic.cached_memory_bytes() == 0, "scratch came from the library's pool"
    assert torch.equal(i, torch.argsort(x, stable=True))
    assert torch.equal(result.values, torch.sort(x).values)


def test_torch_cuda_graph_capture_of_records(torch):
    """sort(return_indices=True) and argsort captured into one CUDA graph: the arange, the
    workspace (from torch's graph pool) and the sorts replay on new data."""
    n = 1 << 23
    static_in = torch.rand(n, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up outside the capture, as torch asks
        for _ in range(2):
            bitonic.sort(static_in, return_indices=True)
            bitonic.argsort(static_in)
    torch.cuda.current_stream().wait_stream(side)
    bitonic.release_cached_memory()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_sorted = bitonic.sort(static_in, return_indices=True)
        static_order = bitonic.argsort(static_in, descending=True)
    assert bitonic.cached_memory_bytes() == 0, "scratch came from the library's pool"
    for trial in range(3):
        data = torch.rand(n, device="cuda", generator=torch.Generator("cuda").manual_seed(trial))
        static_in.copy_(data)
        graph.replay()
        torch.cuda.synchronize()
        values, indices = static_sorted
        assert torch.equal(values, torch.sort(data).values), f"replay {trial}"
        assert torch.equal(data[indices], values), f"replay {trial}"
        assert torch.equal(data[static_order], torch.sort(data, descending=True).values)
        assert torch.equal(torch.sort(static_order).values,
                           torch.arange(n, device="cuda")), f"replay {trial}: not a permutation"


def test_torch_records_errors(torch):
    x = torch.rand(1000, device="cuda")
    before = x.clone()
    with pytest.raises(ValueError, match="same device"):
        bitonic.argsort(x, out=torch.empty(1000, dtype=torch.int64))
    with pytest.raises(TypeError, match="indices are"):
        bitonic.argsort(x, out=torch.empty(1000, dtype=torch.float32, device="cuda"))
    with pytest.raises(ValueError, match="same device"):
        bitonic.sort_pairs(x, torch.arange(1000), inplace=True)
    with pytest.raises(bitonic.Error, match="overlap"):  # views of one buffer: the C++ check
        buffer = torch.arange(2000, dtype=torch.int32, device="cuda")
        bitonic.sort_pairs(buffer[:1500], buffer[500:], inplace=True)
    assert torch.equal(x, before)


@pytest.mark.parametrize("dtype", DTYPES)
def test_jax_records(jax, dtype):
    """jax.Arrays out of place: indices int64 (the tests enable jax_enable_x64, as jnp.argsort)."""
    jnp = jax.numpy
    for n in SIZES[::2] + [LARGE]:
        host = make_keys(n, dtype)
        x = jnp.asarray(host)
        i = bitonic.argsort(x, descending=True, stable=True)
        assert isinstance(i, jax.Array) and i.dtype == jnp.int64
        assert np.array_equal(np.asarray(i), stable_order(host, descending=True))
        values, indices = bitonic.sort(x, return_indices=True, stable=True)
        assert isinstance(values, jax.Array) and isinstance(indices, jax.Array)
        assert_records(np.asarray(values), np.asarray(indices), host, stable=True)
        positions = jnp.asarray(np.arange(n, dtype=np.uint32))
        k, v = bitonic.sort_pairs(x, positions)
        assert_records(np.asarray(k), np.asarray(v).astype(np.int64), host)
        assert np.array_equal(bits(np.asarray(x)), bits(host)), "x changed"
        with pytest.raises(TypeError, match="immutable"):
            bitonic.sort_pairs(x, positions, inplace=True)


def test_numba_records():
    needs_gpu()
    cuda = pytest.importorskip("numba.cuda")
    host = make_keys(50_000, "float64")
    x = cuda.to_device(host)
    assert np.array_equal(bitonic.argsort(x, stable=True).copy_to_host(), stable_order(host))
    values, indices = bitonic.sort(x, return_indices=True, descending=True)
    assert_records(values.copy_to_host(), indices.copy_to_host(), host, descending=True)
    k, v = bitonic.sort_pairs(x, cuda.to_device(np.arange(50_000, dtype=np.int64)), stable=True)
    assert_records(k.copy_to_host(), v.copy_to_host(), host, stable=True)
