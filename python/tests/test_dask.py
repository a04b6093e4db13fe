"""bitonic.dask on dask.distributed LocalClusters of NumPy chunks (CPU, runs everywhere dask
is installed): every key type, both orders, 0 to 10^7 keys, 1 to 64 chunks (ragged and empty ones
too), duplicate-heavy and presorted inputs, NaN and -0.0; each result compared bit for bit with
numpy's stable sort, each argsort with numpy's stable argsort; a worker killed during the
exchange; the DataFrame sort_function; verify; the bench's command line."""

import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest
from conftest import FLOATS, SEED, WIDE, bits, make_keys, stable_order

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
import dask  # noqa: E402
from dask.delayed import Delayed  # noqa: E402

import bitonic  # noqa: E402
import bitonic.dask as bd  # noqa: E402
from bitonic.dask import _sort, bench  # noqa: E402

# Graphs that embed large NumPy arrays (from_array) are fine here.
pytestmark = pytest.mark.filterwarnings("ignore:Sending large graph", "ignore:Large object")

#: (n, chunks): ragged, empty and single chunks; chunk counts up to 16 (64: test_64_chunks).
CASES = [(0, (0,)), (0, (0, 0, 0)), (1, (1,)), (2, (1, 1)), (5, (0, 2, 0, 3, 0)), (7, (7, 0)),
         (100, 7), (1000, (1, 998, 1)), (4097, 16), (65_537, 3), (200_000, (150_000, 0, 50_000)),
         (300_001, 5)]


@pytest.fixture(scope="module")
def client():
    """Two workers in this process (threads: starts in a fraction of a second; data still goes
    through the scheduler's exchange between workers)."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=":0")
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def chunked(a, chunks):
    if isinstance(chunks, int):
        chunks = bench.chunk_sizes(len(a), chunks)
    return da.from_array(a, chunks=(tuple(chunks),))


def expected(a, descending=False):
    return a[stable_order(a, descending)]


def check_sort(y, a, descending=False, what=""):
    assert type(y) is np.ndarray and y.dtype == a.dtype and y.shape == a.shape, what
    assert np.array_equal(bits(y), bits(expected(a, descending))), f"{what}: {y!r}"


def check_argsort(i, a, descending=False, what=""):
    assert type(i) is np.ndarray and i.dtype == np.int64 and i.shape == a.shape, what
    assert np.array_equal(i, stable_order(a, descending)), f"{what}: {i!r}"
    assert np.array_equal(bits(a[i]), bits(expected(a, descending))), what


def keys_of(n, dtype, seed=SEED):
    return make_keys(n, dtype, seed)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", WIDE)
def test_sort_and_argsort(client, dtype, descending):
    arrays, results = [], []
    for n, chunks in CASES:
        a = keys_of(n, dtype)
        x = chunked(a, chunks)
        y, i = bd.sort(x, descending=descending), bd.argsort(x, descending=descending)
        assert y.chunks == x.chunks and i.chunks == x.chunks
        assert y.dtype == a.dtype and i.dtype == np.int64
        arrays.append(a)
        results.append((y, i))
    for a, (y, i), (n, chunks) in zip(arrays, dask.compute(results)[0], CASES):
        what = f"n={n} chunks={chunks} {dtype} descending={descending} seed={SEED}"
        check_sort(y, a, descending, what)
        check_argsort(i, a, descending, what)


def test_64_chunks(client):
    """64 chunks: 4096 pieces, the exchange's p^2 tasks (argsort: keys and positions)."""
    a = keys_of(100_003, "float64")
    check_argsort(bd.argsort(chunked(a, 64), descending=True).compute(), a, True,
                  f"64 chunks seed={SEED}")


