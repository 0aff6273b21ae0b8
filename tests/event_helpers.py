"""Events and their event-log lines, both ways: tests write events as the log's JSON objects
(as a person reads them) and compare what detectors give with ground truth written as lines."""

from __future__ import annotations

from referee.events import Event, parse_event


def events_of(lines: list[dict]) -> list[Event]:
    """Event-log lines as the events they describe."""
    return [parse_event(line) for line in lines]


def log_lines(events: list[Event]) -> list[dict]:
    """Events as their event-log lines."""
    return [event.to_dict() for event in events]
