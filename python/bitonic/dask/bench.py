"""``python -m bitonic.dask bench``: the distributed sort on a dask.distributed cluster, timed as a
user gets it and phase by phase, with the bytes it moves, against a sort of the whole array on one
worker, and verified on the workers.

The keys are made on the workers (chunk c from its own seed, NumPy or, with --gpu, CuPy) and
persisted before anything is timed. Then:

- total: ``bitonic.dask.sort(x)`` persisted on the workers (nothing comes to the client),
  warm-up first, the median of --runs, each with a fresh graph;
- phases: one more run persisted layer by layer, each waited for: sample (local sorts, samples,
  plan), split, exchange (the pieces moved to the worker that merges them and concatenated),
  merge (sorted and sliced). Their sum exceeds the total, whose phases overlap;
- shuffled: the bytes of all pieces (the data plus the overlap at the cuts), those that crossed
  between workers (from where the pieces and merges ran), and the workers' own transfer counters
  over the total runs;
- one worker: numpy.sort (CPU) or cupy.sort (GPU), and bitonic.sort, of the whole array made on
  one worker (skipped when it does not fit or with --no-baseline);
- --verify: bitonic.dask.verify on the workers: each chunk sorted, boundaries ordered, the same
  keys as the input's (fingerprint).

--frame measures instead ``DataFrame.sort_values("k")`` of a dask DataFrame made of the same keys
(one partition a chunk, with an int64 payload column), Dask's default per-partition sort against
``sort_function=bitonic.dask.sort_function`` (pandas partitions: NumPy keys only), each verified.

Clusters: --scheduler ADDRESS joins a running one (any number of nodes). Otherwise a local one
of --workers workers: with --gpu, dask_cuda.LocalCUDACluster when it imports and there are at
least that many GPUs (one worker a GPU), else a LocalCluster of processes that share GPU 0;
without --gpu, a LocalCluster of processes (--threads threads each).
"""

import argparse
import json
import platform
import statistics
import sys
import time

import dask
import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

import bitonic

from ._frame import sort_function
from ._sort import ARGSORT, SORT, build
from ._verify import verify

_SHORT = {"i32": "int32", "u32": "uint32", "i64": "int64", "u64": "uint64", "f32": "float32",
          "f64": "float64"}


