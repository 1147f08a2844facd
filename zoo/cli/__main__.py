"""``python -m zoo.cli``: the ``zoo`` command."""

import sys

from zoo.cli import main

# Guarded: Dask's worker processes are spawned, and a spawned process imports the main
# module again; unguarded, zoo.sampling.parallel saw a script that would run again in
# every worker and ran the fits in this process instead (with a warning).
if __name__ == "__main__":
    sys.exit(main())
