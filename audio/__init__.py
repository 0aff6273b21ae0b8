"""Sound -> knock events (`referee.events.Knock`): sources (microphone, sound file, a video's
sound track), blocks and resampling, spectral features, the streaming knock detector and its
scorer, muting the announcer's own voice, a recording's knocks, and measuring a room's
microphone.

Runtime: imports only `referee` and `calibration`; never `vision`, `bruno` or the tooling.
"""
