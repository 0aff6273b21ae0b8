"""`bruno replay` as a user runs it: a subprocess, its output and its exit code."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.rulings import INFO_RULES, PENALTY_RULES

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "bruno_every_penalty.jsonl"


def bruno(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bruno", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)


def test_replay_json_prints_one_ruling_per_line_in_time_order_with_the_design_fields():
    result = bruno("replay", "--json", str(EXAMPLE))
    assert result.returncode == 0, result.stderr
    rulings = [json.loads(line) for line in result.stdout.splitlines()]
    assert rulings and [r["t"] for r in rulings] == sorted(r["t"] for r in rulings)
    for r in rulings:
        assert list(r)[:4] == ["t", "kind", "rule", "seat"] and list(r)[-1] == "message"
        if r["kind"] == "ruling":
            assert list(r) == ["t", "kind", "rule", "seat", "penalty", "card", "ref",
                               "confidence", "message"]
            assert r["rule"] in PENALTY_RULES and 0 <= r["confidence"] <= 1
        else:
            assert r["kind"] == "info" and r["rule"] in INFO_RULES


def test_the_bundled_example_triggers_every_penalty_rule():
    result = bruno("replay", "--json", str(EXAMPLE))
    rules = {json.loads(line)["rule"] for line in result.stdout.splitlines()}
    assert set(PENALTY_RULES) <= rules
    assert {"instick", "turn", "color", "draw_due", "round_over", "score"} <= rules


def test_the_readable_output_names_the_rules_and_counts_the_penalties():
    result = bruno("replay", str(EXAMPLE))
    assert result.returncode == 0
    assert "missed_knock" in result.stdout and "7 penalties" in result.stdout
    assert "Penalty cards: seat 0: 4, seat 1: 2, seat 2: 4, seat 3: 4" in result.stdout


def test_command_line_options_override_the_game_line():
    result = bruno("replay", "--json", "--set", "seg_after_s=null", str(EXAMPLE))
    rules = [json.loads(line)["rule"] for line in result.stdout.splitlines()]
    assert "too_slow" not in rules
    result = bruno("replay", "--json", "--players", "5", str(EXAMPLE))
    assert result.returncode == 0


@pytest.mark.parametrize(
    ("content", "complaint"),
    [
        ('{"t": 0, "kind": "game", "players": 4}\n{"t": 1, "kind": "card", "card": "r_11"}\n',
         "line 2: unknown card 'r_11'"),
        ('{"t": 0, "kind": "game", "players": 4}\n{"t": 1, "kind"\n', "line 2: not valid JSON"),
    ],
)
def test_a_malformed_log_gives_one_line_and_exit_code_2(tmp_path, content, complaint):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    result = bruno("replay", "--json", str(path))
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and complaint in lines[0] and "Traceback" not in result.stderr


def test_a_missing_file_or_a_bad_override_gives_one_line_and_exit_code_2(tmp_path):
    for args in (["replay", str(tmp_path / "nope.jsonl")],
                 ["replay", "--players", "11", str(EXAMPLE)],
                 ["replay", "--set", "nonsense", str(EXAMPLE)]):
        result = bruno(*args)
        assert result.returncode == 2, args
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


@pytest.mark.parametrize("log", ["bruno_every_penalty", "uno_every_rule", "druk_game"])
def test_fewer_players_than_the_log_seats_gives_one_line_naming_the_event(log):
    result = bruno("replay", "--json", "--players", "2", str(ROOT / "examples" / f"{log}.jsonl"))
    assert result.returncode == 2 and result.stdout == "" and "Traceback" not in result.stderr
    line, = result.stderr.strip().splitlines()
    assert "is not at this table (seats are 0..1)" in line and " at t=" in line


@pytest.mark.parametrize(("command", "section"), [
    (("review",), "[camera]"), (("listen",), "[mic]"),
    (("calibrate", "mic"), "[mic]"), (("calibrate", "camera"), "[camera]"),
])
def test_help_texts_keep_the_profile_section_names(command, section):
    # Rich takes "[camera]" for a style tag and drops it unless it is escaped.
    result = subprocess.run([sys.executable, "-m", "bruno", *command, "--help"],
                            capture_output=True, text=True, cwd=ROOT, timeout=60,
                            env={**os.environ, "COLUMNS": "200"})
    assert result.returncode == 0 and section in result.stdout


def test_a_log_whose_time_goes_back_is_one_line_naming_the_file_and_line(tmp_path):
    lines = EXAMPLE.read_text().splitlines()
    assert json.loads(lines[24])["t"] == 29.0
    lines.insert(25, '{"t": 19.0, "kind": "knock"}')  # 10 s back: not a detector's delay
    path = tmp_path / "back.jsonl"
    path.write_text("\n".join(lines) + "\n")
    for extra in ([], ["--json"]):
        result = bruno("replay", *extra, str(path))
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
        assert result.stderr.startswith(f"bruno: error: {path} line 26: 't' goes back to 19 s "
                                        "from 29 s (line 25)")


def test_variant_wins_over_the_logs_game_and_says_so_on_stderr_only():
    snabb_log = str(ROOT / "examples" / "snabb_every_rule.jsonl")
    result = bruno("replay", "--json", "--variant", "uno", snabb_log)
    assert result.returncode == 0, result.stderr
    rulings = [json.loads(line) for line in result.stdout.splitlines()]
    assert all(r["rule"] != "instick" for r in rulings)  # standard UNO has no jump-ins
    assert "out_of_turn" in {r["rule"] for r in rulings}
    assert result.stderr.strip() == (f"bruno: note: {snabb_log} is a game of Snabb-UNO; "
                                     "refereed as Standard UNO, as --variant says")
    same = bruno("replay", "--json", "--variant", "Snabb-UNO", snabb_log)
    assert same.returncode == 0 and same.stderr == ""
    printed = bruno("replay", snabb_log)
    assert printed.stdout.startswith(f"{snabb_log}: Snabb-UNO, 4 players")
    unknown = bruno("replay", "--variant", "drunk", snabb_log)
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert unknown.stderr.strip().splitlines() == [
        "bruno: error: unknown variant 'drunk' (known: bruno, uno, snabb, flaske, druk)"]


def test_a_druk_replay_ends_with_each_seats_sips():
    result = bruno("replay", str(ROOT / "examples" / "druk_game.jsonl"))
    as_json = bruno("replay", "--json", str(ROOT / "examples" / "druk_game.jsonl"))
    totals = {}
    for line in as_json.stdout.splitlines():
        ruling = json.loads(line)
        if ruling["rule"] == "sips":
            totals[ruling["seat"]] = ruling["total"]
    expected = "Sips: " + ", ".join(f"seat {seat} {n}" for seat, n in sorted(totals.items()))
    assert totals and result.stdout.strip().splitlines()[-1] == expected
    uno = bruno("replay", str(ROOT / "examples" / "uno_every_rule.jsonl"))
    assert "Sips" not in uno.stdout  # a game that counts no sips says nothing of them
