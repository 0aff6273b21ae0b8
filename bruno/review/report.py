"""The review report: one self-contained HTML page (inline styles and images, no network) that a
person who never saw the command line can read to settle a dispute.

Drawing lives here, apart from seeing: the report takes what review found (events, rulings),
a way to fetch the video frame at a moment, and the sound's loudness envelope.
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from referee.cards import token_words
from referee.events import CardPlayed, CardRemoved, Event, Knock
from referee.game import Game
from referee.rules import RuleSet, RuleSetError
from referee.rulings import is_sure, tally_totals
from referee.variants import UnknownVariantError, find_variant

FRAME_WIDTH_PX = 560
"""Width of the frames shown per ruling: big enough to read a card, small enough to keep the
page light (a few dozen kB per frame as JPEG)."""
JPEG_QUALITY = 80
EVIDENCE_DELAY_S = 0.8
"""The frame shown for a card is this long after it came to rest (the hand that laid it has
usually left by then), unless the next card lands sooner."""
STRIP_BEFORE_S = 2.0
STRIP_AFTER_S = 3.0
"""The sound strip under a missed-knock ruling spans this long before and after the card."""

FrameGetter = Callable[[float], "np.ndarray | None"]


@dataclass
class SoundEnvelope:
    """Loudness over time: `db[i]` is the level (dBFS) of the hop starting at `i / rate_hz`."""

    db: np.ndarray
    rate_hz: float

    @classmethod
    def from_samples(cls, samples: np.ndarray, sample_rate_hz: int,
                     hop_s: float = 0.01) -> SoundEnvelope:
        hop = max(1, int(sample_rate_hz * hop_s))
        usable = len(samples) // hop * hop
        frames = np.asarray(samples[:usable], dtype=np.float64).reshape(-1, hop)
        rms = np.sqrt(np.mean(frames * frames, axis=1) + 1e-12)
        return cls(db=20 * np.log10(rms), rate_hz=sample_rate_hz / hop)

    def window(self, start_s: float, end_s: float) -> tuple[np.ndarray, np.ndarray]:
        first = max(0, int(start_s * self.rate_hz))
        last = min(len(self.db), int(end_s * self.rate_hz) + 1)
        times = np.arange(first, last) / self.rate_hz
        return times, self.db[first:last]


@dataclass
class ReportInput:
    """Everything the report shows. Only `title`, `game`, `events` and `rulings` are required."""

    title: str
    game: dict
    events: list[Event]
    rulings: list[dict]
    duration_s: float | None = None
    frame_at: FrameGetter | None = None
    pile_box: tuple[float, float, float, float] | None = None
    """The discard pile as fractions of the frame: (x0, y0, x1, y1)."""
    envelope: SoundEnvelope | None = None
    sound_checked: bool = True
    calibration_picture: np.ndarray | None = None
    notes: list[str] = field(default_factory=list)


def evidence_times(report: ReportInput) -> list[float]:
    """The moments whose video frames the report shows, one per penalty ruling, so a caller
    can fetch them all in one pass over the video."""
    return [_evidence_time(report, r) for r in report.rulings if r["kind"] == "ruling"]


def write_report(path: str | Path, report: ReportInput) -> Path:
    path = Path(path)
    path.write_text(render_report(report), encoding="utf-8")
    return path


def render_report(report: ReportInput) -> str:
    penalties = [r for r in report.rulings if r["kind"] == "ruling"]
    bar = _check_bar(report.game)
    sure = [(i, r) for i, r in enumerate(penalties) if is_sure(r, bar)]
    unsure = [(i, r) for i, r in enumerate(penalties) if not is_sure(r, bar)]
    body = [
        _header(report, penalties),
        _timeline(report),
        _from_notes(report),
        "<h2>Rulings</h2>",
        *(_ruling_card(report, i, r) for i, r in sure),
        "" if penalties else "<p class=quiet>No penalties: a clean game.</p>",
        _to_check(report, unsure, bar),
        _announcements(report),
        _scores(report),
        _tally(report),
        _calibration(report),
    ]
    return _PAGE.format(title=html.escape(report.title), style=_STYLE, body="\n".join(body),
                        game=html.escape(_variant(report.game).words.game))


# --- sections ------------------------------------------------------------------------------

def _header(report: ReportInput, penalties: list[dict]) -> str:
    game = report.game
    duration = report.duration_s
    if duration is None:
        duration = max((e.t for e in report.events), default=0.0)
    totals = _final_totals(report.rulings)
    words = _variant(game).words
    facts = [
        ("Game", html.escape(words.game)),
        ("Players", str(game.get("players"))),
        ("Dealer", f"seat {game.get('dealer', 0)}"),
        ("Duration", _clock(duration)),
        ("Plays seen", _plays_seen(report)),
    ]
    if words.has_knocks:  # a game without knocks has nothing to hear
        facts.append(("Knocks heard", str(sum(isinstance(e, Knock) for e in report.events))
                      if report.sound_checked else "not checked"))
    facts.append(("Penalties", str(len(penalties))))
    if totals and _variant(game).keeps_score:  # (DrukUNO counts sips instead, shown below)
        facts.append(("Final scores", ", ".join(f"seat {s}: {p}" for s, p in totals.items())))
    rows = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in facts)
    notes = list(report.notes)
    if not report.sound_checked and words.has_knocks:
        notes.insert(0, f"This footage has no sound track: {words.knock_rules} were not "
                        "checked, and no missed knock is reported.")
    note_html = "".join(f"<p class=note>{html.escape(n)}</p>" for n in notes)
    return (f"<h1>{html.escape(report.title)}</h1>"
            f"<table class=facts>{rows}</table>{note_html}")


def _timeline(report: ReportInput) -> str:
    end = max([e.t for e in report.events] + [r["t"] for r in report.rulings] + [1.0])
    width, height = 1000, 70

    def x(t: float) -> float:
        return 10 + (width - 20) * t / end

    marks = [f'<line x1="10" y1="35" x2="{width - 10}" y2="35" class=axis />']
    for step in _ticks(end):
        marks.append(f'<text x="{x(step):.1f}" y="66" class=tick>{_clock(step)}</text>')
    for event in report.events:
        if isinstance(event, CardPlayed):
            title = html.escape(f"{_clock(event.t)} {event.card.token} by {_seat(event.seat)}")
            marks.append(f'<rect x="{x(event.t) - 1.5:.1f}" y="22" width="3" height="26" '
                         f'class=play><title>{title}</title></rect>')
        elif isinstance(event, Knock):
            marks.append(f'<circle cx="{x(event.t):.1f}" cy="54" r="2.5" class=knock>'
                         f'<title>knock {_clock(event.t)}</title></circle>')
        if _is_note(event):
            cx = x(event.t)
            title = html.escape(f"{_clock(event.t)} from notes: {_note_words(event)}")
            marks.append(f'<path d="M{cx:.1f},24 L{cx + 4:.1f},29 L{cx:.1f},34 '
                         f'L{cx - 4:.1f},29 Z" class=noted><title>{title}</title></path>')
    marks += _multi_card_plays(report, x)
    penalties = [r for r in report.rulings if r["kind"] == "ruling"]
    for i, ruling in enumerate(penalties):
        cx = x(ruling["t"])
        marks.append(f'<a href="#ruling-{i}"><path d="M{cx - 6:.1f},6 L{cx + 6:.1f},6 '
                     f'L{cx:.1f},18 Z" class=penalty><title>{html.escape(ruling["message"])}'
                     f'</title></path></a>')
    noted = ("<span class=lnote></span> written in the notes "
             if any(_is_note(e) for e in report.events) else "")
    knock = "<span class=lknock></span> knock " if _variant(report.game).words.has_knocks \
        else ""
    legend = ("<p class=legend><span class=lplay></span> card played "
              f"{knock}{noted}<span class=lpen></span> penalty "
              "(click to jump to it)</p>")
    return (f'<h2>Timeline</h2><svg viewBox="0 0 {width} {height}" class=timeline '
            f'role="img" aria-label="timeline">{"".join(marks)}</svg>{legend}')


def _whole_multi_card_plays(report: ReportInput) -> list[dict]:
    """The latest `multi_card_play` line of each multi-card play (its `count`: all its cards)."""
    lines = [r for r in report.rulings if r["kind"] == "info" and r["rule"] == "multi_card_play"]
    return [line for i, line in enumerate(lines)
            if i + 1 == len(lines) or lines[i + 1]["count"] <= line["count"]
            or lines[i + 1]["seat"] != line["seat"]]


def _plays_seen(report: ReportInput) -> str:
    """Plays, a multi-card play counted once, and the cards when they are more."""
    cards = sum(isinstance(e, CardPlayed) for e in report.events)
    plays = cards - sum(line["count"] - 1 for line in _whole_multi_card_plays(report))
    return str(plays) if plays == cards else f"{plays} ({cards} cards)"


def _announcements(report: ReportInput) -> str:
    """The game's own announcement of each card (Flaske UNO's: who drinks), in order."""
    rules = _variant(report.game).words.announced
    if not rules:
        return ""
    said = [r for r in report.rulings if r["kind"] == "info" and r["rule"] in rules]
    if not said:
        return "<h2>Announced</h2><p class=quiet>Nothing was announced.</p>"
    items = "".join(f"<li><span class=quiet>{_clock(r['t'])}</span> "
                    f"{html.escape(r['message'])}</li>" for r in said)
    return f"<h2>Announced</h2><ul class=announced>{items}</ul>"


def _multi_card_plays(report: ReportInput, x: Callable[[float], float]) -> list[str]:
    """A bracket over each multi-card play's cards, from its first card to its last (the
    latest `multi_card_play` line of the play), so the timeline shows the play as one."""
    plays = _whole_multi_card_plays(report)
    cards = [e for e in report.events if isinstance(e, CardPlayed)]
    marks = []
    for play in plays:
        laid = [e.t for e in cards if e.seat == play["seat"] and e.t <= play["t"] + 1e-6]
        first = laid[-play["count"]] if len(laid) >= play["count"] else play["t"]
        span = x(play["t"]) - x(first) + 6
        marks.append(f'<rect x="{x(first) - 3:.1f}" y="18" width="{span:.1f}" height="34" '
                     f'rx="3" class=multiplay><title>{html.escape(play["message"])}</title>'
                     '</rect>')
    return marks


def _ruling_card(report: ReportInput, index: int, ruling: dict) -> str:
    variant = _variant(report.game)
    rule_text = variant.rule_text(ruling.get("ref") or "")
    frame_html = _frame_html(report, ruling)
    strip = _knock_strip(report, ruling) \
        if ruling["rule"] == "missed_knock" and variant.words.has_knocks else ""
    seat = "unseen seat" if ruling["seat"] is None else f"seat {ruling['seat']}"
    title = variant.words.penalty_title(ruling["rule"])
    badge = " <span class=badge>from notes</span>" if _rests_on_notes(report, ruling) else ""
    confidence = ruling.get("confidence")
    if isinstance(confidence, int | float) and confidence < 1:
        # Never "100% sure" of what was not sure: 0.995 reads 99%.
        badge += f" <span class=badge>{math.floor(confidence * 100)}% sure</span>"
    return (
        f'<section class=ruling id="ruling-{index}">'
        f'<h3>{_clock(ruling["t"])} — {html.escape(title)}, '
        f'{seat}, {ruling.get("penalty", 0)} penalty cards{badge}</h3>'
        f'<p class=message>{html.escape(ruling["message"])}</p>'
        f'<div class=evidence>{frame_html}{strip}</div>'
        f'<p class=rule><b>{html.escape(ruling.get("ref") or "")}</b> '
        f'{html.escape(rule_text)}</p></section>'
    )


def _check_bar(game: dict) -> float:
    """The table's `announce_min_confidence`: penalties less sure are listed to check."""
    return _rules(game).announce_min_confidence


