"""Frames -> card events: frame sources, card recogniser, pile and seat tracking."""
