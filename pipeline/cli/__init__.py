"""The ``antichess-td`` command line and its console output."""
