"""bitonic.dask with CuPy chunks on the GPU (skipped without a GPU, CuPy or dask): workers that
share the one GPU, in this process (threads) and in processes of their own (chunks serialised
between them), every key type and order against numpy's stable sort bit for bit, verify on the
workers, and sort_function on cuDF partitions where cuDF imports."""

import numpy as np
import pytest
from conftest import SEED, WIDE, bits, make_keys, stable_order

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
import dask  # noqa: E402

import bitonic.dask as bd  # noqa: E402
from bitonic.dask import bench  # noqa: E402


@pytest.fixture(scope="module")
def client(cupy):
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=":0")
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def on_gpu(cupy, a, chunks):
    if isinstance(chunks, int):
        chunks = bench.chunk_sizes(len(a), chunks)
    return da.from_array(cupy.asarray(a), chunks=(tuple(chunks),), asarray=False)


def check(cupy, y, i, a, descending, what):
    assert isinstance(y, cupy.ndarray) and isinstance(i, cupy.ndarray), what
    order = stable_order(a, descending)
    assert np.array_equal(bits(cupy.asnumpy(y)), bits(a[order])), what
    assert np.array_equal(cupy.asnumpy(i), order), what


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", WIDE)
def test_cupy_chunks(cupy, client, dtype, descending):
    cases = [(0, (0, 0)), (1, (1,)), (5, (0, 2, 0, 3)), (1000, 7),
             (100_001, (1, 60_000, 0, 40_000)), (1 << 20, 8)]
    arrays, graphs = [], []
    for n, chunks in cases:
        a = make_keys(n, dtype)
        x = on_gpu(cupy, a, chunks)
        y, i = bd.sort(x, descending=descending), bd.argsort(x, descending=descending)
        assert isinstance(y._meta, cupy.ndarray) and y.chunks == x.chunks
        arrays.append(a)
        graphs.append((y, i))
    for a, (y, i), (n, chunks) in zip(arrays, dask.compute(graphs)[0], cases):
        check(cupy, y, i, a, descending, f"n={n} chunks={chunks} {dtype} seed={SEED}")


def test_duplicates_on_the_gpu(cupy, client):
    rng = np.random.default_rng(SEED)
    n = 1 << 20
    for name, a in {"all equal": np.full(n, 7, np.int32),
                    "hot key": np.where(rng.random(n) < 0.9, 3, rng.integers(0, 9, n)).astype(
                        np.int32),
                    "signed zeros and NaNs": np.where(rng.random(n) < 0.5, -0.0, np.where(
                        rng.random(n) < 0.5, 0.0, np.nan)).astype(np.float32)}.items():
        x = on_gpu(cupy, a, 6)
        for descending in (False, True):
            y, i = dask.compute(bd.sort(x, descending=descending),
                                bd.argsort(x, descending=descending))
            check(cupy, y, i, a, descending, f"{name} descending={descending}")


def test_worker_processes_share_the_gpu(cupy):
    """Workers in processes of their own on the one GPU: the pieces travel between them
    (serialised CuPy arrays); keys made on the workers, verified there."""
    cluster = distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    with cluster, distributed.Client(cluster):
        for dtype in ("int32", "float64"):
            x = bench.random_array(1 << 22, 6, dtype, SEED, gpu=True).persist()
            for descending in (False, True):
                y = bd.sort(x, descending=descending).persist()
                v = bd.verify(y, x, descending)
                assert v.ok, (dtype, descending, v)
            a = x.compute().get()
            i = bd.argsort(x).compute()
            assert np.array_equal(i.get(), stable_order(a))


def test_sort_function_cudf(cupy):
    cudf = pytest.importorskip("cudf")
    rng = np.random.default_rng(SEED)
    k = rng.integers(0, 50, 10_000).astype(np.int64)
    df = cudf.DataFrame({"k": k, "v": np.arange(len(k))})
    for ascending in (True, False):
        got = bd.sort_function(df, by=["k"], ascending=ascending)
        order = stable_order(k, not ascending)
        assert np.array_equal(got["v"].to_numpy(), order)
