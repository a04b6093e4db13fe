"""The sample sort of a 1-D dask array: one graph of plain tasks, for any Dask scheduler.

With p chunks (c = 0..p-1 in the order of the sort; see `descending` below):

1. local (p tasks): chunk c sorted by bitonic on its own device (CuPy chunks on the GPU, NumPy
   chunks through the host sort), stably, with its keys' positions for argsort.
2. sample (p tasks): s keys at regular ranks of each sorted chunk, to the host.
3. plan (1 task): the p*s samples ordered by (key, chunk, rank); from the ranks of its samples
   each chunk's contribution below any sample is known to within one gap between samples, which
   bounds every sample's global rank. For each cut R_k (the output chunks' boundaries) the plan
   picks the last sample certainly at or below R_k and the first one certainly at or above it.
4. split (p tasks): each sorted chunk cut at those samples by searchsorted (ties broken by
   (chunk, rank), so duplicates are split like distinct keys), into p views and the count of its
   keys below each piece.
5. exchange (p*p getitem tasks, p gather tasks): piece (c, k) moves from split c to gather k,
   which concatenates its p pieces: about one copy of the data crosses the network.
6. merge (p tasks): the gathered keys sorted (stably) by bitonic; since the plan's samples bracket
   the cuts and the pieces say how many keys lie below them, the output chunk is an exact slice:
   chunk k holds ranks [R_k, R_k+1) and has exactly the input's chunk size, whatever the keys.

The order is a total one: keys by bitonic's order (NaNs last, -0.0 == +0.0), equal keys by
position. It is what numpy.sort(kind="stable") gives, bit for bit. Descending runs the same graph
on the reversed array and reverses the result: NaNs first, equal keys still in input order, as
bitonic.sort(descending=True, stable=True) on one array.

docs/DASK.md has the bounds (extra keys moved at the cuts) and what a worker's death does.
"""

import math
import operator

import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

import bitonic

SORT, ARGSORT = "sort", "argsort"
#: samples per chunk per output chunk: a cut's bracket then holds about 2n/(32p) keys, so the
#: keys moved twice come to about 1/16 of n (docs/DASK.md).
OVERSAMPLING = 32
#: the most samples the plan sorts, all chunks together (past 181 chunks this lowers s, and the
#: overlap grows as 2p^2/2^20 of n: rechunk to fewer, larger chunks).
MAX_SAMPLES = 1 << 20
_VERSION = 1  # in the graph's names: a change of the tasks' contract changes every key


class SortGraph:
    """The graph of one sort: `result` (the dask array) and, for benchmarks and tests, the keys of
    each phase (all in result's graph): local, sample, plan, split, piece, exchange, merge."""

    def __init__(self, result, layers):
        self.result = result
        self.layers = layers


def sort(x, descending=False):
    """Sorts a 1-D dask array whose chunks are NumPy or CuPy arrays; returns a dask array of x's
    dtype, chunk type and chunk sizes (lazy: nothing runs until it is computed).

    Keys: int32, uint32, int64, uint64, float32, float64 (bitonic.VALUE_DTYPES). Floats follow
    bitonic's total order: NaNs last (first when descending), -0.0 equal to +0.0. The sort is
    stable: equal keys (-0.0 and +0.0, NaNs of any bits) keep their input order, so the result
    equals numpy.sort(x, kind="stable") bit for bit (descending: bitonic.sort(x, descending=True,
    stable=True) of the whole array).

    Each chunk is sorted and merged by bitonic on the worker that holds it: CuPy chunks on that
    worker's GPU (its current CuPy stream), NumPy chunks through bitonic's host sort (the GPU when
    the worker has one, else its CPU). Works with any Dask scheduler: threads, processes, or a
    dask.distributed cluster (LocalCluster, dask_cuda.LocalCUDACluster, many nodes).

    Raises TypeError (not a dask array, a key type bitonic does not sort, chunks that are neither
    NumPy nor CuPy arrays) or ValueError (not 1-d, unknown chunk sizes: call
    x.compute_chunk_sizes() first) when called.
    """
    return build(x, descending, SORT).result


def argsort(x, descending=False):
    """The positions (int64, global in x) that sort a 1-D dask array: x[argsort(x)] equals
    sort(x). Stable: equal keys in ascending positions, as numpy.argsort(x, kind="stable")
    (descending: still in ascending positions, as bitonic.argsort(stable=True)). Returns a dask
    array of x's chunk type and chunk sizes; see `sort` for the keys, the order, where it runs and
    the errors.
    """
    return build(x, descending, ARGSORT).result


