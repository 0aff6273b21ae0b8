"""Room profiles: camera geometry, colour, seats, microphone levels."""
