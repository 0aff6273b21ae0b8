"""A DrukUNO game filmed and reviewed end to end (`--variant druk`): a stacked draw two with a
two-card play of draw twos on it, the pool taken by one reach for the draw pile, and the sips
the rules page (docs/rules/druk.md, D3, D6, D15) says each seat drinks."""

from __future__ import annotations

import pytest

from bruno.review.pipeline import review_footage

from table_helpers import render_clip

STACKED_POOL = {
    "variant": "druk", "players": 4, "dealer": 0, "seed": 5, "duration_s": 9.0,
    "plays": [{"t": 1.0, "seat": 0, "card": "r_5", "linger_s": 0.2},
              {"t": 2.3, "seat": 1, "card": "r_draw_2", "linger_s": 0.1},
              {"t": 3.6, "seat": 2, "card": "g_draw_2", "linger_s": 0.1,
               "more": [{"card": "b_draw_2", "after_s": 0.8}]},
              {"t": 7.6, "seat": 0, "card": "b_4", "linger_s": 0.1}],
    "draws": [{"t": 5.9, "seat": 3}]}
"""The dealer turns a red 5; seat 1 plays a red draw two; seat 2 lays a green and a blue draw
two in one play (a pool of six for seat 3); seat 3 reaches for the draw pile (it takes the
pool and misses the turn); seat 0 plays on with a blue 4."""


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("druk")
    video, profile, reader = render_clip(STACKED_POOL, folder)
    return review_footage(video, folder / "review", reader, profile=profile, variant="druk",
                          annotate=False)


def test_the_camera_sees_each_card_of_the_two_card_play_and_the_reach(reviewed):
    cards = [(e.card.token, e.seat) for e in reviewed.events if e.kind == "card"]
    assert cards == [("r_5", 0), ("r_draw_2", 1), ("g_draw_2", 2), ("b_draw_2", 2), ("b_4", 0)]
    assert [e.seat for e in reviewed.events if e.kind == "draw"] == [3]


def test_the_referee_stacks_the_pool_passes_it_on_and_counts_the_sips(reviewed):
    rulings = reviewed.rulings
    assert [r for r in rulings if r["kind"] == "ruling"] == []
    pools = [(r["seat"], r["count"]) for r in rulings if r["rule"] == "draw_due"]
    assert pools == [(2, 2), (3, 4), (3, 6)]
    (play,) = [r for r in rulings if r["rule"] == "multi_card_play"]
    assert (play["seat"], play["count"]) == (2, 2)
    sips = [(r["seat"], r["sips"], r["total"]) for r in rulings if r["rule"] == "sips"]
    assert sips == [(3, 6, 6)]  # D15: one per card of the pool it took
    assert [r["seat"] for r in rulings if r["rule"] == "turn"][-2:] == [0, 1]


def test_the_report_names_the_game_shows_the_play_as_one_and_the_sips(reviewed):
    assert reviewed.game["variant"] == "druk"
    page = reviewed.files["report.html"].read_text()
    assert "<th>Game</th><td>DrukUNO</td>" in page
    assert page.count("class=multiplay>") == 1
    assert "<h2>Sips</h2>" in page and "<tr><th>seat 3</th><td>6</td>" in page
    assert "<h2>Scores</h2>" not in page  # DrukUNO counts no points
