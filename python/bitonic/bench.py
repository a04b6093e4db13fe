"""``python -m bitonic bench``: bitonic against the sorts Python users have, in one process.

Rows, where their library imports: the C++ call through the extension (``_core``, what the C++
benchmark's ``automatic`` row times, plus one nanobind call), in place and out of place (the C++
``sort(d_in, d_out, n)`` into an output allocated once), ``bitonic.sort`` on a torch tensor in place
and out of place (a new tensor each call, as a user gets it), ``torch.sort`` (values and indices:
torch has no keys-only sort), ``bitonic.sort(return_indices=True)`` (the same output as
torch.sort's), ``bitonic.argsort`` and ``torch.argsort``, unstable and stable, ``bitonic.sort``
on a CuPy array and ``cupy.sort``, NVIDIA's ``cuda.compute`` (cuda-cccl) radix and merge sorts
with their temporary storage allocated once, and on the host ``numpy.sort`` against
``bitonic.sort`` of a NumPy array (``sort_host``: host to device, sort, back).

Measured as the C++ benchmark measures (shared/DESIGN.md): CUDA events on the current stream
around the call, warm-up runs first, the median of ``--runs`` (at least 5), and a fresh copy of the
unsorted input before every run, outside the events. Host rows: wall time, same rules. Every
result is checked against a reference sort of the same input.
"""

import argparse
import datetime
import statistics
import sys
import time

from . import _arrays, _core, argsort, sort
from ._arrays import SORT, SORT_COPY

_SHORT = {"i32": "int32", "u32": "uint32", "i64": "int64", "u64": "uint64", "f32": "float32",
          "f64": "float64"}


def _parse_sizes(args):
    if args.n:
        return [int(v) for v in args.n.split(",")]
    text = args.log2n
    if ":" in text:
        lo, hi = (int(v) for v in text.split(":"))
        exps = range(lo, hi + 1)
    else:
        exps = [int(v) for v in text.split(",")]
    return [1 << e for e in exps]


def _size_name(n):
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def _keys(np, n, dtype, seed):
    """Uniform random keys over the type's whole range; floats ``rand() * 2 - 1``: 2^24 values in
    [-1, 1) (the C++ bench's ``--dist unit``), not the C++ bench's default floats."""
    rng = np.random.default_rng(seed)
    if dtype.startswith("float"):
        return (rng.random(n, dtype=dtype) * 2 - 1).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)


def _median_gpu(events, sync, prepare, run, runs, warmup):
    """Median ms between two events around run(); prepare() (the fresh input) outside them."""
    start, end = events()
    times = []
    for i in range(warmup + runs):
        prepare()
        start.record()
        result = run()
        end.record()
        sync(end)
        if i >= warmup:
            times.append(start_elapsed(start, end))
    return statistics.median(times), result


def start_elapsed(start, end):
    # torch.cuda.Event.elapsed_time(end) and cupy.cuda.get_elapsed_time(start, end) both in ms.
    if hasattr(start, "elapsed_time"):
        return start.elapsed_time(end)
    return sys.modules["cupy"].cuda.get_elapsed_time(start, end)


def _median_host(prepare, run, runs, warmup):
    times = []
    for i in range(warmup + runs):
        prepare()
        t0 = time.perf_counter()
        result = run()
        elapsed = (time.perf_counter() - t0) * 1e3
        if i >= warmup:
            times.append(elapsed)
    return statistics.median(times), result


class _Table:
    def __init__(self, csv_path, device):
        self.rows = []
        self.device = device
        self.date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
        self.csv = open(csv_path, "w") if csv_path else None
        if self.csv:
            self.csv.write("device,date,key_type,n,algorithm,ms,ns_per_key,keys_per_s,"
                           "x_torch_sort,check\n")

    def section(self, dtype, n, runs):
        self.dtype, self.n, self.rows = dtype, n, []
        keys = "rand() * 2 - 1" if dtype.startswith("float") else "uniform"
        print(f"\n{dtype} ({keys}), n = {_size_name(n)} = {n}, {self.device}: "
              f"median of {runs} runs")
        print(f"{'algorithm':<34}{'ms':>11}{'ns/key':>10}{'keys/s':>11}{'x torch.sort':>14}"
              f"  check")

    def add(self, name, ms, ok, torch_ms=None):
        ns = ms * 1e6 / self.n
        rate = self.n / (ms / 1e3) if ms > 0 else float("inf")
        speedup = f"{torch_ms / ms:.2f}" if torch_ms and ms > 0 else "-"
        check = "ok" if ok else "WRONG"
        print(f"{name:<34}{ms:>11.4f}{ns:>10.3f}{rate / 1e9:>9.2f} G{speedup:>14}  {check}")
        if self.csv:
            self.csv.write(f"{self.device},{self.date},{self.dtype},{self.n},{name},{ms:.6f},"
                           f"{ns:.4f},{rate:.0f},{speedup},{check}\n")
        sys.stdout.flush()

    def skip(self, name, reason):
        print(f"{name:<34}{'skipped: ' + reason}")


