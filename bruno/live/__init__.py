"""Refereeing a table now: the live session, its sources, the announcer and the dashboard."""
