"""Scoring at the end of a round (S1, S2) and the match scoreboard across rounds (S3)."""

from __future__ import annotations

from collections.abc import Iterable

from referee.cards import Card


def hand_points(cards: Iterable[Card]) -> int:
    """Points of a hand (S1), rounded UP to the next multiple of ten (S2): 104 -> 110, 0 -> 0."""
    raw = sum(card.points for card in cards)
    return -(-raw // 10) * 10


class Scoreboard:
    """Match totals per seat across rounds. The lowest total wins (S3), or with
    `highest_wins` (standard UNO) the highest."""

    def __init__(self, players: int, highest_wins: bool = False) -> None:
        self.totals: list[int] = [0] * players
        self.rounds_played = 0
        self.highest_wins = highest_wins

    def add_round(self, points: dict[int, int]) -> None:
        for seat, value in points.items():
            self.totals[seat] += value
        self.rounds_played += 1

    def leaders(self) -> list[int]:
        """The seats with the best total (several on a tie)."""
        best = max(self.totals) if self.highest_wins else min(self.totals)
        return [seat for seat, total in enumerate(self.totals) if total == best]

    def is_over(self, rounds: int | None, target_score: int | None) -> bool:
        """Whether the match is over: a set number of rounds played, or a total reached."""
        if rounds is not None and self.rounds_played >= rounds:
            return True
        return target_score is not None and max(self.totals) >= target_score