def run_bench(args):
    try:
        import numpy as np
    except ImportError:
        print("python -m bitonic bench needs numpy", file=sys.stderr)
        return 2
    peers = set(args.peers.split(","))
    torch = cupy = None
    if "torch" in peers:
        try:
            import torch  # noqa: F811
            if not torch.cuda.is_available():
                torch = None
        except ImportError:
            torch = None
    if "cupy" in peers or "cccl" in peers:
        try:
            import cupy  # noqa: F811
            cupy.cuda.runtime.getDeviceCount()
        except Exception:  # noqa: BLE001 - no CuPy, or no device for it
            cupy = None
    gpu = _core.gpu_available()
    device = "no GPU"
    if gpu and torch is not None:
        device = torch.cuda.get_device_name()
    elif gpu and cupy is not None:
        device = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    if args.runs < 5:
        print(f"note: --runs {args.runs}: fewer than the 5 runs the project's figures use",
              file=sys.stderr)
    if not gpu:
        print("note: no CUDA device: only the host rows run (sort_host on the CPU)",
              file=sys.stderr)
    if gpu and torch is None and cupy is None:
        print("note: neither torch nor cupy imports with a GPU: only the host rows run",
              file=sys.stderr)

    table = _Table(args.csv, device)
    types = [_SHORT.get(t, t) for t in args.type.split(",")]
    for dtype in types:
        if dtype not in _arrays.CODES:
            print(f"unknown --type {dtype}; one of {', '.join(_SHORT)}", file=sys.stderr)
            return 2
    if args.rows:
        if torch is None or not gpu:
            print("python -m bitonic bench --rows needs a GPU and torch", file=sys.stderr)
            return 2
        for dtype in types:
            for size in (int(v) for v in args.rows.split(",")):
                _bench_rows(np, torch, table, dtype, size, args)
        return 0
    for dtype in types:
        code = _arrays.CODES[dtype]
        for n in _parse_sizes(args):
            host = _keys(np, n, dtype, args.seed)
            table.section(dtype, n, args.runs)
            _bench_size(np, torch, cupy, gpu, table, host, dtype, code, n, args, peers)
    return 0


