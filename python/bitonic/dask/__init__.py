"""bitonic.dask — sort arrays larger than one GPU (or one host) on a Dask cluster.

``sort(x)`` and ``argsort(x)`` of a 1-D ``dask.array.Array`` with NumPy or CuPy chunks: a sample
sort whose every local sort and merge is bitonic's, on the worker holding the chunk (its GPU for
CuPy chunks). ``sort_function`` runs bitonic inside ``dask.dataframe.DataFrame.sort_values``.
``verify`` checks a result on the workers. ``python -m bitonic.dask bench`` measures it. Design,
bounds and failure behaviour: docs/DASK.md.

Needs dask (``pip install "dask[array]"``; distributed for a cluster and the bench). Importing
``bitonic`` alone never imports dask.
"""

try:
    import dask.array  # noqa: F401 - fails here, with the advice below, without dask
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError("bitonic.dask needs dask: python -m pip install 'dask[array]' distributed "
                      f"({e})") from e

from ._frame import sort_function
from ._sort import argsort, sort
from ._verify import Verification, fingerprint, verify

__all__ = ["sort", "argsort", "sort_function", "verify", "Verification", "fingerprint"]
