"""python -m bitonic bench [...] | python -m bitonic info"""

import sys


def main(argv):
    if argv[:1] == ["bench"]:
        from .bench import main as bench

        return bench(argv[1:])
    if argv[:1] == ["info"]:
        from . import __file__ as where, __version__, _core

        print(f"bitonic {__version__} ({where})")
        print(f"CUDA devices: {_core.device_count()}; GPU available: {_core.gpu_available()}")
        return 0
    print("usage: python -m bitonic bench [--log2n A:B] [--type f32,...] [--runs N] ...\n"
          "       python -m bitonic info\n"
          "(python -m bitonic bench --help for the bench's options)", file=sys.stderr)
    return 2


sys.exit(main(sys.argv[1:]))
