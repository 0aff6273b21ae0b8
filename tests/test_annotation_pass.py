"""The annotated video drawn while the footage is watched: the same video a second pass over the
footage draws from the final rulings, at half size unless asked otherwise, with the sound; drawn
again when vision reports later than the lag allowed for; never left half-written."""

from __future__ import annotations

import json

import av
import numpy as np
import pytest

import bruno.review.annotation_pass as annotation_pass
import bruno.review.outputs as review_outputs
from bruno.review.annotated_video import Overlay, write_annotated_video
from bruno.review.annotation_pass import RefereeAsItGoes
from bruno.review.outputs import ANNOTATED_PART, REVIEW_MARK
from bruno.review.pipeline import review_footage

from table_helpers import MISSED_KNOCK_GAME, render_clip

SCENARIO = MISSED_KNOCK_GAME


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    return render_clip(SCENARIO, tmp_path_factory.mktemp("annotation"))


def pictures(path) -> list[np.ndarray]:
    with av.open(str(path)) as container:
        return [frame.to_ndarray(format="bgr24") for frame in container.decode(video=0)]


def has_sound(path) -> bool:
    with av.open(str(path)) as container:
        return bool(container.streams.audio)


def assert_drawn_alike(drawn: list[np.ndarray], again: list[np.ndarray]) -> None:
    """The two videos show the same thing in every frame. Not pixel for pixel: CI's machine
    once encoded the same drawn frames up to 4 levels apart (6 December), where this machine
    gives equal pixels. What the overlay draws is far louder: one play's arrow and top card
    left out change 1,278 pixels of a frame by more than 24 levels."""
    assert len(drawn) == len(again)
    for index, (a, b) in enumerate(zip(drawn, again, strict=True)):
        loud = int((np.abs(a.astype(int) - b) > 24).sum())
        assert loud < 50, f"frame {index}: {loud} pixels differ by more than 24 levels"


def second_pass(outcome, profile_overlay: Overlay, out, full_size: bool = False):
    """What a second pass over the footage draws from the review's final events and rulings."""
    final = Overlay(outcome.events, outcome.rulings, profile_overlay.pile_box,
                    profile_overlay.seat_angles_deg)
    write_annotated_video(outcome.footage, out, final, full_size=full_size)
    return pictures(out)


def overlay_of(rendered) -> Overlay:
    from calibration.camera import load_camera_profile

    camera = load_camera_profile(rendered[1])
    return Overlay([], [], camera.pile.box(), camera.seat_angles_deg)


def counting_second_passes(monkeypatch) -> list[int]:
    calls: list[int] = []

    def counted(*args, **kwargs):
        calls.append(1)
        return write_annotated_video(*args, **kwargs)

    monkeypatch.setattr(review_outputs, "write_annotated_video", counted)
    return calls


@pytest.mark.parametrize("full_size", [False, True])
def test_the_video_drawn_while_watching_is_the_one_a_second_pass_draws(
        rendered, tmp_path, monkeypatch, full_size):
    clip, profile, reader = rendered
    second_passes = counting_second_passes(monkeypatch)
    outcome = review_footage(clip, tmp_path / "out", reader, profile=profile, dealer=1,
                             full_size_video=full_size)
    assert second_passes == []
    assert [r["rule"] for r in outcome.rulings if r["kind"] == "ruling"] == ["missed_knock"]
    video = outcome.files["annotated.mp4"]
    assert not (tmp_path / "out" / ANNOTATED_PART).exists()
    drawn = pictures(video)
    source = pictures(clip)
    assert len(drawn) == len(source)
    height, width = source[0].shape[:2]
    assert drawn[0].shape[:2] == ((height, width) if full_size else (height // 2, width // 2))
    assert has_sound(video)
    again = second_pass(outcome, overlay_of(rendered), tmp_path / "again.mp4", full_size)
    assert_drawn_alike(drawn, again)
    # And something is drawn: the penalty's red caption band at the bottom, once it is ruled.
    ruled = next(r["t"] for r in outcome.rulings if r["kind"] == "ruling")
    caption = drawn[int((ruled + 0.2) * len(drawn) / 5.0)]
    assert caption[-8:-3, :, 2].mean() > caption[-8:-3, :, 0].mean() + 60


def test_a_play_reported_later_than_the_lag_has_the_video_drawn_again(rendered, tmp_path,
                                                                      monkeypatch):
    clip, profile, reader = rendered
    # No lag: every frame is drawn as soon as it is watched, before vision has reported the
    # play landing on it (it needs the card to settle), so the video misses it at first.
    monkeypatch.setattr(annotation_pass, "LAG_S", 0.0)
    # And no frames held back for the sound track: held, a busy machine's slow knock process
    # kept every frame back until the end, drawn then with the final rulings.
    monkeypatch.setattr(annotation_pass, "HOLD_BYTES", 0)
    second_passes = counting_second_passes(monkeypatch)
    stages: list[str] = []
    outcome = review_footage(clip, tmp_path / "out", reader, profile=profile, dealer=1,
                             progress=lambda stage, s: stages.append(stage))
    assert second_passes == [1] and "annotate" in stages
    drawn = pictures(outcome.files["annotated.mp4"])
    again = second_pass(outcome, overlay_of(rendered), tmp_path / "again.mp4")
    assert_drawn_alike(drawn, again)


def test_a_review_that_fails_leaves_no_half_written_video(rendered, tmp_path):
    clip, profile, _ = rendered

    def broken_reader(crop, t_s):
        raise RuntimeError("the card model crashed")

    with pytest.raises(RuntimeError, match="crashed"):
        review_footage(clip, tmp_path / "out", broken_reader, profile=profile, dealer=1)
    assert [p.name for p in (tmp_path / "out").iterdir()] == [REVIEW_MARK]  # only its mark


def test_the_referee_as_it_goes_has_at_each_moment_the_final_rulings_up_to_it():
    # The demo's game: the events seen (reported two seconds late, as vision may), the knocks
    # heard all at once, the notes known from the start.
    from bruno.demo_files import NOTES, TRUTH
    from bruno.review.notes import read_notes
    from referee.events import in_time_order, parse_event
    from referee.session import Session, replay

    notes = read_notes(NOTES)
    players = notes.setup.players
    truth = [parse_event(json.loads(line), players)
             for line in TRUTH.read_text().splitlines()[1:]]
    seen = [e for e in truth if e.kind != "knock"]
    heard = [e for e in truth if e.kind == "knock"]
    final = [r.to_dict() for r in replay(notes.setup.new_game(),
                                         in_time_order(seen, heard, notes.events))]
    assert sum(r["kind"] == "ruling" for r in final) == 6
    referee = RefereeAsItGoes(Session(notes.setup.new_game()), notes.events)
    referee.hear(heard)
    reported = 0
    for step in range(0, 1300):
        moment = step / 10
        while reported < len(seen) and seen[reported].t <= moment + 2.0:
            referee.see([seen[reported]])
            reported += 1
        referee.up_to(moment)
        assert referee.rulings == [r for r in final if r["t"] <= moment], moment
    assert not referee.late
