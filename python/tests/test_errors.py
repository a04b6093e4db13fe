"""Arguments sort refuses: a TypeError or ValueError naming the problem, raised before anything
is written (the input is checked unchanged after each). Runs everywhere."""

import numpy as np
import pytest
from conftest import make_keys

import bitonic


def unchanged(x, before):
    return np.array_equal(np.asarray(x).view(np.uint8), np.asarray(before).view(np.uint8))


@pytest.mark.parametrize("dtype", ["bool", "complex64", "complex128", "object", "datetime64[s]",
                                   ">f4", ">i8", ">f2", ">i2"])
def test_unsupported_dtypes(dtype):
    x = np.zeros(8, dtype=dtype)
    x[1::2] = 1
    before = x.copy()
    with pytest.raises(TypeError, match="supported key types"):
        bitonic.sort(x, inplace=True)
    assert np.array_equal(x, before)


@pytest.mark.parametrize("value", [[3, 1, 2], (1.0, 2.0), 3.5, None, "abc"])
def test_not_an_array(value):
    with pytest.raises(TypeError, match="expected a torch.Tensor"):
        bitonic.sort(value)


def test_zero_d_and_dims():
    for scalar in (np.array(3.0, np.float32), np.float32(3.0), np.int64(7).reshape(())):
        with pytest.raises(ValueError, match="0-d"):
            bitonic.sort(scalar)
    zero_d = np.array(5, np.int32)
    with pytest.raises(ValueError, match="0-d"):
        bitonic.sort(zero_d, inplace=True)
    assert zero_d == 5
    x = make_keys(6 * 5, "float32").reshape(6, 5)
    before = x.copy()
    for dim in (0, -2, 2, -3):
        with pytest.raises(ValueError, match="last axis"):
            bitonic.sort(x, dim=dim, inplace=True)
    for dim in ("1", 1.0, True, None):
        with pytest.raises(TypeError, match="dim must be an int"):
            bitonic.sort(x, dim=dim, inplace=True)
    assert unchanged(x, before)
    assert bitonic.sort(make_keys(9, "int32"), dim=0).shape == (9,)  # the last axis of a 1-d array


def test_not_contiguous():
    x = make_keys(64, "int64").reshape(8, 8)
    before = x.copy()
    for view in (x[:, ::2], x.T, x[::2]):
        with pytest.raises(ValueError, match="not C-contiguous"):
            bitonic.sort(view, inplace=True)
    with pytest.raises(ValueError, match="not C-contiguous"):
        bitonic.sort(x[:, ::2])
    assert unchanged(x, before)


def test_read_only():
    x = make_keys(100, "float64")
    before = x.copy()
    x.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        bitonic.sort(x, inplace=True)
    y = bitonic.sort(x)  # out of place is fine
    assert y.flags.writeable and unchanged(x, before)
    out = np.empty_like(x)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        bitonic.sort(before, out=out)


def test_out_mismatches():
    x = make_keys(100, "float32")
    before = x.copy()
    for out, error, message in ((np.empty(99, "float32"), ValueError, "must match"),
                                (np.empty(100, "float64"), ValueError, "must match"),
                                (np.empty((10, 10), "float32"), ValueError, "must match"),
                                (np.empty(200, "float32")[::2], ValueError, "C-contiguous"),
                                ([0.0] * 100, TypeError, "expected")):
        with pytest.raises(error, match=message):
            bitonic.sort(x, out=out)
    with pytest.raises(ValueError, match="not both"):
        bitonic.sort(x, out=np.empty_like(x), inplace=True)
    with pytest.raises(TypeError, match="descending"):
        bitonic.sort(x, descending="yes")
    assert unchanged(x, before)


class FakeCudaArray:
    """A __cuda_array_interface__ whose pointer must never be touched: every case here fails
    its checks first (no GPU is needed to run them)."""

    def __init__(self, typestr="<f4", shape=(16,), strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr,
                                         "data": (0xDEAD0000, False), "strides": strides,
                                         "version": 3}


def test_cuda_array_interface_refusals():
    with pytest.raises(TypeError, match="supported key types"):
        bitonic.sort(FakeCudaArray("|b1"), inplace=True)
    with pytest.raises(TypeError, match="supported key types"):
        bitonic.sort(FakeCudaArray("<c8"), inplace=True)
    with pytest.raises(ValueError, match="not C-contiguous"):
        bitonic.sort(FakeCudaArray("<f4", (4, 4), (4, 16)), inplace=True)
    with pytest.raises(ValueError, match="0-d"):
        bitonic.sort(FakeCudaArray("<f4", ()), inplace=True)
    with pytest.raises(TypeError, match="inplace=True"):  # an unknown kind: no new one to make
        bitonic.sort(FakeCudaArray())


