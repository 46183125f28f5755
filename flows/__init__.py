"""Prefect flows: thin wrappers that sequence the stages in ``pipeline.stages``.

Import :mod:`pipeline.cli.prefect_env` (and call ``configure``) before this package: Prefect
reads its settings when it is first imported.
"""
