"""argsort, sort(return_indices=True) and sort_pairs of NumPy arrays, through the C++ host forms
(argsort_host, sort_pairs_host: the GPU when there is one, the CPU otherwise), against numpy's
stable argsort: stable results exactly, unstable ones as a permutation. Runs everywhere."""

import numpy as np
import pytest
from conftest import (DTYPES, FLOATS, SEED, WIDE, assert_records, bits, edge_sizes, gathered,
                      make_keys, random_sizes, stable_order)

import bitonic

SIZES = edge_sizes(10) + random_sizes(3, 60_000, SEED + 22)


def positions_as(dtype, shape):
    """0, 1, ..., n - 1 in every row, as `dtype` (exact for the sizes here, floats included)."""
    return np.broadcast_to(np.arange(shape[-1]), shape).astype(dtype, order="C")


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_argsort(dtype, descending):
    for n in SIZES:
        x = make_keys(n, dtype)
        before = x.copy()
        i = bitonic.argsort(x, descending=descending)  # not stable: any order among equal keys
        assert type(i) is np.ndarray and i.dtype == np.int64 and i.shape == x.shape
        assert_records(gathered(before, i), i, before, descending)
        i = bitonic.argsort(x, descending=descending, stable=True)
        assert np.array_equal(i, stable_order(before, descending)), n
        assert np.array_equal(bits(x), bits(before)), "x changed"
    # Into out= of every index dtype, and from a read-only array (argsort only reads the keys).
    x = make_keys(3000, dtype)
    x.flags.writeable = False
    want = stable_order(x, descending)
    for index_dtype in ("int64", "uint64", "int32", "uint32"):
        out = np.full(x.shape, 7, dtype=index_dtype)
        assert bitonic.argsort(x, descending=descending, stable=True, out=out) is out
        assert np.array_equal(out, want), index_dtype


@pytest.mark.parametrize("dtype", DTYPES)
def test_argsort_rows(dtype):
    x = make_keys(7 * 129, dtype).reshape(7, 129)
    assert np.array_equal(bitonic.argsort(x, stable=True), stable_order(x))
    i = bitonic.argsort(x)
    assert_records(gathered(x, i), i, x)
    cube = make_keys(2 * 3 * 33, dtype).reshape(2, 3, 33)
    assert np.array_equal(bitonic.argsort(cube, descending=True, stable=True, dim=2),
                          stable_order(cube, descending=True))
    assert bitonic.argsort(np.empty((0, 4), dtype)).shape == (0, 4)
    assert bitonic.argsort(np.empty((3, 0), dtype)).dtype == np.int64
    one = bitonic.argsort(make_keys(5, dtype).reshape(5, 1))
    assert np.array_equal(one, np.zeros((5, 1), np.int64))  # rows of one key: position 0


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_return_indices(dtype, descending):
    for n in SIZES:
        x = make_keys(n, dtype)
        before = x.copy()
        for stable in (False, True):
            result = bitonic.sort(x, descending=descending, stable=stable, return_indices=True)
            assert isinstance(result, bitonic.SortResult)
            values, indices = result
            assert values is result.values and indices is result.indices
            assert type(values) is np.ndarray and values is not x and indices.dtype == np.int64
            assert_records(values, indices, before, descending, stable)
        assert np.array_equal(bits(x), bits(before)), "x changed"


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_return_indices_out_and_in_place(dtype):
    x = make_keys(5 * 200, dtype).reshape(5, 200)
    before = x.copy()
    values, indices = np.empty_like(x), np.full(x.shape, -1, np.int32)
    result = bitonic.sort(x, stable=True, return_indices=True, out=(values, indices))
    assert result.values is values and result.indices is indices
    assert_records(values, indices, before, stable=True)
    result = bitonic.sort(x, descending=True, inplace=True, return_indices=True)
    assert result.values is x
    assert_records(x, result.indices, before, descending=True)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_pairs(dtype, descending):
    for n in SIZES[::3]:
        keys = make_keys(n, dtype)
        before = keys.copy()
        for value_dtype in WIDE:
            values = positions_as(value_dtype, keys.shape)
            for stable in (False, True):
                result = bitonic.sort_pairs(keys, values, descending=descending, stable=stable)
                assert isinstance(result, bitonic.PairsResult)
                k, v = result
                assert k.dtype == keys.dtype and v.dtype == values.dtype and v is not values
                assert_records(k, v.astype(np.int64), before, descending, stable)
            assert np.array_equal(values, positions_as(value_dtype, keys.shape)), "values changed"
        assert np.array_equal(bits(keys), bits(before)), "keys changed"


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_pairs_out_in_place_and_rows(dtype):
    keys = make_keys(4 * 500, dtype).reshape(4, 500)
    before = keys.copy()
    values = positions_as("uint64", keys.shape)
    k_out, v_out = np.empty_like(keys), np.empty_like(values)
    result = bitonic.sort_pairs(keys, values, stable=True, out=(k_out, v_out))
    assert result.keys is k_out and result.values is v_out
    assert_records(k_out, v_out.astype(np.int64), before, stable=True)
    assert np.array_equal(bits(keys), bits(before))
    result = bitonic.sort_pairs(keys, values, descending=True, inplace=True)
    assert result.keys is keys and result.values is values
    assert_records(keys, values.astype(np.int64), before, descending=True)
    if dtype in WIDE:  # one array as keys and values, out of place: two copies
        same = make_keys(100, dtype)
        k, v = bitonic.sort_pairs(same, same, stable=True)
        assert np.array_equal(bits(k), bits(v))
    else:  # values are of 4 or 8 bytes
        with pytest.raises(TypeError, match="values are of 4 or 8 bytes"):
            bitonic.sort_pairs(keys, keys)


