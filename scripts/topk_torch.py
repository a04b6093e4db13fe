#!/usr/bin/env python3
"""torch.topk on the shapes of `bitonic-sort bench --topk default` (issue 21), for the same table.

Usage: topk_torch.py [--runs R] [--csv FILE] [SHAPE ...]   (SHAPE: BATCHxN:K, default: issue 21's)

Times torch.topk(x, k, dim=-1, largest=True, sorted=True) (values and int64 indices) on float32
rows of uniform random keys on the current CUDA device: CUDA events around the call alone, one
warm-up, the median of the runs, as the C++ bench times bitonic::topk. Run it beside the bench on
the same GPU; figures from different machines do not compare.
"""
import argparse
import datetime
import statistics
import sys

DEFAULT_SHAPES = ["1x134217728:1000", "1x16777216:100", "1x1048576:2048", "64x131072:50",
                  "4096x32768:100", "16384x4096:64", "10000x65536:10", "256x1048576:1024"]


def parse_shape(text):
    batch, rest = text.split("x")
    n, k = rest.split(":")
    return int(batch), int(n), int(k)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shapes", nargs="*", default=DEFAULT_SHAPES)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--csv")
    args = parser.parse_args()
    import torch  # only here, so that --help works without it

    if not torch.cuda.is_available():
        sys.exit("topk_torch.py: no CUDA device")
    device = torch.cuda.get_device_name()
    date = datetime.date.today().isoformat()
    gen = torch.Generator(device="cuda").manual_seed(20261121)
    rows = []
    print(f"device: {device}, {date}; torch {torch.__version__}, torch.topk largest=True, "
          f"median of {args.runs} runs")
    print(f"{'type':5} {'batch':>7} {'n':>11} {'k':>6} {'torch_topk':>14}")
    for text in args.shapes:
        batch, n, k = parse_shape(text)
        x = torch.rand((batch, n), device="cuda", generator=gen)
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        samples = []
        for run in range(args.runs + 1):  # run 0 warms up
            start.record()
            torch.topk(x, k, dim=-1, largest=True, sorted=True)
            stop.record()
            stop.synchronize()
            if run > 0:
                samples.append(start.elapsed_time(stop))
        ms = statistics.median(samples)
        print(f"{'f32':5} {batch:>7} {n:>11} {k:>6} {ms:>14.4f}", flush=True)
        rows.append((batch, n, k, ms))
        del x
        torch.cuda.empty_cache()
    if args.csv:
        with open(args.csv, "w") as out:
            out.write("device,date,key_type,batch,n,k,algorithm,internal_ms,keys_per_s,ok\n")
            for batch, n, k, ms in rows:
                out.write(f'"{device}",{date},f32,{batch},{n},{k},torch_topk,{ms},'
                          f"{batch * n / (ms * 1e-3)},true\n")


if __name__ == "__main__":
    main()
