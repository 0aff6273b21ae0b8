"""Benchmarks: speed measured as ratios in one run, never asserted in unit tests."""
