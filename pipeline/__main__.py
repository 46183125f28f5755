"""``python -m pipeline`` is the ``antichess-td`` command."""

from pipeline.cli.app import main

if __name__ == "__main__":  # only when run as a program, not when something imports this module
    main()
