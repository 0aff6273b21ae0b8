"""The room profile and its schemas: camera geometry (pile, draw piles, seat directions),
colour references, the microphone's levels; and the usual table's layout, which the default
camera profile assumes. What measures a room lives with its sense (`vision.camera_calibration`,
`audio.calibration`)."""
