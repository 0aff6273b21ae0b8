"""The announcer: what it says in English and Swedish, that speaking never holds anyone up, and
that the knock detector does not hear knocks while (and just after) the speaker talks."""

from __future__ import annotations

import queue
import shutil
import threading

import numpy as np
import pytest
import soundfile

import bruno.live.announcer as announcer_module
from audio.blocks import array_blocks
from audio.detector import KnockDetector, detect_knocks
from bruno.live.announcer import SPEECH_TAIL_S, Announcer
from bruno.live.clock import SessionClock
from bruno.live.phrases import phrase
from synth.sounds import knock, noise, place


def penalty(rule="missed_knock", seat=2, cards=2, t=5.0):
    return {"t": t, "kind": "ruling", "rule": rule, "seat": seat, "penalty": cards,
            "card": "r_0", "ref": "B8", "message": "..."}


def info(rule, seat=1, t=5.0, **fields):
    return {"t": t, "kind": "info", "rule": rule, "seat": seat, **fields, "message": "..."}


def test_rulings_are_phrased_for_speech_in_english_and_swedish():
    assert phrase(penalty(), "en") == "Missed knock, seat 2, two cards."
    assert phrase(penalty(), "sv") == "Glömd knackning, plats 2, två kort."
    assert phrase(penalty("illegal_card", seat=None, cards=1), "en") == (
        "Wrong card, whoever played, one card.")
    assert phrase(penalty("too_slow", seat=3, cards=4), "sv") == "Seg, plats 3, fyra kort."
    assert phrase(info("instick", card="r_7"), "sv") == "Instick."
    assert phrase(info("color", seat=None, color="g"), "en") == "Green."
    assert phrase(info("color", seat=None, color="b"), "sv") == "Blå."
    assert phrase(info("draw_due", seat=3, count=4), "sv") == "Plats 3 tar fyra."
    assert phrase(info("round_over", seat=2), "en") == "Round over, seat 2 went out."
    assert phrase(info("withdrawn", seat=2, card="r_0"), "sv") == "Straffet återkallas, plats 2."
    assert phrase(info("turn"), "en") is None  # the table sees whose turn it is
    assert phrase(info("score", points=10, total=30), "en") is None
    with pytest.raises(ValueError, match="language"):
        phrase(penalty(), "de")


class ScriptedSpeaker:
    """A speech command that lasts until the test lets it end; the clock is the test's."""

    def __init__(self) -> None:
        self.now = 0.0
        self.clock = SessionClock(monotonic=lambda: self.now)
        self.started: queue.Queue[list[str]] = queue.Queue()
        self.release = threading.Semaphore(0)

    def __call__(self, argv: list[str]) -> None:
        self.started.put(argv)
        assert self.release.acquire(timeout=5)


def test_speech_is_queued_in_order_and_never_blocks_the_caller():
    speaker = ScriptedSpeaker()
    announcer = Announcer("en", speaker.clock, runner=speaker)
    announcer.announce(penalty(seat=1))
    assert speaker.started.get(timeout=2)[-1] == "Missed knock, seat 1, two cards."
    # The first is still being said: these return at once and wait their turn.
    announcer.announce(info("turn", seat=2))
    announcer.announce(penalty("out_of_turn", seat=3))
    announcer.announce(info("instick"))
    for _ in range(3):
        speaker.release.release()
    announcer.close()
    assert [s.text for s in announcer.spoken] == [
        "Missed knock, seat 1, two cards.", "Out of turn, seat 3, two cards.", "Instick."]
    assert all(s.argv[:3] == ["espeak-ng", "-v", "en"] for s in announcer.spoken)


def test_stale_information_is_skipped_when_speech_falls_behind_but_penalties_never_are():
    speaker = ScriptedSpeaker()
    announcer = Announcer("sv", speaker.clock, runner=speaker)
    announcer.announce(penalty(t=0.0))
    speaker.started.get(timeout=2)
    announcer.announce(info("instick", t=0.5))
    announcer.announce(penalty("out_of_turn", seat=1, t=0.6))
    speaker.now = 5.0  # the first took long: the instick is old news by now
    for _ in range(3):
        speaker.release.release()
    announcer.close()
    assert [s.text for s in announcer.spoken] == [
        "Glömd knackning, plats 2, två kort.", "Inte din tur, plats 1, två kort."]


def test_a_games_announcement_of_a_card_is_never_skipped_as_stale():
    from referee.variants import FlaskeUno

    speaker = ScriptedSpeaker()
    announcer = Announcer("en", speaker.clock, runner=speaker, game=FlaskeUno.words)
    sips = {**info("flaske", seat=1, count=3, card="r_3", t=0.0),
            "message": "Red 3: three sips for seat 1."}
    announcer.announce(sips)
    speaker.started.get(timeout=2)
    announcer.announce({**sips, "t": 0.5, "message": "Red 4: four sips for seat 2."})
    announcer.announce({**sips, "t": 0.6, "message": "Red 5: five sips for seat 3."})
    speaker.now = 9.0  # the first took long: both are old by now
    for _ in range(3):
        speaker.release.release()
    announcer.close()
    assert len(announcer.spoken) == 3


def test_a_penalty_below_the_tables_bar_is_not_said_but_the_confirmed_one_is():
    speaker = ScriptedSpeaker()
    announcer = Announcer("en", speaker.clock, runner=speaker, min_confidence=0.7)
    unsure = {**penalty("out_of_turn", seat=3), "confidence": 0.5}
    announcer.announce(unsure)  # shown on the dashboard as "check", never said
    announcer.announce({**unsure, "confidence": 1.0, "t": 9.0})  # the table confirmed it
    speaker.release.release()
    announcer.close()
    assert [s.text for s in announcer.spoken] == ["Out of turn, seat 3, two cards."]
    assert announcer.spoken[0].ruling["confidence"] == 1.0


