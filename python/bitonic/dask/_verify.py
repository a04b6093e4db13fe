"""Checks a distributed sort on the workers, without gathering the arrays to the client."""

from collections import namedtuple

import dask
import numpy as np

from ._sort import _namespace, codes

#: verify's result: ok when every check passed; `n` keys in `chunks` chunks, each chunk sorted
#: (`sorted_chunks`), the boundaries between chunks in order (`ordered_boundaries`), and the same
#: keys bit for bit as the input's (`same_keys`: count and fingerprint, the wrapping sum of a 64-bit
#: hash of every key's bits, equal).
Verification = namedtuple("Verification", ["ok", "sorted_chunks", "ordered_boundaries",
                                           "same_keys", "n", "chunks", "fingerprint"])

_MIX1, _MIX2, _GOLDEN = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 0x9E3779B97F4A7C15


def fingerprint(keys):
    """(count, wrapping uint64 sum of splitmix64 of each key's bits): equal for two arrays that
    hold the same keys bit for bit in any order, and almost surely different otherwise."""
    xp = _namespace(keys)
    z = keys.view(f"u{keys.dtype.itemsize}").astype(xp.uint64) + xp.uint64(_GOLDEN)
    z = (z ^ (z >> xp.uint64(30))) * xp.uint64(_MIX1)
    z = (z ^ (z >> xp.uint64(27))) * xp.uint64(_MIX2)
    z ^= z >> xp.uint64(31)
    return len(keys), int(z.sum(dtype=xp.uint64))


def _summary(keys, descending, order):
    """One chunk's [count, fingerprint] and, with `order`, [sorted, first code, last code]."""
    count, total = fingerprint(keys)
    row = [count, total]
    if order:
        c = codes(keys)
        ordered = bool((c[1:] <= c[:-1]).all() if descending else (c[1:] >= c[:-1]).all())
        row += [ordered, int(c[0]) if count else 0, int(c[-1]) if count else 0]
    return np.array(row, dtype=np.uint64)


def _summaries(x, descending, order):
    """The rows of _summary, one a chunk of x, computed where the chunks are."""
    width = 5 if order else 2
    return x.map_blocks(_summary, descending, order, chunks=((width,) * x.numblocks[0],),
                        dtype=np.uint64, meta=np.empty(0, np.uint64))


def verify(y, x, descending=False):
    """Checks that dask array y is dask array x sorted (ascending, or descending): each chunk of y
    sorted, the last key of each non-empty chunk not after the first of the next, and y's keys
    the same multiset as x's (count and fingerprint, computed chunk by chunk). Runs on the
    workers that hold the chunks (CuPy chunks on their GPU); five numbers per chunk come to the
    client. Returns a Verification."""
    out, inp = dask.compute(_summaries(y, descending, True), _summaries(x, descending, False))
    out, inp = out.reshape(-1, 5), inp.reshape(-1, 2)
    mask = (1 << 64) - 1
    n_out, sum_out = int(out[:, 0].sum()), sum(int(v) for v in out[:, 1]) & mask
    n_in, sum_in = int(inp[:, 0].sum()), sum(int(v) for v in inp[:, 1]) & mask
    sorted_chunks = bool(out[:, 2].all()) if len(out) else True
    ends = [(int(row[3]), int(row[4])) for row in out if row[0]]
    ordered = all((a[1] >= b[0]) if descending else (a[1] <= b[0])
                  for a, b in zip(ends, ends[1:]))
    same = n_out == n_in and sum_out == sum_in
    return Verification(sorted_chunks and ordered and same, sorted_chunks, ordered, same, n_in,
                        len(out), f"{sum_in:016x}")
