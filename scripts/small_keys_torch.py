#!/usr/bin/env python3
"""bitonic against torch on 1- and 2-byte keys (float16, bfloat16, int8, int16): sort, sort with
indices, rows and top-k, as a Python user calls them on torch tensors.

Usage: small_keys_torch.py [--runs R] [--csv FILE] [--dtypes float16,bfloat16,int8,int16]

Each case times bitonic's call and torch's on the same tensor of uniform random keys (floats:
standard normal; integers: their whole range) on the current CUDA device: CUDA events around the
call alone (both are out of place, so the input is the same for every run), one warm-up, the
median of the runs. Cases: sort of 2^20, 2^24 and 2^27 keys (torch.sort gives values and
indices; bitonic.sort values only), sort with indices of 2^24 keys (bitonic.sort(x,
return_indices=True) against torch.sort), rows of 1024 keys, 2^24 in all (both with indices), and
topk of 4096 x 32768 keys with k = 100 (torch.topk). Needs the bitonic package and torch.
"""
import argparse
import datetime
import statistics
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--csv")
    parser.add_argument("--dtypes", default="float16,bfloat16,int8,int16")
    args = parser.parse_args()
    import torch  # only here, so that --help works without them

    import bitonic

    if not torch.cuda.is_available():
        sys.exit("small_keys_torch.py: no CUDA device")
    gen = torch.Generator(device="cuda").manual_seed(20261126)

    def keys(shape, dtype):
        kind = getattr(torch, dtype)
        if kind.is_floating_point:
            return torch.randn(shape, device="cuda", generator=gen).to(kind)
        info = torch.iinfo(kind)
        return torch.randint(info.min, info.max + 1, shape, device="cuda", generator=gen,
                             dtype=kind)

    def median_ms(call):
        call()  # warm-up: kernels loaded, scratch in the allocators
        times = []
        for _ in range(args.runs):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            call()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return statistics.median(times)

    cases = [("sort", (1 << 20,)), ("sort", (1 << 24,)), ("sort", (1 << 27,)),
             ("sort_indices", (1 << 24,)), ("rows_indices", (1 << 14, 1024)),
             ("topk_100", (4096, 32768))]
    device = torch.cuda.get_device_name()
    date = datetime.date.today().isoformat()
    print(f"device: {device}, {date}; torch {torch.__version__}; median of {args.runs} runs, ms")
    print(f"{'dtype':9} {'case':13} {'shape':>14} {'bitonic':>9} {'torch':>9} "
          f"{'torch/bitonic':>14}")
    rows = []
    for dtype in args.dtypes.split(","):
        for case, shape in cases:
            x = keys(shape, dtype)
            if case == "sort":
                ours = median_ms(lambda: bitonic.sort(x))
                theirs = median_ms(lambda: torch.sort(x))
            elif case in ("sort_indices", "rows_indices"):
                ours = median_ms(lambda: bitonic.sort(x, return_indices=True))
                theirs = median_ms(lambda: torch.sort(x))
            else:
                ours = median_ms(lambda: bitonic.topk(x, 100))
                theirs = median_ms(lambda: torch.topk(x, 100))
            text = "x".join(str(s) for s in shape)
            print(f"{dtype:9} {case:13} {text:>14} {ours:9.4f} {theirs:9.4f} "
                  f"{theirs / ours:13.2f}x")
            rows.append((device, date, dtype, case, text, ours, theirs))
            del x
            torch.cuda.empty_cache()
    if args.csv:
        with open(args.csv, "w") as out:
            out.write("device,date,dtype,case,shape,bitonic_ms,torch_ms\n")
            for r in rows:
                out.write(f'"{r[0]}",{r[1]},{r[2]},{r[3]},{r[4]},{r[5]:.5f},{r[6]:.5f}\n')


if __name__ == "__main__":
    main()