def build(x, descending, op, salt=None):
    """The SortGraph of sort (op="sort") or argsort (op="argsort") of x; a `salt` makes keys of
    its own (a benchmark's repeated runs)."""
    fn = f"bitonic.dask.{op}"
    meta = _check(fn, x, descending)
    sizes = tuple(int(c) for c in x.chunks[0])
    p, n = len(sizes), sum(sizes)
    out_meta = meta if op == SORT else meta.astype(np.int64)
    dtype = out_meta.dtype
    stable = np.dtype(x.dtype).kind == "f"  # keys that compare equal can differ in bits
    token = tokenize(x.name, bool(descending), op, _VERSION, salt)
    out = f"bitonic-{op}-{token}"

    if p == 1 or n == 0:  # nothing to exchange
        dsk = {(out, 0): (_single, (x.name, 0), bool(descending), op, stable)} if p == 1 else {
            (out, i): (_empty, (x.name, i), op) for i in range(p)}
        graph = HighLevelGraph.from_collections(out, dsk, dependencies=[x])
        return SortGraph(da.Array(graph, out, x.chunks, dtype=dtype, meta=out_meta),
                         {"merge": list(dsk)})

    # Descending: the ascending sort of the reversed array, reversed. Internal chunk c is input
    # chunk src[c]; internal output chunk k is output chunk dst[k].
    src = list(range(p - 1, -1, -1)) if descending else list(range(p))
    csizes = [sizes[i] for i in src]
    offsets = [0]
    for size in csizes:
        offsets.append(offsets[-1] + size)
    per_chunk = max(1, min(OVERSAMPLING * p, MAX_SAMPLES // p))
    names = {phase: f"bitonic-{op}-{phase}-{token}" for phase in
             ("local", "sample", "plan", "split", "piece", "exchange")}
    plan = names["plan"]
    with_positions = op == ARGSORT
    dsk = {}
    for c, i in enumerate(src):
        local = (names["local"], c)
        dsk[local] = (_local_sort, (x.name, i), str(x.dtype), bool(descending), with_positions,
                      offsets[c], stable)
        dsk[(names["sample"], c)] = (_sample, local, per_chunk)
        dsk[(names["split"], c)] = (_split, local, plan, c)
        for k in range(p):
            dsk[(names["piece"], c, k)] = (operator.getitem, (names["split"], c), k)
    dsk[plan] = (_plan, [(names["sample"], c) for c in range(p)], tuple(offsets))
    for k in range(p):
        exchange = (names["exchange"], k)
        dsk[exchange] = (_gather, [(names["piece"], c, k) for c in range(p)])
        dst = p - 1 - k if descending else k
        dsk[(out, dst)] = (_merge, exchange, offsets[k], offsets[k + 1], bool(descending), n, op,
                           stable)
    graph = HighLevelGraph.from_collections(out, dsk, dependencies=[x])
    layers = {phase: [key for key in dsk if key == name or key[0] == name]
              for phase, name in names.items()}
    layers["merge"] = [(out, k) for k in range(p)]
    return SortGraph(da.Array(graph, out, x.chunks, dtype=dtype, meta=out_meta), layers)


def _check(fn, x, descending):
    """x's meta (a 0-length NumPy or CuPy array) once x is a sortable dask array; else raises."""
    if not isinstance(x, da.Array):
        raise TypeError(f"{fn}: x must be a dask.array.Array, got {type(x).__name__} (bitonic.sort "
                        "sorts NumPy, CuPy, torch and JAX arrays)")
    if descending not in (True, False):
        raise TypeError(f"{fn}: descending must be a bool, got {descending!r}")
    if x.ndim != 1:
        raise ValueError(f"{fn}: x has {x.ndim} dimensions; it sorts 1-d arrays (ravel x, or "
                         "sort each row with x.map_blocks(bitonic.sort) on chunks of whole rows)")
    if any(math.isnan(c) for c in x.chunks[0]):
        raise ValueError(f"{fn}: x has chunks of unknown size; call x.compute_chunk_sizes() first")
    name = np.dtype(x.dtype).name
    if name not in bitonic.VALUE_DTYPES or not np.dtype(x.dtype).isnative:
        raise TypeError(f"{fn}: x has dtype {np.dtype(x.dtype).str}; supported key types: "
                        f"{', '.join(bitonic.VALUE_DTYPES)} (native byte order)")
    meta = x._meta
    if _namespace(meta, None) is None:
        raise TypeError(f"{fn}: x's chunks are {type(meta).__module__}.{type(meta).__name__}; "
                        "it sorts chunks that are numpy.ndarray or cupy.ndarray")
    return meta


def _namespace(a, fn="bitonic.dask"):
    """numpy or cupy, the module of array `a` (exactly their ndarray: no masked or sparse arrays);
    None (fn=None) or TypeError for anything else."""
    if type(a) is np.ndarray:
        return np
    if type(a).__module__.startswith("cupy"):
        import cupy

        if type(a) is cupy.ndarray:
            return cupy
    if fn is None:
        return None
    raise TypeError(f"{fn}: a chunk is a {type(a).__module__}.{type(a).__name__}; it sorts "
                    "numpy.ndarray or cupy.ndarray chunks")


def _own_copy(block, dtype, reverse):
    """A C-contiguous copy of 1-d `block` (reversed when asked) that the sort may overwrite."""
    xp = _namespace(block)
    if block.ndim != 1 or str(block.dtype) != dtype:
        raise TypeError(f"bitonic.dask: a chunk is {block.dtype} of shape {block.shape}; the "
                        f"dask array says 1-d {dtype}")
    return xp, xp.array(block[::-1] if reverse else block, copy=True, order="C")


def _finished(xp, *arrays):
    """`arrays` once the work enqueued on them is done: bitonic and CuPy return before the GPU
    has finished, and the next task may run on another thread's stream, or UCX may send the
    result, or a benchmark may stop its clock."""
    if xp is not np:
        xp.cuda.get_current_stream().synchronize()
    return arrays if len(arrays) > 1 else arrays[0]


# Tasks. Their results are this graph's own: nothing outside it holds them, so merge may sort its
# gathered arrays in place (a rerun of it sorts them again, to the same result).


def _single(block, descending, op, stable):
    """One chunk: the whole sort."""
    xp, keys = _own_copy(block, str(block.dtype), False)
    if op == ARGSORT:
        return _finished(xp, bitonic.argsort(keys, descending=descending, stable=True))
    return _finished(xp, bitonic.sort(keys, descending=descending, stable=stable, inplace=True))


def _empty(block, op):
    return _finished(_namespace(block), block.astype(np.int64) if op == ARGSORT else block.copy())


def _local_sort(block, dtype, reverse, with_positions, offset, stable):
    """Internal chunk: (sorted keys, their internal global positions or None)."""
    xp, keys = _own_copy(block, dtype, reverse)
    if not with_positions:
        return _finished(xp, bitonic.sort(keys, stable=stable, inplace=True)), None
    keys, positions = bitonic.sort(keys, stable=True, inplace=True, return_indices=True)
    positions += offset
    return _finished(xp, keys, positions)


def _sample(local, count):
    """(keys at `s` regular ranks of the sorted chunk, on the host; those ranks; chunk size)."""
    keys = local[0]
    m = len(keys)
    s = min(m, count)
    ranks = (2 * np.arange(s, dtype=np.int64) + 1) * m // (2 * s) if s else np.zeros(0, np.int64)
    xp = _namespace(keys)
    samples = keys[ranks] if xp is np else xp.asnumpy(keys[xp.asarray(ranks)])
    return samples, ranks, m


def codes(keys):
    """uint64 codes of keys (NumPy or CuPy) in bitonic's order: equal codes for keys that compare
    equal (-0.0 and +0.0; all NaNs, above +inf), increasing with the key otherwise."""
    xp = _namespace(keys)
    if keys.dtype.kind == "u":
        return keys.astype(xp.uint64)
    if keys.dtype.kind == "i":
        return keys.astype(xp.int64).view(xp.uint64) ^ xp.uint64(1 << 63)
    width = keys.dtype.itemsize * 8
    canonical = xp.where(xp.isnan(keys), keys.dtype.type(np.nan),
                         xp.where(keys == 0, keys.dtype.type(0), keys))
    bits = canonical.view(f"u{keys.dtype.itemsize}").astype(xp.uint64)
    sign = xp.uint64(1 << (width - 1))
    return xp.where(bits & sign, ~bits & xp.uint64((1 << width) - 1), bits | sign)


def _plan(samples, offsets):
    """The split plan: a table of boundary samples (keys, chunk, rank in chunk) and for each
    internal output chunk k the boundaries (lower, upper) of the keys it must receive (-1: from
    the first key, to the last), or None when it is empty."""
    n = offsets[-1]
    keys = np.concatenate([s[0] for s in samples])
    chunk = np.concatenate([np.full(len(s[1]), c, np.int64) for c, s in enumerate(samples)])
    rank = np.concatenate([s[1] for s in samples])
    # Below the a-th sample of chunk c lie ranks[c][a] of c's keys. Whatever the key e of another
    # sample, if a samples of c lie below e then c holds between ranks[c][a-1] + 1 and
    # ranks[c][a] keys below e (0 and m_c at the ends): the sums of both over c bound e's global
    # rank. Walking the samples in order, passing a sample of c moves c's two terms by its gaps.
    step_lo, step_hi, hi0 = [], [], 0
    for _, s_ranks, m in samples:
        if len(s_ranks):
            step_lo.append(np.diff(s_ranks, prepend=-1))
            step_hi.append(np.diff(s_ranks, append=m))
            hi0 += int(s_ranks[0])
    order = np.lexsort((rank, chunk, codes(keys)))
    step_lo = np.concatenate(step_lo)[order]
    step_hi = np.concatenate(step_hi)[order]
    lower = np.cumsum(step_lo) - step_lo  # the bounds of the t-th sample in order, increasing
    upper = hi0 + np.cumsum(step_hi) - step_hi

    table = {}  # sample index -> boundary index

    def boundary(t):
        return table.setdefault(int(order[t]), len(table))

    parts = []
    for k in range(len(offsets) - 1):
        start, stop = offsets[k], offsets[k + 1]
        if start == stop:
            parts.append(None)
            continue
        lo = hi = -1
        if start > 0:  # the last sample whose rank is certainly <= start
            t = int(np.searchsorted(upper, start, "right")) - 1
            lo = boundary(t) if t >= 0 else -1
        if stop < n:  # the first sample with certainly >= stop keys below it
            t = int(np.searchsorted(lower, stop, "left"))
            hi = boundary(t) if t < len(lower) else -1
        parts.append((lo, hi))
    picked = np.fromiter(table, np.int64, len(table))
    return keys[picked], chunk[picked], rank[picked], parts


def _split(local, plan, c):
    """Internal chunk c cut for each internal output chunk k: (keys, positions or None, count of
    c's keys below the piece)."""
    keys, positions = local
    b_keys, b_chunk, b_rank, parts = plan
    m = len(keys)
    if len(b_keys):
        xp = _namespace(keys)
        needles = b_keys if xp is np else xp.asarray(b_keys)
        left = xp.searchsorted(keys, needles, "left")
        right = xp.searchsorted(keys, needles, "right")
        if xp is not np:
            left, right = xp.asnumpy(left), xp.asnumpy(right)
        # Keys of c below boundary (key, chunk j, rank r): those < key, those == key too when
        # c comes before j, and exactly r when the boundary is c's own sample.
        counts = np.where(b_chunk == c, b_rank, np.where(b_chunk > c, right, left))
    pieces = []
    for part in parts:
        lo = hi = 0
        if part is not None:
            lo = 0 if part[0] < 0 else int(counts[part[0]])
            hi = m if part[1] < 0 else max(lo, int(counts[part[1]]))
        pieces.append((keys[lo:hi], None if positions is None else positions[lo:hi], lo))
    return tuple(pieces)


def _gather(pieces):
    """Internal output chunk k's pieces, in chunk order: (keys, positions or None, rank of the
    first key: the count of keys below the pieces)."""
    xp = _namespace(pieces[0][0])
    keys = xp.concatenate([piece[0] for piece in pieces])
    positions = None
    if pieces[0][1] is not None:
        positions = xp.concatenate([piece[1] for piece in pieces])
    return _finished(xp, keys, positions) + (sum(piece[2] for piece in pieces),)


def _merge(gathered, start, stop, reverse, n, op, stable):
    """Output chunk: ranks [start, stop) of the gathered keys once sorted (stably, so that equal
    keys follow (chunk, rank), the order the cuts were made in)."""
    keys, positions, base = gathered
    lo, hi = start - base, stop - base
    if start == stop:  # an empty chunk: its pieces are empty too
        lo = hi = 0
    elif lo < 0 or hi > len(keys):
        raise RuntimeError(
            f"bitonic.dask: the pieces of output ranks [{start}, {stop}) hold ranks [{base}, "
            f"{base + len(keys)}): the chunks changed between tasks (are x's tasks "
            "deterministic?)")
    xp = _namespace(keys)
    if positions is None:
        bitonic.sort(keys, stable=stable, inplace=True)
        out = keys[lo:hi]
    else:
        bitonic.sort_pairs(keys, positions, stable=True, inplace=True)
        out = positions[lo:hi] if op == ARGSORT else keys[lo:hi]
        if reverse and op == ARGSORT:
            out = (n - 1) - out
    if reverse:
        out = out[::-1]
    return _finished(xp, xp.array(out, copy=True, order="C"))  # not a view of the window
