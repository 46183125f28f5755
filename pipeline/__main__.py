"""``python -m pipeline`` is the ``antichess-td`` command."""

from pipeline.cli.app import main

if __name__ == "__main__":  # not when a worker process (multiprocessing's spawn) imports this module
    main()
