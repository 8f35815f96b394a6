"""Orchestration: training runs in chunks, with progress, checks, curves and clean stops."""
