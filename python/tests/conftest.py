"""Shared helpers of the Python tests: the fixed seed (printed in pytest's header), sizes, and the
full comparison of a sorted array with numpy.sort's result."""

import os

# JAX takes 75 % of the GPU's memory at first use unless told not to; torch and cupy share it here.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import bitonic  # noqa: E402

SEED = 20261125
#: The key types NumPy has (bfloat16 is tested through torch: test_gpu, test_records_gpu).
DTYPES = [name for name in bitonic.DTYPES if name != "bfloat16"]
#: The 4- and 8-byte ones: sort_pairs' values, and the keys of bitonic.dask.
WIDE = list(bitonic.VALUE_DTYPES)
FLOATS = ("float32", "float64", "float16")
UINT = {"float32": np.uint32, "float64": np.uint64, "float16": np.uint16}


def pytest_report_header(config):
    return [f"bitonic {bitonic.__version__} from {bitonic.__file__}",
            f"bitonic tests: seed {SEED}; GPU available: {bitonic.gpu_available()}"]


def edge_sizes(max_log2=12):
    """0, 1, 2 and 2^k-1, 2^k, 2^k+1 for k up to max_log2 (the network's boundaries)."""
    sizes = {0, 1, 2}
    for k in range(1, max_log2 + 1):
        sizes.update({(1 << k) - 1, 1 << k, (1 << k) + 1})
    return sorted(sizes)


def random_sizes(count, high, seed=SEED):
    return sorted(int(v) for v in np.random.default_rng(seed).integers(3, high, count))


def make_keys(n, dtype, seed=SEED, special=True):
    """Random keys of `dtype`; floats get NaNs, +-inf and both zeros when `special`, integers
    their extremes and many duplicates."""
    rng = np.random.default_rng(seed + n)
    if dtype in FLOATS:
        x = (rng.standard_normal(n) * 1e3).astype(dtype)
        if special and n:
            specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0], dtype=dtype)
            where = rng.integers(0, n, max(1, n // 8))
            x[where] = specials[rng.integers(0, len(specials), len(where))]
        return x
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    if special and n:
        where = rng.integers(0, n, max(1, n // 4))
        x[where] = np.array([info.min, info.max, 0, 1], dtype=dtype)[rng.integers(0, 4, len(where))]
    return x


def exact(x):
    """x, or for float16 the same values as float32: numpy 2.4's float16 sort (SIMD) misplaces
    negative keys among -0.0 and +0.0 (seen: -0.001668 after -0.0), so every reference order of
    float16 keys comes from their exact float32 values (same order, same ties)."""
    x = np.asarray(x)
    return x.astype(np.float32) if x.dtype == np.float16 else x


def reference_sort(x):
    """numpy.sort of each row of x along the last axis, in x's dtype (float16: through float32)."""
    x = np.asarray(x)
    return np.sort(exact(x), axis=-1).astype(x.dtype)


def assert_sorted_like(result, original, descending=False):
    """result is `original` sorted (numpy.sort's order, NaNs last; reversed for descending) and
    holds the same keys bit for bit (-0.0 stays -0.0, NaN payloads survive)."""
    result = np.asarray(result)
    original = np.asarray(original)
    assert result.shape == original.shape and result.dtype == original.dtype
    expected = reference_sort(original)
    if descending:
        expected = expected[..., ::-1]
    assert np.array_equal(result, expected, equal_nan=original.dtype.kind == "f"), (
        f"{result!r} != {expected!r}")
    if original.dtype.kind == "f":
        bits = UINT[original.dtype.name]
        assert np.array_equal(np.sort(result.view(bits), axis=-1),
                              np.sort(original.view(bits), axis=-1)), "not a permutation"


def stable_order(x, descending=False):
    """The stable sorted order of each row of x (numpy's, NaNs last and all equivalent, -0.0 ==
    +0.0), descending too: equal keys in input order either way. What argsort must return and
    stable sorts must follow."""
    x = exact(x)
    if not descending:
        return np.argsort(x, axis=-1, kind="stable")
    ascending_of_reversed = np.argsort(x[..., ::-1], axis=-1, kind="stable")
    return (x.shape[-1] - 1 - ascending_of_reversed)[..., ::-1]


def bits(a):
    """a's bits as unsigned integers of its size (floats: -0.0, +0.0 and NaN payloads apart)."""
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}")


def gathered(a, order):
    """a[..., order] row by row."""
    return np.take_along_axis(np.asarray(a), np.asarray(order, dtype=np.int64), axis=-1)


def assert_records(keys, positions, original, descending=False, stable=False):
    """keys are `original` sorted (assert_sorted_like) and positions[i] is where keys[i] was in
    its row of original: each position once a row, each key bit for bit its position's; when
    `stable`, exactly stable_order(original)."""
    keys, positions, original = np.asarray(keys), np.asarray(positions), np.asarray(original)
    assert positions.shape == original.shape
    assert_sorted_like(keys, original, descending)
    n = original.shape[-1]
    seen = np.sort(positions.astype(np.int64), axis=-1)
    assert np.array_equal(seen, np.broadcast_to(np.arange(n), seen.shape)), "not a permutation"
    assert np.array_equal(bits(gathered(original, positions)), bits(keys)), "keys and positions"
    if stable:
        assert np.array_equal(positions, stable_order(original, descending)), "not stable"


def needs_gpu():
    if not bitonic.gpu_available():
        pytest.skip("no CUDA device: GPU tests skipped")


@pytest.fixture(scope="session")
def torch():
    needs_gpu()
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return torch


@pytest.fixture(scope="session")
def cupy():
    needs_gpu()
    return pytest.importorskip("cupy")


@pytest.fixture(scope="session")
def jax():
    needs_gpu()
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)  # int64, uint64 and float64 arrays stay 64-bit
    try:
        jax.devices("gpu")
    except RuntimeError:
        pytest.skip("jax has no GPU backend")
    return jax