def special_inputs(n, dtype, rng):
    """name -> keys: the inputs that break sample sorts (all one key, one hot key, a few keys,
    presorted either way, organ pipe) and, for floats, only signed zeros and NaNs."""
    a = keys_of(n, dtype)
    s = np.sort(a)
    cases = {
        "all equal": np.full(n, a[0]),
        "hot key": np.where(rng.random(n) < 0.9, a[0], a),
        "two keys": np.where(rng.random(n) < 0.5, a[0], a[1]),
        "sorted": s,
        "reverse": s[::-1].copy(),
        "organ pipe": np.concatenate([s[::2], s[1::2][::-1]]),
    }
    if dtype in FLOATS:
        cases["zeros"] = np.where(rng.random(n) < 0.5, -0.0, 0.0).astype(dtype)
        nan_bits = np.array([0x7FC00000, 0xFFC00000, 0x7F800001], np.uint32)
        if dtype == "float64":
            nan_bits = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001],
                                np.uint64)
        nans = nan_bits[rng.integers(0, 3, n)].view(dtype)
        cases["zeros and NaNs"] = np.where(rng.random(n) < 0.5, nans, cases["zeros"])
    return cases


@pytest.mark.parametrize("dtype", ["int64", "uint32", "float32"])
def test_adversarial_inputs(client, dtype):
    rng = np.random.default_rng(SEED)
    cases = special_inputs(50_000, dtype, rng)
    chunks = (20_000, 1, 0, 17_000, 12_999)
    graphs = {(name, d): (bd.sort(chunked(a, chunks), descending=d),
                          bd.argsort(chunked(a, chunks), descending=d))
              for name, a in cases.items() for d in (False, True)}
    (done,) = dask.compute(graphs)
    for (name, d), (y, i) in done.items():
        what = f"{name} {dtype} descending={d} seed={SEED}"
        check_sort(y, cases[name], d, what)
        check_argsort(i, cases[name], d, what)


