"""How well the detectors do: readers of the real data sets in `../shared/data` and their
splits, the card, footage and knock evaluations, and the knock detector's tuning tables.

Tooling, never runtime: `referee`, `vision`, `audio`, `calibration` and `bruno` never import it.
Run each as a module, e.g. `python -m evaluation.cards`, `python -m evaluation.footage`,
`python -m evaluation.knocks`.
"""
