"""The test kits: code the tests share, none of it a test (pytest collects nothing here).

- ``audit_world``: small hand-made worlds for the audit files, as a TD would paste them into duckdb.
- ``bbp_kit``: reads the bbpPairings fixtures (tests/data/pairing/bbp_random) and compares rounds.
- ``browserkit``: headless Chromium through selenium: crawl, tables as shown, screenshots.
- ``demo_audit``: a demo built and audited as a nightly run does, and its planted facts.
- ``faultkit``: Lichess faults through the replay server, and the judge of two published files.
- ``lichess_data``: a Lichess dataset folder written from Python values.
- ``machinekit``: the machine's faults (kill -9, SIGTERM, damaged files, a full disk).
- ``rd_simulation``: simulated rating histories for the RD estimator's accuracy.
- ``skeleton_kit``: the skeleton tournament (tests/data/skeleton) and its runs.
- ``soakkit``: the soak's nights and their judgement.
"""
