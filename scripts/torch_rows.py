#!/usr/bin/env python3
"""torch.sort(dim=-1) on rows, as `bitonic-sort bench --batched` times argsort_batched.

Usage: torch_rows.py --sizes 300,2049,4097 [--type f32|i32] [--total N] [--runs R] [--csv FILE]

For each row size: a (total / size, size) tensor of uniform random keys (f32: standard normal;
i32: the whole range; seed 1) on the current CUDA device, sorted along its rows by torch.sort
(values and int64 indices, what bitonic_batched_indices writes); CUDA events around the call
alone (out of place: the input is the same for every run), one warm-up, the median of the runs.
Writes the rows in the CSV columns of `bitonic-sort bench --csv` (algorithm torch_sort_rows), so
that scripts/plot draws them beside the CLI's. Needs torch with CUDA.
"""
import argparse
import datetime
import statistics
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", required=True, help="row sizes, comma-separated")
    parser.add_argument("--type", default="f32", choices=("f32", "i32"))
    parser.add_argument("--total", type=int, default=1 << 24, help="keys in all (default 2^24)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--csv")
    args = parser.parse_args()
    import torch  # only here, so that --help works without it

    if not torch.cuda.is_available():
        print("torch_rows.py needs a CUDA device", file=sys.stderr)
        return 1
    device = torch.cuda.get_device_name()
    date = datetime.date.today().isoformat()
    generator = torch.Generator(device="cuda").manual_seed(1)
    lines = ["device,date,key_type,value_type,n,arrays,total_keys,algorithm,internal_ms,"
             "keys_per_s,ok"]
    print(f"torch {torch.__version__}, {device}, {date}; median of {args.runs} runs")
    print(f"{'type':<6}{'array':>8}{'arrays':>9}{'torch_sort_rows ms':>20}")
    for size in (int(v) for v in args.sizes.split(",")):
        arrays = max(1, args.total // size)
        if args.type == "f32":
            x = torch.randn(arrays, size, device="cuda", generator=generator)
        else:
            x = torch.randint(-(2**31), 2**31 - 1, (arrays, size), device="cuda",
                              dtype=torch.int32, generator=generator)
        values, indices = torch.sort(x, dim=-1)  # warm-up, and the result checked once
        ok = bool(torch.equal(torch.gather(x, -1, indices), values)) and bool(
            (values[:, 1:] >= values[:, :-1]).all())
        times = []
        for _ in range(args.runs):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            torch.sort(x, dim=-1)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        ms = statistics.median(times)
        total = arrays * size
        print(f"{args.type:<6}{size:>8}{arrays:>9}{ms:>20.4f}{'' if ok else '  WRONG'}")
        lines.append(f'"{device}",{date},{args.type},batched,{size},{arrays},{total},'
                     f"torch_sort_rows,{ms:.6f},{total / ms * 1e3:.6g},{str(ok).lower()}")
        del x, values, indices
    if args.csv:
        with open(args.csv, "w", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