def _parser():
    p = argparse.ArgumentParser(prog="python -m bitonic.dask bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=_size, default=1 << 24, help="keys (2^k as 2^28 too; default 2^24)")
    p.add_argument("--workers", type=int, default=2, help="workers of a local cluster (default 2)")
    p.add_argument("--chunks", type=int, help="chunks of the array (default: one a worker)")
    p.add_argument("--dtype", default="int32", help="key type: int32 (default), uint32, int64, "
                   "uint64, float32, float64 (or i32, ..., f64)")
    p.add_argument("--distinct", type=int, default=0,
                   help="keys drawn from this many values (duplicate-heavy); 0: uniform")
    p.add_argument("--descending", action="store_true")
    p.add_argument("--argsort", action="store_true", help="time argsort instead of sort")
    p.add_argument("--gpu", action="store_true", help="CuPy chunks on the workers' GPUs")
    p.add_argument("--threads", type=int, default=1, help="threads a worker (default 1)")
    p.add_argument("--scheduler", help="address of a running scheduler to use instead")
    p.add_argument("--runs", type=int, default=3, help="timed runs (default 3, after a warm-up)")
    p.add_argument("--seed", type=int, default=20261125)
    p.add_argument("--verify", action="store_true", help="verify the result on the workers")
    p.add_argument("--no-baseline", action="store_true",
                   help="skip the sorts of the whole array on one worker")
    p.add_argument("--frame", action="store_true",
                   help="time DataFrame.sort_values with and without bitonic's sort_function")
    p.add_argument("--json", help="also write the figures to this file")
    return p


def _size(text):
    if text.startswith("2^"):
        return 1 << int(text[2:])
    return int(float(text)) if "e" in text else int(text)


def chunk_sizes(n, chunks):
    """n split into `chunks` sizes that differ by at most one."""
    return tuple(n // chunks + (c < n % chunks) for c in range(chunks))


def make_chunk(c, size, dtype, seed, gpu, distinct):
    """Chunk c of the bench's keys: uniform over the type's range (floats in [0, 1)), or over
    `distinct` values; NumPy, or CuPy when `gpu`. The same for a given (seed, c) wherever made."""
    if gpu:
        import cupy as xp
    else:
        xp = np
    rng = xp.random.default_rng(seed * 1_000_003 + c)
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        r = rng.random(size, dtype=np.float64)
        if distinct:
            r = xp.floor(r * distinct) / distinct
        return r.astype(dtype)
    words = [(rng.random(size, dtype=np.float64) * 2.0**32).astype(xp.uint64)
             for _ in range(dtype.itemsize // 4)]
    bits = words[0] if len(words) == 1 else (words[0] << xp.uint64(32)) | words[1]
    if distinct:
        bits = bits % xp.uint64(distinct)
    bits = bits.astype(f"u{dtype.itemsize}")
    return bits.view(dtype)


def random_array(n, chunks, dtype, seed, gpu=False, distinct=0):
    """A dask array of n keys in `chunks` chunks, each made by the task that needs it."""
    sizes = chunk_sizes(n, chunks)
    name = "bitonic-bench-keys-" + tokenize(n, chunks, dtype, seed, gpu, distinct)
    dsk = {(name, c): (make_chunk, c, size, dtype, seed, gpu, distinct)
           for c, size in enumerate(sizes)}
    if gpu:
        import cupy

        meta = cupy.empty(0, dtype=dtype)
    else:
        meta = np.empty(0, dtype=dtype)
    return da.Array(HighLevelGraph.from_collections(name, dsk, dependencies=()), name, (sizes,),
                    dtype=dtype, meta=meta)


def _baseline(n, chunks, dtype, seed, gpu, distinct, runs, stable):
    """On one worker: the library's sort (numpy.sort or cupy.sort) and bitonic.sort of the whole
    array, median seconds of `runs`, each on a fresh copy."""
    try:
        parts = [make_chunk(c, size, dtype, seed, gpu, distinct)
                 for c, size in enumerate(chunk_sizes(n, chunks))]
        if gpu:
            import cupy as xp

            sync = xp.cuda.get_current_stream().synchronize
        else:
            xp, sync = np, (lambda: None)
        whole = xp.concatenate(parts)
        del parts
        rows = {}
        for label, fn in ((f"{xp.__name__}.sort", lambda a: a.sort()),
                          ("bitonic.sort", lambda a: bitonic.sort(a, stable=stable, inplace=True))):
            times = []
            for _ in range(runs + 1):  # the first one warms up
                a = whole.copy()
                sync()
                t = time.perf_counter()
                fn(a)
                sync()
                times.append(time.perf_counter() - t)
                del a
            rows[label] = statistics.median(times[1:])
        return rows
    except Exception as e:  # noqa: BLE001 - reported, not raised: the distributed figures stand
        return {"error": f"{type(e).__name__}: {e}"[:200]}


def _piece_bytes(split):
    return [int(p[0].nbytes) + (0 if p[1] is None else int(p[1].nbytes)) for p in split]


def _transfer_bytes(dask_worker):
    return getattr(dask_worker, "transfer_outgoing_bytes_total", 0)


def _cluster(args):
    """(client, description, cluster or None)."""
    from distributed import Client, LocalCluster

    if args.scheduler:
        client = Client(args.scheduler)
        return client, f"scheduler {args.scheduler}", None
    common = {"n_workers": args.workers, "threads_per_worker": args.threads,
              "dashboard_address": ":0"}
    if args.gpu:
        try:
            import dask_cuda
        except Exception as e:  # noqa: BLE001 - ImportError, or a dependency it cannot use
            dask_cuda, why = None, f"dask_cuda not importable: {type(e).__name__}: {e}"[:120]
        gpus = _gpu_count()
        if dask_cuda is not None and args.workers <= gpus:
            cluster = dask_cuda.LocalCUDACluster(**common)
            return Client(cluster), f"dask_cuda.LocalCUDACluster, {args.workers} GPUs", cluster
        if dask_cuda is not None:
            why = f"{gpus} GPU(s) for {args.workers} workers"
        cluster = LocalCluster(processes=True, **common)
        return (Client(cluster), f"LocalCluster of {args.workers} processes sharing GPU 0 ({why})",
                cluster)
    cluster = LocalCluster(processes=True, **common)
    return Client(cluster), f"LocalCluster of {args.workers} processes (CPU)", cluster


def _frame(x, args):
    """DataFrame.sort_values("k") of x as a column, default against bitonic's sort_function."""
    import dask.dataframe as dd
    from distributed import wait

    if args.gpu:
        print("--frame: pandas partitions only (NumPy keys); leave out --gpu", file=sys.stderr)
        return 2
    frame = dd.from_dask_array(x, columns="k").to_frame()
    frame = frame.assign(v=frame.index).persist()
    wait(frame)
    rows, ok = {}, True
    for label, fn in (("default", None), ("bitonic.dask.sort_function", sort_function)):
        times = []
        for r in range(args.runs + 1):  # the first one warms up
            t = time.perf_counter()
            out = frame.sort_values("k", ascending=not args.descending, sort_function=fn)
            out = out.persist()
            wait(out)
            times.append(time.perf_counter() - t)
        keys = out["k"].to_dask_array(lengths=True)
        check = verify(keys, x, args.descending)
        ok = ok and check.ok
        rows[label] = statistics.median(times[1:])
        print(f"sort_values {label}: {rows[label]:.4f} s median of {args.runs} "
              f"({args.n / rows[label] / 1e6:.1f} Mrows/s), verified: {check.ok}", flush=True)
        del out, keys
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"n": args.n, "partitions": x.numblocks[0], "frame_s": rows,
                       "verified": ok, "dask": dask.__version__}, f, indent=1)
    return 0 if ok else 1


def _gpu_count():
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - no CUDA: no GPUs
        return 0


def main(argv=None):
    args = _parser().parse_args(argv)
    dtype = _SHORT.get(args.dtype, args.dtype)
    if dtype not in bitonic.VALUE_DTYPES:
        print(f"unknown --dtype {args.dtype}; one of {', '.join(bitonic.VALUE_DTYPES)}",
              file=sys.stderr)
        return 2
    op = ARGSORT if args.argsort else SORT
    from distributed import wait
    from dask.delayed import Delayed

    client, where, cluster = _cluster(args)
    try:
        workers = sorted(client.scheduler_info()["workers"])
        chunks = args.chunks or len(workers)
        n, itemsize = args.n, np.dtype(dtype).itemsize
        stable = np.dtype(dtype).kind == "f"
        kind = "CuPy" if args.gpu else "NumPy"
        what = "DataFrame.sort_values" if args.frame else op
        print(f"bitonic.dask bench: {n} {dtype} keys in {chunks} chunks ({kind}), {what}"
              f"{' descending' if args.descending else ''}"
              f"{f', {args.distinct} distinct keys' if args.distinct else ''}; {len(workers)} "
              f"workers: {where}; dask {dask.__version__}, python {platform.python_version()}",
              flush=True)
        x = random_array(n, chunks, dtype, args.seed, args.gpu, args.distinct).persist()
        wait(x)
        if args.frame:
            return _frame(x, args)

        def run(salt):
            g = build(x, args.descending, op, salt=salt)
            t = time.perf_counter()
            y = g.result.persist()
            wait(y)
            return time.perf_counter() - t, y

        counters = client.run(_transfer_bytes)
        times, y = [], None
        for r in range(args.runs + 1):  # the first one warms up (imports, kernels, pools)
            del y
            seconds, y = run(("total", r))
            times.append(seconds)
        moved_total = sum(client.run(_transfer_bytes).values()) - sum(counters.values())
        total = statistics.median(times[1:])
        runs = ", ".join(f"{t:.4f}" for t in times[1:])
        print(f"total:    {total:.4f} s median of {args.runs} ({runs}; warm-up {times[0]:.4f}), "
              f"{n / total / 1e6:.1f} Mkeys/s", flush=True)

        # Phases: the same graph unoptimised, layer by layer; each layer's results stay held
        # (futures) so the next one finds its inputs in memory.
        g = build(x, args.descending, op, salt="phases")
        graph = g.result.__dask_graph__()
        held, phases = [], {}
        for phase, layers in (("sample", ("local", "plan")), ("split", ("split",)),
                              ("exchange", ("exchange",)), ("merge", ("merge",))):
            keys = [k for layer in layers for k in g.layers.get(layer, [])]
            t = time.perf_counter()
            futures = client.compute([Delayed(k, graph, layer=g.result.name) for k in keys],
                                     optimize_graph=False)
            wait(futures)
            phases[phase] = time.perf_counter() - t
            held.append(dict(zip(keys, futures)))
        print("phases:   " + ", ".join(f"{k} {v:.4f} s" for k, v in phases.items())
              + f" (sum {sum(phases.values()):.4f} s, each waited for)", flush=True)

        data = n * itemsize if op == SORT else n * (itemsize + 8)  # argsort moves positions too
        shuffle = {"data_bytes": data,
                   "worker_transfer_bytes_per_run": moved_total / (args.runs + 1)}
        split_futures = held[1] if len(held) > 1 else {}
        if split_futures:
            sizes = client.gather([client.submit(_piece_bytes, f, pure=False)
                                   for f in split_futures.values()])
            who = client.who_has(list(split_futures.values()) + list(held[2].values()))
            split_at = [who[f.key][0] if who[f.key] else None for f in split_futures.values()]
            merge_at = [who[f.key][0] if who[f.key] else None for f in held[2].values()]
            pieces = sum(sum(row) for row in sizes)
            crossed = sum(b for c, row in enumerate(sizes) for k, b in enumerate(row)
                          if split_at[c] != merge_at[k])
            shuffle.update(pieces_bytes=pieces, between_workers_bytes=crossed)
            print(f"shuffled: pieces {pieces / 1e6:.1f} MB ({pieces / data:.3f}x the data: "
                  f"overlap at the cuts {pieces / data - 1:+.1%}), between workers "
                  f"{crossed / 1e6:.1f} MB; worker transfer counters "
                  f"{shuffle['worker_transfer_bytes_per_run'] / 1e6:.1f} MB a run", flush=True)
        else:
            print(f"shuffled: nothing (one chunk); data {data / 1e6:.1f} MB", flush=True)
        del held

        ok = True
        verification = None
        if args.verify:
            if op == ARGSORT:
                print("verify:   argsort is verified by the tests, not here", flush=True)
            else:
                verification = verify(y, x, args.descending)
                ok = verification.ok
                print(f"verify:   {'ok' if ok else 'FAILED'} ({verification})", flush=True)
        del y

        baseline = {}
        if not args.no_baseline:
            baseline = client.submit(_baseline, n, chunks, dtype, args.seed, args.gpu,
                                     args.distinct, args.runs, stable, workers=[workers[0]],
                                     pure=False).result()
            if "error" in baseline:
                print(f"one worker: {baseline['error']}", flush=True)
            else:
                print("one worker: " + ", ".join(
                    f"{k} {v:.4f} s ({n / v / 1e6:.1f} Mkeys/s)" for k, v in baseline.items())
                    + f" [{'GPU' if args.gpu else 'CPU'}, whole array]", flush=True)

        if args.json:
            record = {"n": n, "dtype": dtype, "chunks": chunks, "workers": len(workers),
                      "cluster": where, "gpu": args.gpu, "op": op, "descending": args.descending,
                      "distinct": args.distinct, "total_s": total, "runs_s": times[1:],
                      "keys_per_s": n / total, "phases_s": phases, "shuffle": shuffle,
                      "one_worker_s": baseline, "dask": dask.__version__,
                      "verified": None if verification is None else verification.ok,
                      "date": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime())}
            with open(args.json, "w") as f:
                json.dump(record, f, indent=1)
        return 0 if ok else 1
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
