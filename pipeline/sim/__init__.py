"""Not on the production path: the Lichess replay server and the demo generator."""
