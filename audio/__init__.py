"""Sound -> knock events: sources (microphone, file, video track) and the knock detector."""
