"""bitonic.topk against the first k of numpy's stable argsort of each row (NaNs the largest keys,
-0.0 == +0.0, equal keys in position order): NumPy arrays through the C++ topk_host (the GPU when
there is one, the CPU otherwise) everywhere; torch tensors on the GPU against the same reference
and beside torch.topk. Every key type, both directions, k from 0 to n, 1-d and 2-d."""

import numpy as np
import pytest
from conftest import DTYPES, SEED, bits, gathered, make_keys, stable_order

import bitonic


def reference(x, k, largest):
    """The positions and keys topk must return for each row of x."""
    order = stable_order(x, descending=largest)[..., :k]
    return order, gathered(x, order)


def ks_for(n):
    return sorted({0, 1, 2, 31, 32, 33, 100, n // 2, n - 1, n} & set(range(n + 1)))


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_rows(dtype, largest):
    for n in (1, 2, 33, 1000, 4097):
        x = make_keys(3 * n, dtype).reshape(3, n)
        before = x.copy()
        for k in ks_for(n):
            values, indices = bitonic.topk(x, k, largest=largest)
            want_i, want_v = reference(before, k, largest)
            assert values.shape == (3, k) and indices.shape == (3, k), (n, k)
            assert values.dtype == x.dtype and indices.dtype == np.int64
            assert np.array_equal(indices, want_i), (dtype, n, k, largest)
            assert np.array_equal(bits(values), bits(want_v)), (dtype, n, k, largest)
        assert np.array_equal(bits(x), bits(before)), "x changed"


def test_numpy_one_row_and_empty():
    x = make_keys(5000, "float32")
    values, indices = bitonic.topk(x, 10)
    want_i, want_v = reference(x, 10, True)
    assert values.shape == (10,) and np.array_equal(indices, want_i)
    assert np.array_equal(bits(values), bits(want_v))
    empty = np.zeros((0, 7), dtype=np.int32)
    values, indices = bitonic.topk(empty, 3)
    assert values.shape == (0, 3) and indices.shape == (0, 3)


def test_errors():
    x = np.arange(10, dtype=np.float32)
    with pytest.raises(ValueError, match="k = 11"):
        bitonic.topk(x, 11)
    with pytest.raises(ValueError, match="k = -1"):
        bitonic.topk(x, -1)
    with pytest.raises(TypeError, match="k must be an int"):
        bitonic.topk(x, 2.5)
    with pytest.raises(TypeError, match="k must be an int"):
        bitonic.topk(x, True)
    with pytest.raises(ValueError, match="last axis"):
        bitonic.topk(x.reshape(2, 5), 1, dim=0)
    with pytest.raises(TypeError, match="dtype"):
        bitonic.topk(np.zeros(4, dtype=np.complex64), 1)
    with pytest.raises(TypeError, match="largest"):
        bitonic.topk(x, 1, largest="yes")


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_rows(torch, dtype):
    rng_seed = SEED + 21
    for shape, k in (((64, 131072), 50), ((300, 4096), 64), ((5, 1000), 1000), ((2, 70001), 2049),
                     ((1, 1 << 20), 2048)):
        host = make_keys(shape[0] * shape[1], dtype, seed=rng_seed).reshape(shape)
        x = torch.from_numpy(host).cuda()
        for largest in (True, False):
            values, indices = bitonic.topk(x, k, largest=largest)
            assert values.is_cuda and indices.dtype == torch.int64
            want_i, want_v = reference(host, k, largest)
            assert np.array_equal(indices.cpu().numpy(), want_i), (dtype, shape, k, largest)
            assert np.array_equal(bits(values.cpu().numpy()), bits(want_v))
        if dtype == "float32":  # the same keys as torch.topk (its ties may differ)
            # Without NaNs: torch.topk (2.11, CUDA) returned NaN for every one of the 1000 keys
            # of a row of 1000 that held some NaNs, where the reference above has them all.
            clean = torch.where(torch.isnan(x), torch.zeros_like(x), x)
            theirs = torch.topk(clean, k, dim=-1, largest=True, sorted=True).values
            ours = bitonic.topk(clean, k).values
            assert torch.equal(ours, theirs), (shape, k)
