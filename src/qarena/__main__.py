"""``python -m qarena`` and the ``qarena`` console script: the command line."""

import sys


def main() -> None:
    # Loading the command line imports numpy, numba and the kernels: seconds on a busy machine.
    # A Ctrl-C in that time ends the program as a Ctrl-C later does (exit 130), not with a
    # traceback through the imports.
    try:
        from qarena.cli.app import main as run
    except KeyboardInterrupt:
        sys.exit(130)
    run()


if __name__ == "__main__":
    main()
