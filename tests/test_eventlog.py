"""Reading and writing the JSONL event log: valid logs parse, malformed lines are named."""

import json

import pytest

from referee.eventlog import EventLogError, Journal, parse_lines, read_event_log
from referee.events import CardPlayed, Knock, RoundEnd, parse_event
from referee.session import replay

GAME = '{"t": 0.0, "kind": "game", "variant": "bruno", "players": 4, "dealer": 0}'


def log(*lines: str):
    return parse_lines([GAME, *lines], source="game.jsonl")


def test_the_design_example_parses():
    parsed = log(
        '{"t": 2.10, "kind": "card", "card": "y_1", "seat": 0}',
        '{"t": 4.35, "kind": "card", "card": "y_1", "seat": 2}',
        '{"t": 4.60, "kind": "knock"}',
        '{"t": 6.00, "kind": "draw", "seat": 3, "count": 1}',
        '{"t": 9.00, "kind": "call", "seat": 3, "word": "stop"}',
        '{"t": 9.50, "kind": "color", "color": "g"}',
        '{"t": 60.0, "kind": "round_end", "hands": {"0": ["r_5", "wild"], "1": [], '
        '"2": ["g_skip"], "3": []}}',
    )
    assert parsed.setup.players == 4
    assert [e.kind for e in parsed.events] == ["card", "card", "knock", "draw", "call", "color",
                                               "round_end"]
    assert isinstance(parsed.events[-1], RoundEnd)


def test_every_event_writes_back_to_the_same_json():
    lines = [
        {"t": 1.5, "kind": "card", "card": "y_1", "seat": None, "confidence": 0.8,
         "alternatives": ["g_1"]},
        {"t": 2.0, "kind": "card_removed", "card": "y_1"},
        {"t": 2.1, "kind": "knock", "strength": 12.5},
        {"t": 3.0, "kind": "draw", "seat": 1, "count": 2},
        {"t": 4.0, "kind": "call", "seat": 2, "word": "seg"},
        {"t": 5.0, "kind": "color", "color": "b"},
        {"t": 6.0, "kind": "round_end", "hands": {"0": ["wild"], "1": []}},
    ]
    for line in lines:
        assert parse_event(line, 4).to_dict() == line


def test_extra_fields_from_detectors_are_tolerated():
    event = parse_event({"t": 1, "kind": "knock", "strength": 3, "band_hz": 900})
    assert isinstance(event, Knock)


def test_rule_settings_on_the_game_line_are_applied():
    parsed = parse_lines(['{"t": 0, "kind": "game", "players": 3, "dealer": 2, '
                          '"seg_after_s": 8, "knock_after_s": 2}'])
    rules = parsed.setup.rules()
    assert rules.seg_after_s == 8.0 and rules.knock_after_s == 2.0


@pytest.mark.parametrize(
    ("line", "complaint"),
    [
        ("{not json", "line 2: not valid JSON"),
        ('{"t": 1, "kind": "card", "card": "r_11", "seat": 0}', "line 2: unknown card 'r_11'"),
        ('{"t": 1, "kind": "card", "card": "r_1", "seat": 4}', "line 2: 'seat' 4 is not at"),
        ('{"t": "soon", "kind": "knock"}', "line 2: 't' must be a number"),
        ('{"t": -1, "kind": "knock"}', "line 2: 't' must not be negative"),
        ('{"t": 1, "kind": "sneeze"}', "line 2: unknown kind 'sneeze'"),
        ('{"t": 1, "kind": "call", "word": "hello"}', "line 2: 'word' must be one of"),
        ('{"t": 1, "kind": "color", "color": "pink"}', "line 2: unknown colour 'pink'"),
        ('{"t": 1, "kind": "draw", "seat": 1, "count": 0}', "line 2: 'count' must be"),
        ('{"t": 1, "kind": "card"}', "line 2: 'card' is missing"),
        ('{"t": 1, "kind": "round_end", "hands": {"0": ["r_99"]}}', "line 2: 'hands' of seat 0"),
        ('{"t": 1, "kind": "round_end", "hands": {"\u00b2": []}}', "'hands' key '\u00b2' must"),
        ('{"t": 1, "kind": "round_end", "hands": {"1": [], "01": []}}', "'hands' key '01' must"),
        ('{"t": 1, "kind": "knock", "confidence": 3}', "line 2: 'confidence' must be"),
        (GAME, "line 2: the 'game' line must be the first line"),
        ("[1, 2]", "line 2: an event must be a JSON object"),
    ],
)
def test_a_malformed_line_is_named_with_its_number_and_what_is_wrong(line, complaint):
    with pytest.raises(EventLogError) as caught:
        log(line)
    message = str(caught.value)
    assert message.startswith("game.jsonl ") and complaint in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("game", "complaint"),
    [
        ('{"t": 0, "kind": "card", "card": "r_1", "seat": 0}', "first line must be the game"),
        ('{"t": 0, "kind": "game", "players": 1}', "'players' must be 2 to 10"),
        ('{"t": 0, "kind": "game", "players": 3, "dealer": 3}', "'dealer' must be a seat 0..2"),
        ('{"t": 0, "kind": "game", "variant": "poker"}', "unknown variant 'poker'"),
        ('{"t": 0, "kind": "game", "seg_after": 8}', "unknown setting 'seg_after'"),
        ('{"t": 0, "kind": "game", "penalty_cards": "two"}', "must be a number"),
        ('{"t": 0, "kind": "game", "seg_after_s": 0}', "'seg_after_s' must be at least 1"),
    ],
)
def test_a_bad_game_line_is_refused(game, complaint):
    with pytest.raises(EventLogError, match="line 1: .*" + complaint.replace("(", r"\(")):
        parse_lines([game], source="g.jsonl")


