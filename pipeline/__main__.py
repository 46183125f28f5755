"""``python -m pipeline`` is the ``antichess-td`` command."""

from pipeline.cli import main

main()
