"""bitonic inside dask.dataframe's sort_values: the per-partition sort after Dask's own quantiles
and shuffle."""

import numpy as np

import bitonic


def sort_function(df, by, ascending=True, na_position="last", ignore_index=False, **kwargs):
    """Sorts one partition as ``df.sort_values(by, ascending=..., na_position=...,
    ignore_index=..., kind="stable")`` would, with bitonic.argsort of the key column and a take
    of the rows. For ``dask.dataframe.DataFrame.sort_values(by, sort_function=sort_function)``,
    which calls it on every partition with these keyword arguments; pandas partitions (the
    argsort through bitonic's host sort: the GPU when there is one, else the CPU) and cuDF
    partitions (on the GPU, with CuPy).

    Stable: rows with equal keys keep their order (the default sort_values does not promise it).
    Falls back to the partition's own sort_values, with the same arguments, for what bitonic does
    not sort: several columns, keys other than int32, uint32, int64, uint64, float32, float64
    (pandas extension types, strings, datetimes, ...), cuDF columns with nulls, other keyword
    arguments.
    """
    columns = [by] if isinstance(by, str) else list(by)
    orders = [ascending] if isinstance(ascending, bool) else list(ascending)
    keys = _keys(df, columns, orders, kwargs)
    if keys is None:
        return df.sort_values(by=by, ascending=ascending, na_position=na_position,
                              ignore_index=ignore_index, **kwargs)
    descending = not orders[0]
    order = bitonic.argsort(keys, descending=descending, stable=True)
    if keys.dtype.kind == "f":  # NaNs end last ascending, first descending: move them if asked
        nans = int(_namespace(keys).isnan(keys).sum())
        if nans and (na_position == "first") != descending:
            cut = nans if descending else len(order) - nans
            order = _namespace(order).concatenate([order[cut:], order[:cut]])
    out = df.take(order)
    return out.reset_index(drop=True) if ignore_index else out


def _namespace(a):
    if isinstance(a, np.ndarray):
        return np
    import cupy

    return cupy


def _keys(df, columns, orders, kwargs):
    """The key column as a NumPy or CuPy array bitonic sorts, or None to fall back."""
    if kwargs or len(columns) != 1 or len(orders) != 1 or orders[0] not in (True, False):
        return None
    column = df[columns[0]]
    if getattr(column, "ndim", 1) != 1:  # a duplicated column name selects a frame
        return None
    dtype = column.dtype
    if not isinstance(dtype, np.dtype) or dtype.name not in bitonic.VALUE_DTYPES:
        return None
    if type(df).__module__.startswith("cudf"):
        if column.null_count:
            return None
        return column.values  # a CuPy array
    return np.ascontiguousarray(column.to_numpy())