def _bench_size(np, torch, cupy, gpu, table, host, dtype, code, n, args, peers):
    runs, warmup = args.runs, args.warmup
    torch_ms = None
    if gpu and torch is not None:
        xd = torch.from_numpy(host).cuda()
        buf = torch.empty_like(xd)
        events = lambda: (torch.cuda.Event(enable_timing=True),  # noqa: E731
                          torch.cuda.Event(enable_timing=True))
        sync = lambda e: e.synchronize()  # noqa: E731
        prepare = lambda: buf.copy_(xd)  # noqa: E731
        try:
            ref = torch.sort(xd).values
            ms, (values, _) = _median_gpu(events, sync, lambda: None, lambda: torch.sort(xd),
                                          runs, warmup)
            torch_ms = ms
            torch_row = (ms, bool(torch.equal(values, ref)))
        except RuntimeError as e:  # torch lacks sort for some unsigned types
            ref = torch.from_numpy(np.sort(host)).cuda()
            torch_row = str(e).splitlines()[0][:60]
        dev = xd.device.index

        def core_call(op, src):  # in place (SORT: buf) or from xd into buf (SORT_COPY)
            stream = torch.cuda.current_stream().cuda_stream
            second = buf.data_ptr() if op == SORT_COPY else 0
            _core.run(op, True, src.data_ptr(), second, 1, n, code, code, False, False, stream,
                      0, 0, dev)
            return buf

        for name, run, prep in (
                ("bitonic C++ call (_core)", lambda: core_call(SORT, buf), prepare),
                ("bitonic C++ call, out of place", lambda: core_call(SORT_COPY, xd),
                 lambda: None),
                ("bitonic.sort(torch, inplace)", lambda: sort(buf, inplace=True), prepare),
                ("bitonic.sort(torch)", lambda: sort(xd), lambda: None)):
            ms, result = _median_gpu(events, sync, prep, run, runs, warmup)
            table.add(name, ms, bool(torch.equal(result, ref)), torch_ms)
        if isinstance(torch_row, tuple):
            table.add("torch.sort (values, indices)", *torch_row, torch_ms)
        else:
            table.skip("torch.sort", torch_row)
        _bench_torch_indices(np, torch, table, host, xd, ref, events, sync, runs, warmup,
                             torch_ms)
        del xd, buf, ref
    if gpu and cupy is not None:
        xc = cupy.asarray(host)
        ref = cupy.asarray(np.sort(host))
        events = lambda: (cupy.cuda.Event(), cupy.cuda.Event())  # noqa: E731
        sync = lambda e: e.synchronize()  # noqa: E731
        nothing = lambda: None  # noqa: E731
        if "cupy" in peers:
            for name, run in (("bitonic.sort(cupy)", lambda: sort(xc)),
                              ("cupy.sort", lambda: cupy.sort(xc))):
                ms, result = _median_gpu(events, sync, nothing, run, runs, warmup)
                table.add(name, ms, bool(cupy.array_equal(result, ref)), torch_ms)
        if "cccl" in peers:
            _bench_cccl(cupy, table, xc, ref, n, events, sync, runs, warmup, torch_ms)
        del xc, ref
    if "numpy" in peers and n <= 1 << args.cpu_max_log2n:
        ref = np.sort(host)
        buf = np.empty_like(host)
        prepare = lambda: np.copyto(buf, host)  # noqa: E731
        cpu_runs = max(1, args.cpu_runs)
        ms, result = _median_host(prepare, lambda: np.sort(buf), cpu_runs, 0)
        table.add("numpy.sort (host)", ms, bool(np.array_equal(result, ref)), torch_ms)
        ms, result = _median_host(prepare, lambda: sort(buf, inplace=True), cpu_runs, 1)
        table.add("bitonic.sort(numpy) (host to host)", ms, bool(np.array_equal(result, ref)),
                  torch_ms)
    elif "numpy" in peers:
        table.skip("numpy.sort", f"n > 2^{args.cpu_max_log2n} (--cpu-max-log2n)")


def _bench_torch_indices(np, torch, table, host, xd, ref, events, sync, runs, warmup, torch_ms):
    """Keys with their indices, as torch.sort returns them, and argsort against torch.argsort:
    unstable (both libraries' default) and stable."""
    try:
        ref_idx = torch.argsort(xd, stable=True)
        peer = lambda: torch.argsort(xd)  # noqa: E731
        stable_peer = lambda: torch.argsort(xd, stable=True)  # noqa: E731
    except RuntimeError:  # torch lacks sort for some unsigned types
        ref_idx = torch.from_numpy(np.argsort(host, kind="stable")).cuda()
        peer = stable_peer = None
    positions = torch.arange(xd.numel(), device=xd.device)

    def sorting_indices(indices):  # each position once, and the keys they gather sorted
        return bool(torch.equal(xd[indices], ref) and
                    torch.equal(torch.sort(indices).values, positions))

    def sorted_with_indices(result):  # the sorted keys, and indices that reproduce them
        values, indices = result
        return bool(torch.equal(values, ref)) and sorting_indices(indices)

    def stable_indices(indices):
        return bool(torch.equal(indices, ref_idx))

    rows = [("bitonic.sort(torch, return_indices)", lambda: sort(xd, return_indices=True),
             sorted_with_indices),
            ("bitonic.argsort(torch)", lambda: argsort(xd), sorting_indices)]
    if peer is not None:
        rows.append(("torch.argsort", peer, sorting_indices))
    rows.append(("bitonic.argsort(torch, stable=True)", lambda: argsort(xd, stable=True),
                 stable_indices))
    if stable_peer is not None:
        rows.append(("torch.argsort(stable=True)", stable_peer, stable_indices))
    for name, run, check in rows:
        ms, result = _median_gpu(events, sync, lambda: None, run, runs, warmup)
        table.add(name, ms, check(result), torch_ms)