def test_knocks_while_the_speaker_talks_and_just_after_are_dropped():
    rate = 16_000
    knocks_at = [1.0, 2.0, 2.3, 2.8, 3.3, 4.0]
    sound = place(noise(rate, seconds=5.0), knock(rate), knocks_at, rate)
    blocks = list(array_blocks(sound, rate, rate))
    heard_everything = [k.t_s for k in detect_knocks(blocks)]
    assert heard_everything == pytest.approx(knocks_at, abs=0.01)

    speaker = ScriptedSpeaker()
    announcer = Announcer("en", speaker.clock, runner=speaker)
    speaker.now = 1.9
    announcer.announce(penalty())
    speaker.started.get(timeout=2)
    speaker.now = 2.1  # said from 1.9 to 2.1; muted until 2.1 + the tail
    speaker.release.release()
    for _ in range(500):
        if announcer.spoken:
            break
        threading.Event().wait(0.01)
    speaker.now = 3.9
    announcer.announce(penalty(seat=1))
    speaker.started.get(timeout=2)  # talking since 3.9, end not known yet
    heard = [k.t_s for k in detect_knocks(blocks, KnockDetector(mute=announcer.mute))]
    speaker.release.release()
    announcer.close()
    assert 2.3 < 2.1 + SPEECH_TAIL_S < 2.8
    assert heard == pytest.approx([1.0, 2.8, 3.3], abs=0.01)


def test_without_espeak_ng_it_says_so_once_and_only_prints(monkeypatch):
    notes: list[str] = []
    monkeypatch.setattr(shutil, "which", lambda name: None)
    announcer = Announcer("en", speak=True, note=notes.append)
    announcer.announce(penalty())
    announcer.close()
    assert not announcer.speaking and not announcer.spoken
    assert len(notes) == 1 and "espeak-ng is not installed" in notes[0]


def test_a_speech_command_that_fails_is_reported_once_and_speech_stops():
    notes: list[str] = []

    def broken(argv):
        raise OSError("espeak-ng exited with 1 (no sound device)")

    announcer = Announcer("en", runner=broken, note=notes.append)
    announcer.announce(penalty())
    announcer.announce(penalty(seat=1))
    announcer.close()
    assert not announcer.speaking and len(notes) == 1 and "could not speak" in notes[0]


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
@pytest.mark.parametrize("lang", ["en", "sv"])
def test_espeak_ng_says_the_phrases_into_a_wav(lang, tmp_path):
    wav = tmp_path / f"{lang}.wav"

    def to_wav(argv: list[str]) -> None:
        announcer_module.espeak_runner([*argv[:-1], "-w", str(wav), argv[-1]])

    announcer = Announcer(lang, runner=to_wav)
    announcer.announce(penalty())
    announcer.close()
    assert announcer.spoken and announcer.spoken[0].argv[:3] == ["espeak-ng", "-v", lang]
    samples, rate = soundfile.read(str(wav))
    assert len(samples) / rate > 1.0 and np.abs(samples).max() > 0.05


def test_a_draw_card_corrected_away_is_said_as_no_cards():
    assert phrase(info("draw_due", seat=2, count=0), "en") == "Seat 2 takes no cards."
    assert phrase(info("draw_due", seat=2, count=0), "sv") == "Plats 2 tar inga kort."


def test_each_game_is_spoken_in_its_own_words():
    from referee.variants import FlaskeUno, SnabbUno, StandardUno

    jump_in = info("instick", card="r_7")
    assert phrase(jump_in, "en", SnabbUno.words) == "Jump-in."
    assert phrase(jump_in, "sv", SnabbUno.words) == "Inflikning."  # Snabb-UNO's "flika in"
    slow = penalty("too_slow", seat=3, cards=2)
    assert phrase(slow, "en", StandardUno.words) == "Too slow, seat 3, two cards."
    assert phrase(slow, "sv", StandardUno.words) == "För långsam, plats 3, två kort."
    # Flaske UNO's announcements are the game: said at an English table as written, at a
    # Swedish one made from the line's fields (it said nothing there).
    bottle = {**info("flaske", seat=2, count=3, card="r_3"),
              "message": "Red 3: three sips for seat 2."}
    assert phrase(bottle, "en", FlaskeUno.words) == "Red 3: three sips for seat 2."
    assert phrase(bottle, "sv", FlaskeUno.words) == "Röd tre: tre klunkar för plats 2."
    pee = {**info("flaske", seat=1, card="g_7"), "message": "Green 7: pee card for seat 1."}
    assert phrase(pee, "sv", FlaskeUno.words) == "Grön sju: kisskort till plats 1."
    unseen = {**info("flaske", seat=None, count=2, card="g_draw_2"), "message": "..."}
    assert phrase(unseen, "sv", FlaskeUno.words) == (
        "Grön dra två: två klunkar för grannen till vänster om den som lade det.")
    assert phrase(bottle, "en") is None  # (Bruno has no such line)


def test_the_announcer_speaks_the_words_of_the_game_it_was_given():
    from referee.variants import SnabbUno

    said: list[list[str]] = []
    announcer = Announcer("sv", SessionClock(), runner=said.append, game=SnabbUno.words)
    announcer.announce(info("instick", card="r_7"))
    announcer.close()
    assert said == [["espeak-ng", "-v", "sv", "Inflikning."]]