def _variant(game: dict) -> type[Game]:
    """The game the game line names (Bruno when it names none the referee knows: the line was
    checked when it was read, and a report is still worth showing)."""
    try:
        return find_variant(str(game.get("variant", "bruno")))
    except UnknownVariantError:
        return Game


def _rules(game: dict) -> RuleSet:
    """The game's rules with the game line's settings over them."""
    rules = _variant(game).default_rules
    settings = {k: v for k, v in game.items() if k in RuleSet.setting_names()}
    try:
        return rules.with_overrides(settings)
    except RuleSetError:
        return rules


def _to_check(report: ReportInput, unsure: list[tuple[int, dict]], bar: float) -> str:
    """Penalties the referee was unsure of (live, shown as "check" and not said), apart."""
    if not unsure:
        return ""
    return (f"<h2>To check</h2><p class=quiet>The referee was less than {bar:.0%} sure of "
            "these (it rests on something it may have missed, or on an unsure reading): a "
            "live table is shown them to confirm or dismiss, not told.</p>"
            + "".join(_ruling_card(report, i, r) for i, r in unsure))


def _frame_html(report: ReportInput, ruling: dict) -> str:
    moment = _evidence_time(report, ruling)
    image = report.frame_at(moment) if report.frame_at else None
    if image is None:
        return "<p class=quiet>(no video frame)</p>"
    image = _fit_width(image, FRAME_WIDTH_PX)
    if report.pile_box is not None:
        h, w = image.shape[:2]
        x0, y0, x1, y1 = report.pile_box
        cv2.rectangle(image, (int(x0 * w), int(y0 * h)), (int(x1 * w), int(y1 * h)),
                      (0, 215, 255), 2)
        label = ruling.get("card")
        if label:  # a ruling on what was said or how long it took has no card to point at
            cv2.putText(image, token_words(label), (int(x0 * w), max(14, int(y0 * h) - 6)),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 215, 255), 2, cv2.LINE_AA)
    alt = html.escape(f"video frame at {_clock(moment)}")
    return (f'<figure><img class=frame alt="{alt}" src="{_data_uri(image)}">'
            f"<figcaption>the table at {_clock(moment)}</figcaption></figure>")


