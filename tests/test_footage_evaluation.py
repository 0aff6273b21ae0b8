"""The footage evaluation renders a damaged cached video again instead of scoring it
(`evaluation.footage.evaluate`): a render cut short read as a game the watcher went blind in
(webcam game 496 of 6 December: 7 of 32 plays, the file broke off at 21.9 s)."""

from __future__ import annotations

import json

import pytest

from bruno.review.footage import ReviewResult
from evaluation import footage
from referee.cards import Card
from referee.events import CardPlayed
from synth.scenario import random_scenario


@pytest.fixture
def cached(tmp_path):
    scenario = random_scenario(7, plays=3)
    path = tmp_path / "game7.json"
    path.write_text(scenario.model_dump_json())
    video = tmp_path / "game7_overhead_90x160.mp4"
    video.write_bytes(b"cut short")
    card = scenario.plays[0]
    truth = [{"t": 0, "kind": "game", "variant": "bruno", "players": scenario.players},
             {"t": card.t, "kind": "card", "card": card.card, "seat": card.seat}]
    video.with_suffix(".truth.jsonl").write_text("\n".join(json.dumps(e) for e in truth))
    return path, card


def test_a_cached_video_that_breaks_off_is_rendered_again_and_scored_whole(cached, monkeypatch):
    path, card = cached
    renders, reviews = [], []
    whole = ReviewResult([CardPlayed(card.t, card=Card.parse(card.card), seat=card.seat)])

    def review(video, camera, read, listen=True):
        reviews.append(video)
        return ReviewResult([], error="InvalidDataError") if not renders else whole

    monkeypatch.setattr(footage, "review_video", review)
    monkeypatch.setattr(footage, "_render", lambda *args: renders.append(args[1]) or None)
    total, _ = footage.evaluate([path], "truth", (90, 160), path.parent, listen=False)
    assert len(renders) == 1 and len(reviews) == 2
    assert (total.plays, total.found) == (1, 1)


def test_a_video_that_breaks_off_again_stops_the_evaluation(cached, monkeypatch):
    path, _ = cached
    monkeypatch.setattr(footage, "review_video",
                        lambda *args, **kw: ReviewResult([], error="InvalidDataError"))
    monkeypatch.setattr(footage, "_render", lambda *args: None)
    with pytest.raises(SystemExit, match="breaks off again"):
        footage.evaluate([path], "truth", (90, 160), path.parent, listen=False)
