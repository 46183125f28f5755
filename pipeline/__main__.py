"""``python -m pipeline`` is the ``antichess-td`` command."""

from pipeline.cli.app import main

main()
