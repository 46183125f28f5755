"""What the TD writes: tournament.toml, presets and the TD CSVs, read into the frozen types of ``pipeline.model``."""
