"""Frames -> card, take-back and draw events (`referee.events` values): frame sources, the card
locator, rectifier, classifier and recogniser, arms and seats, the pile, draw and table
watchers, watching a video file, and proposing a room's camera set-up from its frames.

Runtime: imports only `referee` and `calibration`; never `audio`, `bruno` or the tooling.
"""