def test_balance_bound():
    """Each merge receives its output chunk plus at most 2 (W + G + 1) keys, W the sum over the
    chunks of their largest gap between samples and G the largest one (docs/DASK.md), whatever the
    keys: a hot key or all-equal keys are cut by position like distinct keys."""
    rng = np.random.default_rng(SEED)
    for name, a in special_inputs(200_000, "int32", rng).items():
        for chunks in (8, (1000, 150_000, 0, 49_000)):
            x = chunked(a, chunks)
            g = _sort.build(x, False, "sort")
            graph = g.result.__dask_graph__()
            exchange = g.layers["exchange"]
            gathered = dask.compute(
                [Delayed(k, graph, layer=g.result.name) for k in exchange],
                scheduler="sync", optimize_graph=False)[0]
            sizes = x.chunks[0]
            p = len(sizes)
            per_chunk = max(1, min(_sort.OVERSAMPLING * p, _sort.MAX_SAMPLES // p))
            gaps = [-(-m // min(m, per_chunk)) for m in sizes if m]
            bound = 2 * (sum(gaps) + max(gaps) + 1)
            for k, (keys, _, base) in enumerate(gathered):
                extra = len(keys) - sizes[k]
                assert 0 <= extra <= bound, (name, chunks, k, extra, bound)
            overlap = sum(len(kb[0]) for kb in gathered) / len(a) - 1
            assert overlap <= 2 * (p - 1) * (sum(gaps) + max(gaps) + 1) / len(a), (name, overlap)


@pytest.mark.filterwarnings("ignore")
def test_ten_million(client):
    """The largest input, 10^7 keys; and 10^6 floats with NaNs, descending."""
    rng = np.random.default_rng(SEED)
    n = 10_000_000
    a = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    check_sort(bd.sort(chunked(a, 8)).compute(), a, what=f"int32 n={n} seed={SEED}")
    b = rng.random(n // 10, dtype=np.float32)
    b[rng.integers(0, len(b), len(b) // 100)] = np.nan
    check_sort(bd.sort(chunked(b, 5), descending=True).compute(), b, True,
               f"float32 descending n={len(b)} seed={SEED}")


def test_argsort_gathers_the_keys(client):
    a = keys_of(30_000, "float64")
    x = chunked(a, 6)
    i = bd.argsort(x)
    check_sort(x[i].compute(), a, what="x[argsort(x)] as a dask array")
    check_sort(da.take(x, i).compute(), a, what="da.take")


def test_any_scheduler():
    a = keys_of(20_000, "uint64")
    x = chunked(a, 5)
    for scheduler in ("sync", "threads"):
        check_sort(bd.sort(x).compute(scheduler=scheduler), a, what=scheduler)
        check_argsort(bd.argsort(x, descending=True).compute(scheduler=scheduler), a, True,
                      scheduler)


def test_lazy_and_deterministic():
    def boom():
        raise AssertionError("computed")

    x = da.from_delayed(dask.delayed(boom)(), shape=(10,), dtype=np.float32)
    x = da.concatenate([x, x, x])
    y = bd.sort(x)  # builds the graph only
    assert y.chunks == x.chunks and y.dtype == np.float32
    assert bd.sort(x).name == y.name and bd.sort(x, descending=True).name != y.name
    assert bd.argsort(x).name != y.name


def test_errors():
    x = da.from_array(np.arange(10, dtype=np.int32), chunks=3)
    with pytest.raises(TypeError, match="dask.array.Array"):
        bd.sort(np.arange(10))
    with pytest.raises(ValueError, match="2 dimensions"):
        bd.sort(da.ones((4, 4), chunks=2, dtype=np.int32))
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        bd.sort(x[x > 3])
    for dtype in ("bool", "int8", "int16", "float16", "complex64", ">i4", ">f8"):
        with pytest.raises(TypeError, match="supported key types"):
            bd.argsort(x.astype(dtype))
    with pytest.raises(TypeError, match="descending"):
        bd.sort(x, descending="yes")
    masked = da.from_array(np.ma.masked_array(np.arange(10, dtype=np.int32)), chunks=5)
    with pytest.raises(TypeError, match="numpy.ndarray or cupy.ndarray"):
        bd.sort(masked)
    wrong = x.map_blocks(lambda b: b.astype(np.float32), dtype=np.int32)  # meta says int32
    with pytest.raises(TypeError, match="float32"):
        bd.sort(wrong).compute(scheduler="sync")


def test_verify(client):
    a = make_keys(50_000, "float32", SEED, special=False)  # distinct keys
    a[0] = -0.0
    x = chunked(a, 5)
    y = bd.sort(x)
    assert bd.verify(y, x).ok
    assert bd.verify(bd.sort(x, descending=True), x, descending=True).ok
    assert not bd.verify(y, x, descending=True).ok
    v = bd.verify(y.map_blocks(lambda b: b[::-1], dtype=y.dtype), x)  # not sorted
    assert not v.ok and not v.sorted_chunks and v.same_keys
    swapped = da.concatenate([y.blocks[1], y.blocks[0], y.blocks[2:]])
    v = bd.verify(swapped, x)
    assert not v.ok and v.sorted_chunks and not v.ordered_boundaries and v.same_keys
    v = bd.verify(y.map_blocks(lambda b: np.where(b == b[0], b[1], b), dtype=y.dtype), x)
    assert not v.ok and v.sorted_chunks and not v.same_keys  # the first key changed
    z = a.copy()
    z[0] = 0.0  # -0.0 made +0.0: equal keys, other bits
    v = bd.verify(bd.sort(chunked(z, 5)), x)
    assert not v.ok and v.sorted_chunks and v.ordered_boundaries and not v.same_keys


def test_worker_killed_during_exchange():
    """A worker process killed (SIGKILL) while the pieces move to the merges: Dask recomputes
    what it held from x's graph; the result is still numpy's, bit for bit."""
    cluster = distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    with cluster, distributed.Client(cluster) as client:
        x = bench.random_array(2_000_000, 6, "float64", SEED).persist()  # recomputable: seeds
        a = x.compute()
        g = _sort.build(x, False, "sort")
        graph = g.result.__dask_graph__()
        split = client.compute([Delayed(k, graph, layer=g.result.name)
                                for k in g.layers["split"]], optimize_graph=False)
        distributed.wait(split)
        holders = client.who_has(split)
        victim = max(client.scheduler_info()["workers"],
                     key=lambda w: sum(w in holders[f.key] for f in split))
        pid = client.run(os.getpid, workers=[victim])[victim]
        result = client.compute(g.result, optimize_graph=False)  # the exchange starts
        os.kill(pid, signal.SIGKILL)
        y = result.result(timeout=300)
        assert victim not in client.scheduler_info()["workers"], "the worker did not die"
        check_sort(y, a, what=f"after killing {victim}, seed={SEED}")


def test_sort_function_matches_pandas():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(SEED)
    for dtype in WIDE:
        for n in (0, 1, 50, 3000):
            k = keys_of(n, dtype) if n < 3000 else rng.integers(0, 9, n).astype(dtype)
            df = pd.DataFrame({"k": k, "v": np.arange(n)}, index=rng.permutation(n) * 3)
            for ascending in (True, False):
                for na_position in ("first", "last"):
                    for ignore_index in (False, True):
                        args = dict(by=["k"], ascending=ascending, na_position=na_position,
                                    ignore_index=ignore_index)
                        got = bd.sort_function(df, **args)
                        pd.testing.assert_frame_equal(got, df.sort_values(**args, kind="stable"))
    df = pd.DataFrame({"s": ["b", "a", "c"], "k": [3, 1, 2], "j": [1, 1, 0]})
    for by in (["s"], ["j", "k"]):  # strings, two columns: pandas' own sort
        pd.testing.assert_frame_equal(bd.sort_function(df, by=by), df.sort_values(by))


def test_dataframe_sort_values(client):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(SEED)
    n = 40_000
    pdf = pd.DataFrame({"k": rng.permutation(n).astype(np.float64), "v": rng.random(n),
                        "d": rng.integers(0, 5, n).astype(np.int32)})
    pdf.loc[rng.integers(0, n, 100), "k"] = np.nan
    ddf = dd.from_pandas(pdf, npartitions=6)
    for ascending in (True, False):
        for na_position in ("first", "last"):
            got = ddf.sort_values("k", ascending=ascending, na_position=na_position,
                                  sort_function=bd.sort_function).compute()
            want = pdf.sort_values("k", ascending=ascending, na_position=na_position,
                                   kind="stable")
            pd.testing.assert_frame_equal(got, want)  # unique keys (and NaNs in input order)
    got = ddf.sort_values("d", sort_function=bd.sort_function).compute()
    assert np.array_equal(got["d"].to_numpy(), np.sort(pdf["d"].to_numpy()))
    pd.testing.assert_frame_equal(got.sort_values("v"), pdf.sort_values("v"))  # the same rows


def test_bench_command_line(tmp_path):
    out = tmp_path / "bench.json"
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(bitonic.__file__)))
    env = dict(os.environ, PYTHONWARNINGS="ignore",
               PYTHONPATH=os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run(
        [sys.executable, "-m", "bitonic.dask", "bench", "--n", "300000", "--workers", "2",
         "--chunks", "4", "--dtype", "f64", "--distinct", "50", "--runs", "1", "--verify",
         "--json", str(out)], capture_output=True, text=True, timeout=300, env=env,
        cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    for line in ("total:", "phases:", "shuffled:", "verify:   ok", "one worker: numpy.sort"):
        assert line in run.stdout, run.stdout
    record = json.loads(out.read_text())
    assert record["verified"] is True and record["n"] == 300000
    assert set(record["phases_s"]) == {"sample", "split", "exchange", "merge"}
    assert record["shuffle"]["pieces_bytes"] >= 300000 * 8


def test_import_without_dask():
    code = ("import sys; sys.modules['dask'] = None; import bitonic, numpy\n"
            "assert bitonic.sort(numpy.array([2, 1], 'int32')).tolist() == [1, 2]\n"
            "try:\n    import bitonic.dask\nexcept ImportError as e:\n    print(e)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert "bitonic.dask needs dask" in run.stdout
