"""NumPy arrays (and any host DLPack array) through sort_host: the GPU when there is one, the CPU
reference executor otherwise. Runs everywhere."""

import numpy as np
import pytest
from conftest import (DTYPES, FLOATS, SEED, assert_sorted_like, bits, edge_sizes, gathered,
                      make_keys, random_sizes, stable_order)

import bitonic


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_edge_sizes(dtype, descending):
    for n in edge_sizes():
        x = make_keys(n, dtype)
        before = x.copy()
        y = bitonic.sort(x, descending=descending)
        assert type(y) is np.ndarray and y is not x
        assert_sorted_like(y, before, descending)
        assert np.array_equal(x.view(np.uint8), before.view(np.uint8)), "input changed"


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_random_sizes_in_place(dtype, descending):
    for n in random_sizes(6, 100_000, SEED + len(dtype)):
        x = make_keys(n, dtype)
        before = x.copy()
        y = bitonic.sort(x, descending=descending, inplace=True)
        assert y is x
        assert_sorted_like(x, before, descending)


@pytest.mark.parametrize("dtype", DTYPES)
def test_out(dtype):
    x = make_keys(1000, dtype)
    before = x.copy()
    out = np.empty_like(x)
    assert bitonic.sort(x, out=out) is out
    assert_sorted_like(out, before)
    assert np.array_equal(x.view(np.uint8), before.view(np.uint8))
    assert bitonic.sort(x, out=x) is x
    assert_sorted_like(x, before)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rows_of_a_matrix(dtype):
    x = make_keys(7 * 33, dtype).reshape(7, 33)
    assert_sorted_like(bitonic.sort(x), x)
    assert_sorted_like(bitonic.sort(x, dim=1, descending=True), x, descending=True)
    cube = make_keys(2 * 3 * 17, dtype).reshape(2, 3, 17)
    assert_sorted_like(bitonic.sort(cube, dim=2), cube)
    assert bitonic.sort(np.empty((0, 5), dtype)).shape == (0, 5)
    assert bitonic.sort(np.empty((3, 0), dtype)).shape == (3, 0)


@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_and_signed_zero_order(dtype):
    x = np.array([np.nan, 1.0, -0.0, -np.inf, 0.0, -np.nan, np.inf, -1.0], dtype=dtype)
    y = bitonic.sort(x)
    assert np.isnan(y[-2:]).all() and y[0] == -np.inf and y[5] == np.inf
    assert set(np.signbit(y[2:4])) == {True, False}  # -0.0 == +0.0: both kept, either order
    z = bitonic.sort(x, descending=True)
    assert np.isnan(z[:2]).all() and z[2] == np.inf and z[-1] == -np.inf


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_stable(dtype, descending):
    """stable=True: the keys in their stable order bit for bit (float keys: -0.0 and +0.0, NaNs
    of either sign keep their input order); integers are the same either way."""
    for n in edge_sizes(10) + random_sizes(3, 50_000, SEED + 7):
        x = make_keys(n, dtype)
        before = x.copy()
        y = bitonic.sort(x, stable=True, descending=descending)
        assert np.array_equal(bits(y), bits(gathered(before, stable_order(before, descending))))
        assert np.array_equal(bits(x), bits(before)), "input changed"
    rows = make_keys(5 * 300, dtype).reshape(5, 300)
    y = bitonic.sort(rows, stable=True, descending=descending)
    assert np.array_equal(bits(y), bits(gathered(rows, stable_order(rows, descending))))


class HostDLPack:
    """Only the DLPack protocol of a NumPy array: the generic path of any CPU DLPack producer."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None, **kwargs):
        return self.a.__dlpack__(stream=stream, **kwargs)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


@pytest.mark.parametrize("dtype", DTYPES)
def test_host_dlpack_producer(dtype):
    x = make_keys(777, dtype)
    before = x.copy()
    wrapped = HostDLPack(x)
    assert bitonic.sort(wrapped, inplace=True, descending=True) is wrapped
    assert_sorted_like(x, before, descending=True)
    with pytest.raises(TypeError, match="inplace=True"):  # no way to make a new one of its kind
        bitonic.sort(HostDLPack(before))


def test_module_functions():
    assert bitonic.DTYPES == ("int32", "uint32", "int64", "uint64", "float32", "float64", "int8",
                              "uint8", "int16", "uint16", "float16", "bfloat16")
    assert bitonic.VALUE_DTYPES == bitonic.DTYPES[:6]
    assert isinstance(bitonic.gpu_available(), bool)
    assert issubclass(bitonic.Error, RuntimeError)
    bitonic.release_cached_memory()  # safe at any time, with or without a device
    with pytest.raises(TypeError, match="supported"):
        bitonic.workspace_bytes(10, "complex64")
    if not bitonic.gpu_available():
        with pytest.raises(bitonic.Error):
            bitonic.workspace_bytes(1 << 20, "float32")
