"""Shared helpers of the Python tests: the fixed seed (printed in pytest's header), sizes, and the
full comparison of a sorted array with numpy.sort's result."""

import os

# JAX takes 75 % of the GPU's memory at first use unless told not to; torch and cupy share it here.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import bitonic  # noqa: E402

SEED = 20261125
DTYPES = list(bitonic.DTYPES)
FLOATS = ("float32", "float64")
UINT = {"float32": np.uint32, "float64": np.uint64}


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


def assert_sorted_like(result, original, descending=False):
    """result is `original` sorted (numpy.sort's order, NaNs last; reversed for descending) and
    holds the same keys bit for bit (-0.0 stays -0.0, NaN payloads survive)."""
    result = np.asarray(result)
    original = np.asarray(original)
    assert result.shape == original.shape and result.dtype == original.dtype
    expected = np.sort(original, axis=-1)
    if descending:
        expected = expected[..., ::-1]
    assert np.array_equal(result, expected, equal_nan=original.dtype.kind == "f"), (
        f"{result!r} != {expected!r}")
    if original.dtype.kind == "f":
        bits = UINT[original.dtype.name]
        assert np.array_equal(np.sort(result.view(bits), axis=-1),
                              np.sort(original.view(bits), axis=-1)), "not a permutation"


@pytest.fixture
def rng():
    return np.random.default_rng(SEED)
