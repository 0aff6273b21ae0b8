"""The knock classifier's recipe (issue 20): augmented training data from many real sources
and synthetic card slaps (`knock_augment`, `knock_data`), training and ONNX export
(`train_knocks`), and its leave-one-source-out validation through the real onset stage
(`evaluate_loso`, `onset_stage`). torch is needed here only (the `[train]` extra); the runtime
judge is `audio.knock_classifier`. REPORT.md holds what was measured."""
