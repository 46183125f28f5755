"""What is published: CSV exports, round posts, TRF files, the TDs' attention list and the static
website (``site``, with its SVG charts, the exports' cap charts among them)."""
