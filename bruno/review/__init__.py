"""Reviewing recorded footage: the pipeline (video and sound to events to rulings), running
reviews of many files, notes of what a camera cannot see, and the outputs (event log, rulings,
HTML report, annotated video)."""
