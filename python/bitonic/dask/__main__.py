"""python -m bitonic.dask bench [...]"""

import sys


def main(argv):
    if argv[:1] == ["bench"]:
        from .bench import main as bench

        return bench(argv[1:])
    print("usage: python -m bitonic.dask bench --n N --workers W [--chunks C] [--dtype T] [--gpu] "
          "[--verify] ...\n(python -m bitonic.dask bench --help for all options)", file=sys.stderr)
    return 2


if __name__ == "__main__":  # not when a spawned worker process imports this module
    sys.exit(main(sys.argv[1:]))
