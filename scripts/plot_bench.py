#!/usr/bin/env python3
"""Plots a CSV written by `bitonic-sort bench --csv FILE`.

usage: plot_bench.py [--skip ALGORITHM]... CSV [CSV...] OUTDIR

For every key type in the CSVs, writes OUTDIR/keys_per_s_<type>.png (keys/s, device-resident, over
n) and OUTDIR/internal_ms_<type>.png (device-resident time over n). Top-k CSVs (`bench --topk`,
scripts/topk_torch.py: columns batch, n, k) give OUTDIR/topk_ms_<type>.png instead: the time of
each shape, one bar per algorithm. When the CSVs hold the same
(device, key type, algorithm, n) more than once, the last row wins: a later, partial run replaces
those points of an earlier full one. --skip leaves an algorithm out (e.g. automatic, which draws
over the variant it picks).
"""

import argparse
import csv
import os
import sys
from collections import defaultdict

# The peers the library is measured against; drawn dashed, the library's variants solid.
PEERS = {"cub_radix", "cub_merge", "thrust", "thrust_cmp", "std_sort", "qsort", "cub_segmented",
         "cub_segmented_radix", "torch_topk"}
MARKERS = "os^vDx+*Ph<>"  # distinct per line: automatic draws on top of the variant it picks
COLUMNS = {"device", "date", "key_type", "n", "algorithm", "internal_ms", "keys_per_s"}


def read_rows(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = COLUMNS - set(reader.fieldnames or [])
        if missing:
            missing = ", ".join(sorted(missing))
            sys.exit(f"plot_bench.py: {path} is not a bench CSV (missing {missing})")
        # The plots are of uniform keys; rows of other distributions (bench --dist) are left out.
        return [row for row in reader if (row.get("distribution") or "uniform") == "uniform"]


def record_kind(row):
    """The plot a row belongs to: its key type, plus the values of a records run
    (bench --values) or "batched" (bench --batched): "i32", "i32_u32", "f32_argsort", "i32_batched"."""
    values = row.get("value_type") or "none"
    return row["key_type"] if values == "none" else f"{row['key_type']}_{values}"


VALUE_KINDS = {"u32", "u64", "i32", "i64", "f32", "f64", "argsort", "argsort64", "batched"}


def describe_kind(kind):
    key_type, _, values = kind.partition("_")
    if values not in VALUE_KINDS:  # a key type of its own, e.g. the comparator bench's
        return f"{kind} keys"
    if values == "batched":  # bench --batched: n is each array's size, the total fixed
        return f"{key_type} keys in arrays of n, sorted each on its own"
    if not values:
        return f"{key_type} keys"
    if values.startswith("argsort"):
        index = "uint64" if values == "argsort64" else "uint32"
        return f"argsort of {key_type} keys ({index} indices)"
    return f"{key_type} keys + {values} values"


def series_by_type(rows):
    """{kind: {(device, algorithm): {n: row}}}, the last row of a point winning."""
    result = defaultdict(lambda: defaultdict(dict))
    for row in rows:
        result[record_kind(row)][(row["device"], row["algorithm"])][int(row["n"])] = row
    return result


def plot(plt, key_type, series, column, ylabel, path):
    devices = sorted({device for device, _ in series})
    dates = sorted({r["date"] for points in series.values() for r in points.values()})
    fig, ax = plt.subplots(figsize=(9, 6))
    # In the CSV's (table) order, the library's variants first.
    ordered = sorted(series.items(), key=lambda s: s[0][1] in PEERS)
    for index, ((device, algorithm), points) in enumerate(ordered):
        xs = [n for n in sorted(points) if points[n][column]]
        if not xs:
            continue
        label = algorithm if len(devices) == 1 else f"{algorithm} ({device})"
        ax.plot(xs, [float(points[n][column]) for n in xs], label=label,
                marker=MARKERS[index % len(MARKERS)], markersize=4,
                linestyle="--" if algorithm in PEERS else "-")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")  # the CPU peers are orders of magnitude apart from the GPU sorts
    ax.set_xlabel("array size n (keys)" if key_type.endswith("_batched") else "n (keys)")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{describe_kind(key_type)}, device-resident\n{', '.join(devices)} ({', '.join(dates)})")
    ax.grid(True, which="major", alpha=0.4)
    ax.legend(fontsize="small", ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(path)


def plot_topk(plt, key_type, rows, path):
    """Grouped bars: the median time of each (batch, n, k) shape, one bar per algorithm."""
    shapes, algorithms, times = [], [], {}
    for row in rows:  # the last row of a point wins
        shape = (int(row["batch"]), int(row["n"]), int(row["k"]))
        if shape not in shapes:
            shapes.append(shape)
        if row["algorithm"] not in algorithms:
            algorithms.append(row["algorithm"])
        times[shape, row["algorithm"]] = float(row["internal_ms"])
    algorithms.sort(key=lambda a: a in PEERS)
    devices = sorted({r["device"] for r in rows})
    dates = sorted({r["date"] for r in rows})
    fig, ax = plt.subplots(figsize=(11, 6))
    width = 0.8 / len(algorithms)
    for index, algorithm in enumerate(algorithms):
        xs = [i + index * width for i, s in enumerate(shapes) if (s, algorithm) in times]
        ys = [times[s, algorithm] for s in shapes if (s, algorithm) in times]
        bars = ax.bar(xs, ys, width, label=algorithm, hatch="//" if algorithm in PEERS else None)
        ax.bar_label(bars, fmt="%.3g", fontsize="x-small")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(shapes))])
    ax.set_xticklabels([f"{b}x{n}\nk={k}" for b, n, k in shapes], fontsize="small")
    ax.set_yscale("log")
    ax.set_ylabel("internal time (ms)")
    ax.set_title(f"top-k of {key_type} rows (batch x n, k), device-resident\n"
                 f"{', '.join(devices)} ({', '.join(dates)})")
    ax.grid(True, axis="y", which="major", alpha=0.4)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(path)


def main():
    parser = argparse.ArgumentParser(description="Plot bitonic-sort bench CSVs.")
    parser.add_argument("paths", nargs="+", metavar="CSV... OUTDIR",
                        help="CSVs written by bitonic-sort bench --csv, then the folder for the "
                             "PNG files (created if missing)")
    parser.add_argument("--skip", action="append", default=[], metavar="ALGORITHM",
                        help="leave this algorithm out (may be repeated)")
    args = parser.parse_args()
    if len(args.paths) < 2:
        parser.error("needs at least one CSV and the output folder")
    *csvs, outdir = args.paths
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only, no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_bench.py: matplotlib is not installed (python3 -m pip install matplotlib)")

    rows = [r for path in csvs for r in read_rows(path) if r["algorithm"] not in args.skip]
    if not rows:
        sys.exit(f"plot_bench.py: {', '.join(csvs)} hold no rows to plot")
    os.makedirs(outdir, exist_ok=True)
    topk = [r for r in rows if r.get("k")]
    for key_type in sorted({r["key_type"] for r in topk}):
        plot_topk(plt, key_type, [r for r in topk if r["key_type"] == key_type],
                  os.path.join(outdir, f"topk_ms_{key_type}.png"))
    rows = [r for r in rows if not r.get("k")]
    for key_type, series in sorted(series_by_type(rows).items()):
        plot(plt, key_type, series, "keys_per_s", "keys/s (internal)",
             os.path.join(outdir, f"keys_per_s_{key_type}.png"))
        plot(plt, key_type, series, "internal_ms", "internal time (ms)",
             os.path.join(outdir, f"internal_ms_{key_type}.png"))


if __name__ == "__main__":
    main()
