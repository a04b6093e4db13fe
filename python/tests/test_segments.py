"""bitonic.sort_segments against numpy.sort of every segment on its own (NaNs last, -0.0 == +0.0;
stable sorts bit for bit numpy's stable order): NumPy arrays through the C++ sort_segments_host
(the GPU when there is one, the CPU otherwise) everywhere; torch and cupy arrays through
sort_segments on the GPU. Every key type, both directions, 32- and 64-bit offsets, empty segments,
every length 0..300 and a long segment, keys outside the segments untouched."""

import numpy as np
import pytest
from conftest import DTYPES, SEED, assert_sorted_like, bits, gathered, make_keys, stable_order

import bitonic

OFFSET_DTYPES = ("int32", "uint32", "int64", "uint64")


def layout(seed, before=3, after=4, long_segment=20000):
    """Offsets of every segment length 0..300 in a shuffled order plus one long segment, starting
    `before` keys into the array and ending `after` keys short of its end; and its length."""
    rng = np.random.default_rng(seed)
    lengths = rng.permutation(301)
    lengths = np.insert(lengths, 150, long_segment)
    offsets = np.concatenate([[before], before + np.cumsum(lengths)])
    return offsets, int(offsets[-1]) + after


def check_segments(result, original, offsets, descending, stable):
    """Each segment of result is its segment of original sorted (bit for bit the stable order
    when `stable`); the keys outside the segments are unchanged."""
    result, original = np.asarray(result), np.asarray(original)
    assert result.shape == original.shape and result.dtype == original.dtype
    for i in range(len(offsets) - 1):
        lo, hi = int(offsets[i]), int(offsets[i + 1])
        got, keys = result[lo:hi], original[lo:hi]
        if stable:
            want = gathered(keys, stable_order(keys, descending))
            assert np.array_equal(bits(got), bits(want)), f"segment {i} not stable"
        else:
            assert_sorted_like(got, keys, descending)
    lo, hi = int(offsets[0]), int(offsets[-1])
    assert np.array_equal(bits(result[:lo]), bits(original[:lo])), "keys before the segments"
    assert np.array_equal(bits(result[hi:]), bits(original[hi:])), "keys after the segments"


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy(dtype, descending):
    offsets, n = layout(SEED + DTYPES.index(dtype))
    x = make_keys(n, dtype)
    before = x.copy()
    for offset_dtype in OFFSET_DTYPES:
        for stable in (False, True):
            y = bitonic.sort_segments(x, offsets.astype(offset_dtype), descending=descending,
                                      stable=stable)
            assert isinstance(y, np.ndarray) and y is not x
            check_segments(y, before, offsets, descending, stable)
    assert np.array_equal(bits(x), bits(before)), "x changed"
    out = np.empty_like(x)
    assert bitonic.sort_segments(x, offsets, descending=descending, out=out) is out
    check_segments(out, before, offsets, descending, False)
    assert bitonic.sort_segments(x, offsets, descending=descending, inplace=True) is x
    check_segments(x, before, offsets, descending, False)


def test_numpy_no_segments_and_empty_ones():
    x = make_keys(10, "float32")
    assert np.array_equal(bits(bitonic.sort_segments(x, np.array([4], dtype=np.int64))), bits(x))
    y = bitonic.sort_segments(x, np.array([2, 2, 2, 10, 10], dtype=np.uint32))
    check_segments(y, x, [2, 2, 2, 10, 10], False, False)
    empty = np.zeros(0, dtype=np.int64)
    assert bitonic.sort_segments(empty, np.array([0, 0], dtype=np.int64)).shape == (0,)


def test_errors():
    x = np.arange(10, dtype=np.float32)[::-1].copy()
    before = x.copy()
    with pytest.raises(bitonic.Error, match="offsets decrease at segment 1"):
        bitonic.sort_segments(x, np.array([0, 6, 3, 10], dtype=np.int64), inplace=True)
    assert np.array_equal(x, before)
    with pytest.raises(TypeError, match="offsets have dtype float64"):
        bitonic.sort_segments(x, np.array([0.0, 10.0]))
    with pytest.raises(ValueError, match="offsets must be 1-d"):
        bitonic.sort_segments(x, np.zeros((2, 2), dtype=np.int64))
    with pytest.raises(ValueError, match="offsets must be 1-d"):
        bitonic.sort_segments(x, np.zeros(0, dtype=np.int64))
    with pytest.raises(ValueError, match="1-d"):
        bitonic.sort_segments(x.reshape(2, 5), np.array([0, 5], dtype=np.int64))
    with pytest.raises(TypeError, match="dtype"):
        bitonic.sort_segments(np.zeros(4, dtype=np.complex64), np.array([0, 4]))
    with pytest.raises(TypeError, match="stable"):
        bitonic.sort_segments(x, np.array([0, 10]), stable="yes")
    assert np.array_equal(x, before)


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch(torch, dtype):
    offsets, n = layout(SEED + 7 + DTYPES.index(dtype))
    host = make_keys(n, dtype)
    x = torch.from_numpy(host).cuda()
    for offset_dtype in ("int32", "int64"):
        d_offsets = torch.from_numpy(offsets.astype(offset_dtype)).cuda()
        for descending in (False, True):
            for stable in (False, True):
                y = bitonic.sort_segments(x, d_offsets, descending=descending, stable=stable)
                assert isinstance(y, torch.Tensor) and y.is_cuda
                check_segments(y.cpu().numpy(), host, offsets, descending, stable)
    assert np.array_equal(bits(x.cpu().numpy()), bits(host)), "x changed"
    with pytest.raises(TypeError, match="offsets must be a torch.Tensor"):
        bitonic.sort_segments(x, offsets)
    with pytest.raises(ValueError, match="same device"):
        bitonic.sort_segments(x, torch.from_numpy(offsets))
    bad = torch.tensor([0, 5, 2, n], dtype=torch.int64, device="cuda")
    with pytest.raises(bitonic.Error, match="offsets decrease at segment 1"):
        bitonic.sort_segments(x, bad, inplace=True)
    assert np.array_equal(bits(x.cpu().numpy()), bits(host)), "x changed by a refused call"


def test_cupy(cupy):
    offsets, n = layout(SEED + 11)
    host = make_keys(n, "float64")
    x = cupy.asarray(host)
    y = bitonic.sort_segments(x, cupy.asarray(offsets.astype(np.uint64)), descending=True)
    assert isinstance(y, cupy.ndarray)
    check_segments(cupy.asnumpy(y), host, offsets, True, False)