def _knock_strip(report: ReportInput, ruling: dict) -> str:
    card_t = _card_time(report, ruling)
    if card_t is None or report.envelope is None:
        return ""
    rules = _rules(report.game)
    before, after = rules.knock_before_s, rules.knock_after_s
    start, end = card_t - STRIP_BEFORE_S, card_t + STRIP_AFTER_S
    times, db = report.envelope.window(max(0.0, start), end)
    width, height = 420, 90

    def x(t: float) -> float:
        return (t - start) / (end - start) * width

    floor, top = (float(np.min(db)), float(np.max(db))) if len(db) else (-90.0, 0.0)
    span = max(top - floor, 1.0)
    points = " ".join(f"{x(t):.1f},{height - 14 - (v - floor) / span * (height - 24):.1f}"
                      for t, v in zip(times, db, strict=True))
    knocks = [e.t for e in report.events if isinstance(e, Knock) and start <= e.t <= end]
    opens, closes = x(card_t - before), x(card_t + after)

    def vertical(t: float, css: str) -> str:
        return (f'<line x1="{x(t):.1f}" y1="0" x2="{x(t):.1f}" y2="{height - 12}" '
                f"class={css} />")

    parts = [
        f'<rect x="{opens:.1f}" y="0" width="{closes - opens:.1f}" height="{height - 12}" '
        "class=window />",
        f'<polyline points="{points}" class=envelope />',
        vertical(card_t, "cardline"),
        *(vertical(k, "knockline") for k in knocks),
        f'<text x="2" y="{height - 1}" class=tick>{_clock(start)}</text>',
        f'<text x="{width - 40}" y="{height - 1}" class=tick>{_clock(end)}</text>',
    ]
    caption = (f"Sound around the card: the shaded window ({before:g} s before to {after:g} s "
               f"after the card) is when its knock had to come; black line: the card; "
               f"green lines: knocks heard ({len(knocks)} here).")
    return (f'<figure><svg viewBox="0 0 {width} {height}" class=strip role="img" '
            f'aria-label="knock window">{"".join(parts)}</svg>'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


def _from_notes(report: ReportInput) -> str:
    """What a person wrote down and the review added: calls, colours, the hands at the end."""
    noted = [e for e in report.events if _is_note(e)]
    if not noted:
        return ""
    items = "".join(f"<li><b>{_clock(e.t)}</b> {html.escape(_note_words(e))}</li>"
                    for e in noted)
    return ("<h3>From the notes</h3><p class=quiet>Written down by a person who watched the "
            "footage (the camera cannot see them), and ruled on like the rest; rulings that "
            "rest on them are marked <span class=badge>from notes</span>.</p>"
            f"<ul class=notes>{items}</ul>")


def _scores(report: ReportInput) -> str:
    scores = [r for r in report.rulings if r["kind"] == "info" and r["rule"] == "score"]
    if not scores or not _variant(report.game).keeps_score:
        return ""
    players = int(report.game.get("players", 0))
    rounds: list[dict[int, dict]] = []
    for line in scores:
        if not rounds or line["seat"] in rounds[-1]:
            rounds.append({})
        rounds[-1][line["seat"]] = line
    head = "".join(f"<th>seat {s}</th>" for s in range(players))
    rows = []
    for number, round_scores in enumerate(rounds, start=1):
        cells = "".join(
            f"<td>{round_scores[s]['points']} <span class=quiet>({round_scores[s]['total']})</span>"
            f"</td>" if s in round_scores else "<td></td>" for s in range(players))
        rows.append(f"<tr><th>round {number}</th>{cells}</tr>")
    game = _variant(report.game)
    explained = game.scores_explained.format(
        wins="highest" if game.highest_total_wins else "lowest")
    return (f"<h2>Scores</h2><table class=scores><tr><th></th>{head}</tr>{''.join(rows)}</table>"
            f"<p class=quiet>{html.escape(explained)}</p>")


def _tally(report: ReportInput) -> str:
    """The game's running count per seat besides the score (DrukUNO's sips): each seat's
    total at the end, and how many times it rose."""
    tally = _variant(report.game).tally
    if tally is None:
        return ""
    rule, name = tally
    totals = tally_totals(report.rulings, rule)
    if not totals:
        return f"<h2>{html.escape(name)}</h2><p class=quiet>None in this game.</p>"
    # Every seat, a seat that drank nothing too.
    totals = {seat: totals.get(seat, 0) for seat in range(int(report.game.get("players", 0)))}
    times = {seat: sum(1 for r in report.rulings if r["kind"] == "info" and r["rule"] == rule
                       and r["seat"] == seat) for seat in totals}
    rows = "".join(f"<tr><th>seat {seat}</th><td>{total}</td>"
                   f"<td class=quiet>{times[seat]} time{'s' if times[seat] != 1 else ''}</td>"
                   "</tr>" for seat, total in totals.items())
    return (f"<h2>{html.escape(name)}</h2><table class=scores data-tally={html.escape(rule)}>"
            f"<tr><th></th><th>total</th><th></th></tr>{rows}</table>")


def _calibration(report: ReportInput) -> str:
    if report.calibration_picture is None:
        return ""
    image = _fit_width(report.calibration_picture, 640)
    return ("<h2>Where the referee looked</h2>"
            f'<figure><img class=frame alt="calibration" src="{_data_uri(image)}">'
            "<figcaption>The discard pile, the draw piles and the seat directions the referee "
            "used for this footage.</figcaption></figure>")


# --- helpers -------------------------------------------------------------------------------

def _is_note(event: Event) -> bool:
    return event.source == "notes"


def _rests_on_notes(report: ReportInput, ruling: dict) -> bool:
    """A ruling decided at the moment of a noted event (a call, a colour) rests on it."""
    return any(_is_note(e) and abs(e.t - ruling["t"]) < 1e-6
               and getattr(e, "seat", None) in (None, ruling.get("seat"))
               for e in report.events)


_COLOR_WORDS = {"r": "red", "y": "yellow", "g": "green", "b": "blue"}


def _note_words(event: Event) -> str:
    seat = getattr(event, "seat", None)
    who = "someone" if seat is None else f"seat {seat}"
    line = event.to_dict()
    kind = event.kind
    if kind == "call":
        word = line["word"]
        return f'{who} said "{word.upper() if word in ("uno", "seg", "stop") else word}"'
    if kind == "color":
        return f"{who} named the colour {_COLOR_WORDS.get(line['color'], line['color'])}"
    if kind == "round_end":
        counts = ", ".join(f"seat {seat}: {len(cards)}" for seat, cards in line["hands"].items())
        return f"the round ended; cards left in each hand: {counts}"
    if kind == "card":
        return f"{who} played {line['card']}"
    if kind == "draw":
        return f"{who} took {line.get('count', 1)} card(s)"
    return kind.replace("_", " ")


def _card_time(report: ReportInput, ruling: dict) -> float | None:
    """When the card a ruling is about came to rest: the latest such card at or before the
    ruling (a missed knock is ruled when the window closes, after the card)."""
    token = ruling.get("card")
    candidates = [e.t for e in report.events if isinstance(e, CardPlayed)
                  and e.card.token == token and e.t <= ruling["t"] + 1e-6]
    return max(candidates) if candidates else None


def _evidence_time(report: ReportInput, ruling: dict) -> float:
    """The moment worth seeing: the card itself, once the hand has left, before the next."""
    card_t = _card_time(report, ruling) if ruling.get("card") else None
    if card_t is None:
        return ruling["t"]
    later = [e.t for e in report.events if isinstance(e, CardPlayed | CardRemoved)
             and e.t > card_t]
    return min([card_t + EVIDENCE_DELAY_S, *(t - 0.1 for t in later)])


def _final_totals(rulings: list[dict]) -> dict[int, int]:
    totals: dict[int, int] = {}
    for r in rulings:
        if r["kind"] == "info" and r["rule"] == "score":
            totals[r["seat"]] = r["total"]
    return dict(sorted(totals.items()))


def _fit_width(image: np.ndarray, width: int) -> np.ndarray:
    h, w = image.shape[:2]
    if w <= width:
        return image.copy()
    return cv2.resize(image, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)


def _data_uri(image: np.ndarray) -> str:
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise ValueError("could not encode a frame as JPEG")
    return "data:image/jpeg;base64," + base64.b64encode(encoded.tobytes()).decode("ascii")


def _clock(t: float) -> str:
    minutes, seconds = divmod(max(0.0, t), 60)
    return f"{int(minutes)}:{seconds:04.1f}"


def _ticks(end: float) -> list[float]:
    step = next(s for s in (5, 10, 15, 30, 60, 120, 300, 600, 1e9) if end / s <= 12)
    return [i * step for i in range(int(end // step) + 1)]


def _seat(seat: int | None) -> str:
    return "an unseen seat" if seat is None else f"seat {seat}"


_STYLE = """
body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1040px;
 padding:24px;color:#1d232a;background:#fbfaf7}
h1{font-size:26px;margin:0 0 12px}h2{margin:28px 0 8px;font-size:19px}
h3{margin:0 0 6px;font-size:16px}
table.facts th{text-align:left;padding:2px 14px 2px 0;color:#56606b;font-weight:600}
.note{background:#fff4d6;border-left:4px solid #e0a800;padding:8px 12px}
.quiet{color:#6b7580}
svg.timeline{width:100%;height:auto;background:#fff;border:1px solid #ddd;border-radius:6px}
.axis{stroke:#9aa3ad;stroke-width:1}.tick{font-size:10px;fill:#6b7580}
.play{fill:#2f6fd6}.multiplay{fill:none;stroke:#2f6fd6;stroke-width:1.5}.knock{fill:#2a9d55}.penalty{fill:#d63b2f}.noted{fill:#8a4fc7}
.legend span{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px;vertical-align:middle}
.lplay{background:#2f6fd6}.lknock{background:#2a9d55;border-radius:50%}.lpen{background:#d63b2f}
.lnote{background:#8a4fc7;transform:rotate(45deg)}
.badge{font-size:11px;font-weight:600;color:#fff;background:#8a4fc7;border-radius:8px;
 padding:1px 7px;vertical-align:middle}
ul.notes{margin:4px 0 0;padding-left:20px;columns:2;font-size:14px}
section.ruling{background:#fff;border:1px solid #e2ddd3;border-left:5px solid #d63b2f;
 border-radius:6px;padding:12px 16px;margin:14px 0}
.message{font-size:16px;margin:0 0 8px}
.evidence{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}
figure{margin:0}figcaption{font-size:12px;color:#6b7580;max-width:420px}
img.frame{max-width:100%;border-radius:4px;display:block}
svg.strip{width:420px;height:90px;background:#f4f6f8;border-radius:4px}
.window{fill:#ffd86b;opacity:.45}.envelope{fill:none;stroke:#394452;stroke-width:1.2}
.cardline{stroke:#111;stroke-width:2}.knockline{stroke:#2a9d55;stroke-width:2}
.rule{font-size:13px;color:#394452;margin:10px 0 0}
table.scores{border-collapse:collapse;background:#fff}
table.scores th,table.scores td{border:1px solid #e2ddd3;padding:4px 10px;text-align:right}
"""

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} — {game} referee report</title><style>{style}</style></head>
<body>
{body}
<p class=quiet>Made by bruno-referee. Times are minutes:seconds into the footage.</p>
</body></html>
"""
