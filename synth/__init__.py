"""Synthetic material for development and tests: scenarios, rendered cards and tables, footage
with its sound track, synthetic sounds and mixers, and the bundled demo's renderer.

Tooling, never runtime: `referee`, `vision`, `audio`, `calibration` and `bruno` never import it.
"""
