"""Orchestration: ingest, score, audit and export stages, and the run record of each night."""