class OtherDevice:
    """A DLPack producer on a device bitonic does not sort on (Metal, DLPack type 8)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None, **kwargs):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return (8, 0)


def test_wrong_device():
    x = make_keys(10, "float32")
    before = x.copy()
    with pytest.raises(ValueError, match="DLPack device type 8"):
        bitonic.sort(OtherDevice(x), inplace=True)
    assert unchanged(x, before)


def test_argsort_refusals():
    x = make_keys(100, "int64")
    before = x.copy()
    with pytest.raises(TypeError, match="bitonic.argsort: x has dtype bool"):
        bitonic.argsort(np.zeros(4, bool))
    with pytest.raises(ValueError, match="0-d"):
        bitonic.argsort(np.array(3.0))
    with pytest.raises(ValueError, match="last axis"):
        bitonic.argsort(x.reshape(10, 10), dim=0)
    with pytest.raises(ValueError, match="not C-contiguous"):
        bitonic.argsort(x.reshape(10, 10)[:, ::2])
    for out, error, message in ((np.empty(100, "float64"), TypeError, "indices are"),
                                (np.empty(100, "int16"), TypeError, "indices are"),
                                (np.empty(99, "int64"), ValueError, "must match"),
                                (np.empty(200, "int64")[::2], ValueError, "C-contiguous"),
                                ([0] * 100, TypeError, "expected"),
                                (x, ValueError, "out is x")):
        with pytest.raises(error, match=message):
            bitonic.argsort(x, out=out)
    read_only = np.empty(100, "int64")
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        bitonic.argsort(x, out=read_only)
    for flag in ("descending", "stable"):
        with pytest.raises(TypeError, match=f"{flag} must be a bool"):
            bitonic.argsort(x, **{flag: "yes"})
    assert unchanged(x, before)


def test_sort_return_indices_refusals():
    x = make_keys(100, "float32")
    before = x.copy()
    for out, error, message in ((np.empty(100, "float32"), TypeError, "pair"),
                                ((np.empty(100, "float32"),), TypeError, "pair"),
                                ((np.empty(100, "float32"), np.empty(100, "float32")), TypeError,
                                 "indices are"),
                                ((np.empty(100, "float64"), np.empty(100, "int64")), ValueError,
                                 "must match"),
                                ((np.empty(100, "float32"), np.empty(50, "int64")), ValueError,
                                 "must match")):
        with pytest.raises(error, match=message):
            bitonic.sort(x, return_indices=True, out=out)
    with pytest.raises(TypeError, match="return_indices must be a bool"):
        bitonic.sort(x, return_indices="yes")
    with pytest.raises(ValueError, match="not both"):
        bitonic.sort(x, return_indices=True, inplace=True,
                     out=(np.empty_like(x), np.empty(100, "int64")))
    assert unchanged(x, before)


def test_sort_pairs_refusals():
    keys = make_keys(100, "int32")
    values = make_keys(100, "float64")
    kb, vb = keys.copy(), values.copy()
    for v, error, message in ((np.zeros(100, bool), TypeError, "values has dtype bool"),
                              (np.zeros(99, "float64"), ValueError, "must match"),
                              (np.zeros((10, 10), "float64"), ValueError, "must match"),
                              (np.zeros(200, "float64")[::2], ValueError, "C-contiguous"),
                              ([0.0] * 100, TypeError, "expected")):
        with pytest.raises(error, match=message):
            bitonic.sort_pairs(keys, v, inplace=True)
    with pytest.raises(TypeError, match="bitonic.sort_pairs: keys has dtype"):
        bitonic.sort_pairs(np.zeros(100, "complex64"), values)
    with pytest.raises(TypeError, match="values are of 4 or 8 bytes"):  # small keys, not values
        bitonic.sort_pairs(keys, np.zeros(100, "float16"))
    with pytest.raises(TypeError, match="values"):
        bitonic.workspace_bytes(100, "int8", values="int16")
    with pytest.raises(TypeError, match="pair"):
        bitonic.sort_pairs(keys, values, out=np.empty_like(keys))
    with pytest.raises(ValueError, match="must match"):
        bitonic.sort_pairs(keys, values, out=(np.empty_like(keys), np.empty(100, "float32")))
    with pytest.raises(ValueError, match="one array"):
        bitonic.sort_pairs(keys, keys, inplace=True)
    with pytest.raises(ValueError, match="one array"):
        out = np.empty_like(keys)
        bitonic.sort_pairs(keys, keys.copy(), out=(out, out))
    read_only = values.copy()
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        bitonic.sort_pairs(keys, read_only, inplace=True)
    with pytest.raises(ValueError, match="not both"):
        bitonic.sort_pairs(keys, values, inplace=True, out=(keys, values))
    with pytest.raises(TypeError, match="stable must be a bool"):
        bitonic.sort_pairs(keys, values, stable=None)
    assert unchanged(keys, kb) and unchanged(values, vb)


def test_overlapping_host_records():
    """Views of one buffer as keys and values: refused by the C++ host form, nothing moved."""
    buffer = make_keys(200, "int32")
    before = buffer.copy()
    with pytest.raises(bitonic.Error, match="overlap"):
        bitonic.sort_pairs(buffer[:150], buffer[50:], inplace=True)
    assert unchanged(buffer, before)