def _bench_rows(np, torch, table, dtype, size, args):
    """--rows: a (total / size, size) torch tensor sorted along its rows, keys alone and with
    their indices, against torch.sort(dim=-1) (values and indices)."""
    rows = max(1, args.total // size)
    host = _keys(np, rows * size, dtype, args.seed).reshape(rows, size)
    xd = torch.from_numpy(host).cuda()
    ref = torch.sort(xd, dim=-1).values
    work = torch.empty_like(xd)
    runs, warmup = args.runs, args.warmup
    torch.cuda.synchronize()
    events = lambda: (torch.cuda.Event(enable_timing=True),  # noqa: E731
                      torch.cuda.Event(enable_timing=True))
    sync = lambda end: end.synchronize()  # noqa: E731
    fresh = lambda: work.copy_(xd)  # noqa: E731
    table.section(dtype, rows * size, runs)
    print(f"({rows} rows of {size})")
    torch_ms, result = _median_gpu(events, sync, lambda: None, lambda: torch.sort(xd, dim=-1),
                                   runs, warmup)
    ok = bool(torch.equal(result.values, ref)) and bool(
        torch.equal(torch.gather(xd, -1, result.indices), ref))
    table.add(f"torch.sort(dim=-1) rows of {size}", torch_ms, ok, torch_ms)

    def keys_only():
        sort(work, inplace=True)
        return work

    ms, out = _median_gpu(events, sync, fresh, keys_only, runs, warmup)
    table.add(f"bitonic.sort(torch, inplace) rows of {size}", ms, bool(torch.equal(out, ref)),
              torch_ms)
    ms, out = _median_gpu(events, sync, lambda: None, lambda: sort(xd, return_indices=True), runs,
                          warmup)
    ok = bool(torch.equal(out.values, ref)) and bool(
        torch.equal(torch.gather(xd, -1, out.indices), ref))
    table.add(f"bitonic.sort(return_indices) rows of {size}", ms, ok, torch_ms)


def _bench_cccl(cupy, table, xc, ref, n, events, sync, runs, warmup, torch_ms):
    try:
        import cuda.compute as cc  # cuda-cccl: NVIDIA's Python bindings of CUB
    except Exception as e:  # noqa: BLE001 - any failure to import means "not importable"
        table.skip("cuda.compute", f"not importable ({type(e).__name__})")
        return
    out = cupy.empty_like(xc)
    nothing = lambda: None  # noqa: E731
    sorts = (("cuda.compute radix_sort",
              lambda: cc.make_radix_sort(xc, out, None, None, cc.SortOrder.ASCENDING),
              lambda algo, temp: algo(temp, xc, out, None, None, n)),
             ("cuda.compute merge_sort",
              lambda: cc.make_merge_sort(xc, None, out, None, cc.OpKind.LESS),
              lambda algo, temp: algo(temp, xc, None, out, None, n)))
    for name, make, call in sorts:
        try:
            algo = make()
            temp = cupy.empty(call(algo, None), dtype=cupy.uint8)  # its temporary storage, once
            ms, _ = _median_gpu(events, sync, nothing, lambda: call(algo, temp), runs, warmup)
            table.add(name, ms, bool(cupy.array_equal(out, ref)), torch_ms)
        except Exception as e:  # noqa: BLE001 - an API that moved between cuda-cccl versions
            table.skip(name, f"{type(e).__name__}: {str(e)[:60]}")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bitonic bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log2n", default="16,20,24", help="A:B or A,B,... (default 16,20,24)")
    parser.add_argument("--n", default="", help="sizes N,... (instead of --log2n)")
    parser.add_argument("--type", default="f32", help="i32,u32,i64,u64,f32,f64 (default f32)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs, median (default 5)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed runs first (default 2)")
    parser.add_argument("--cpu-runs", type=int, default=1, help="runs of the host rows")
    parser.add_argument("--cpu-max-log2n", type=int, default=24,
                        help="largest size of the host rows (default 24)")
    parser.add_argument("--peers", default="torch,cupy,cccl,numpy",
                        help="which peers to run (default torch,cupy,cccl,numpy)")
    parser.add_argument("--csv", default="", help="also write the rows to this CSV file")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--rows", default="",
                        help="row sizes S,...: --total keys in rows of S, sorted along the rows "
                             "(bitonic's batched sorts) against torch.sort(dim=-1)")
    parser.add_argument("--total", type=int, default=1 << 24,
                        help="keys in all in the --rows mode (default 2^24)")
    return run_bench(parser.parse_args(argv))