def test_an_empty_or_missing_file_is_refused(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(EventLogError, match="empty"):
        read_event_log(empty)
    with pytest.raises(EventLogError, match="no such file"):
        read_event_log(tmp_path / "missing.jsonl")
    binary = tmp_path / "video.mp4"
    binary.write_bytes(b"\x00\xff\xfe\x00" * 10)
    with pytest.raises(EventLogError):
        read_event_log(binary)


def test_the_journal_appends_and_every_line_is_on_disk_at_once(tmp_path):
    path = tmp_path / "journal.jsonl"
    with Journal(path) as journal:
        journal.append({"t": 0.0, "kind": "game", "players": 2, "dealer": 0})
        journal.append(CardPlayed(t=1.0, card=parse_event(
            {"t": 1, "kind": "card", "card": "r_1", "seat": 0}).card, seat=0).to_dict())
        # Read back while still open: nothing is held in a buffer.
        assert [json.loads(line)["kind"] for line in path.read_text().splitlines()] == [
            "game", "card"]
    with Journal(path) as journal:
        journal.append({"t": 2.0, "kind": "knock"})
    assert len(read_event_log(path).events) == 2


def test_a_log_out_of_order_within_the_reorder_window_is_read():
    parsed = log('{"t": 5.0, "kind": "card", "card": "y_1", "seat": 0}',
                 '{"t": 4.5, "kind": "knock"}',  # 0.5 s back: a detector's delay
                 '{"t": 6.0, "kind": "card", "card": "y_2", "seat": 1}')
    assert [e.t for e in parsed.events] == [5.0, 4.5, 6.0]


def test_time_going_back_beyond_the_reorder_window_names_the_line():
    with pytest.raises(EventLogError) as refused:
        log('{"t": 20.0, "kind": "card", "card": "y_1", "seat": 0}',
            '{"t": 21.0, "kind": "knock"}',
            '{"t": 11.0, "kind": "card", "card": "y_2", "seat": 1}')
    assert str(refused.value) == (
        "game.jsonl line 4: 't' goes back to 11 s from 21 s (line 3), more than the 0.5 s "
        "events may be out of order; put the lines in time order")


def test_an_event_exactly_the_window_late_rules_as_in_the_sorted_log():
    # 1.1 - 0.5 is 0.6000000000000001 in floating point: the card at 0.6 that arrives with
    # the line at 1.1 must still be ordered among the cards at 0.6.
    lines = ['{"t": 0.1, "kind": "card", "card": "r_5", "seat": null}',
             '{"t": 0.6, "kind": "card", "card": "r_7", "seat": 2}',
             '{"t": 1.1, "kind": "call", "seat": 3, "word": "seg"}',
             '{"t": 0.6, "kind": "card", "card": "r_6", "seat": 1}']
    late = log(*lines)
    in_order = log(*sorted(lines, key=lambda line: json.loads(line)["t"]))
    ruled = [[r.to_dict() for r in replay(parsed.setup.new_game(), parsed.events)]
             for parsed in (late, in_order)]
    assert ruled[0] == ruled[1]