@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_and_signed_zero_records(dtype):
    """NaNs of both signs last (first descending), -0.0 and +0.0 equivalent: a stable sort keeps
    each group in input order, bit for bit."""
    x = np.array([np.nan, 0.0, -0.0, 1.0, -np.nan, -0.0, 0.0, -np.inf, np.nan], dtype=dtype)
    i = bitonic.argsort(x)
    assert list(i) == [7, 1, 2, 5, 6, 3, 0, 4, 8]
    assert list(bitonic.argsort(x, descending=True)) == [0, 4, 8, 3, 1, 2, 5, 6, 7]
    values, indices = bitonic.sort(x, stable=True, return_indices=True)
    assert list(indices) == list(i)
    assert np.array_equal(bits(values), bits(x[i]))
    k, v = bitonic.sort_pairs(x, np.arange(9, dtype=np.int32), stable=True, descending=True)
    assert list(v) == [0, 4, 8, 3, 1, 2, 5, 6, 7]
    assert np.array_equal(bits(k), bits(gathered(x, v)))


def test_workspace_bytes_arguments():
    with pytest.raises(TypeError, match="not both"):
        bitonic.workspace_bytes(10, "float32", values="int64", indices="int64")
    with pytest.raises(TypeError, match="supported"):
        bitonic.workspace_bytes(10, "float32", indices="float32")
    with pytest.raises(TypeError, match="supported"):
        bitonic.workspace_bytes(10, "float32", values="complex64")
    if not bitonic.gpu_available():
        with pytest.raises(bitonic.Error):
            bitonic.workspace_bytes(1 << 20, "float32", indices="int64")
    else:
        for kwargs in ({}, {"stable": True}, {"values": "int64"}, {"indices": "int32"}):
            assert bitonic.workspace_bytes(1 << 24, "float32", **kwargs) >= 0


def test_generic_host_producer():
    """Any host DLPack array: argsort into an out= of its kind (it has no way to make one)."""
    from test_host import HostDLPack

    x = make_keys(500, "float64")
    indices = np.full(500, -1, np.int64)
    wrapped = HostDLPack(indices)
    assert bitonic.argsort(HostDLPack(x), descending=True, out=wrapped) is wrapped
    assert np.array_equal(indices, stable_order(x, descending=True))
    with pytest.raises(TypeError, match="cannot make an index array"):
        bitonic.argsort(HostDLPack(x))
    keys_out = np.zeros_like(x)
    with pytest.raises(TypeError, match="cannot write indices"):  # nothing written first
        bitonic.sort(HostDLPack(x), return_indices=True,
                     out=(HostDLPack(keys_out), HostDLPack(indices)))
    assert not keys_out.any() and np.array_equal(indices, stable_order(x, descending=True))


def test_torch_cpu_tensors():
    """torch tensors in host memory: through the host forms, results are CPU tensors."""
    torch = pytest.importorskip("torch")
    host = make_keys(5000, "float32")
    x = torch.from_numpy(host.copy())
    i = bitonic.argsort(x)
    assert isinstance(i, torch.Tensor) and i.dtype == torch.int64 and i.device.type == "cpu"
    assert np.array_equal(i.numpy(), stable_order(host))
    values, indices = bitonic.sort(x, return_indices=True, stable=True)
    assert_records(values.numpy(), indices.numpy(), host, stable=True)
    k, v = bitonic.sort_pairs(x, torch.arange(5000), descending=True)
    assert_records(k.numpy(), v.numpy(), host, descending=True)
    assert np.array_equal(bits(x.numpy()), bits(host)), "x changed"
