"""``python -m zoo.cli``: the ``zoo`` command."""

from zoo.cli import program

# Guarded: Dask's worker processes are spawned, and a spawned process imports the main
# module again; unguarded, zoo.sampling.parallel saw a script that would run again in
# every worker and ran the fits in this process instead (with a warning).
if __name__ == "__main__":
    program()
