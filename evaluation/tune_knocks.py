"""How the knock score's combination and shape limits were chosen: tune split only.

    python -m evaluation.tune_knocks DATA_DIR

Reproduces audio/NOTEBOOK.md's "Fourth round" tables. Every onset the detector finds (accepted
or not) in the *tune* clips and in mixes of tune material is collected with its features,
in nine versions of the sound: as recorded, through a brighter microphone (pre-emphasis
a = 0.5 and 0.7), a darker one (one-pole low-pass), sped up by 1.15 or slowed to 0.87 (a
table ringing higher or lower), and in three reverberant rooms (`synth.sounds.
reverberate`: RT60 0.4 s at +10 dB direct-to-reverberant, 0.8 s at +3 dB, 0.3 s at +6 dB;
a microphone across the table rather than a phone beside the knock). The mixes put
knuckle_train's knocks into the tune backgrounds at +20/+10/+5/0 dB and into the tune coughs
and laughs at +10 dB. Candidate rules are then scored offline on two folds (fold 0: knocks
before the middle of knuckle_train, takes 0, dude_miaowing; fold 1: the rest). Nothing here
reads a test clip. It takes about ten minutes (one detector run per clip and version).
The third round's tables (six versions) came from this script at commit c04f8ea.
"""

from __future__ import annotations

import argparse
import itertools
import math
import pickle
import sys
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np

from audio.blocks import array_blocks
from audio.detector import DETECTOR_RATE_HZ as RATE
from audio.detector import KnockDetector
from audio.knock_score import KnockModel, OnsetFeatures, combined_margin, knock_margins
from evaluation.knock_data import Clip, load_clips
from evaluation.knocks import ROOMS, load_samples
from evaluation.matching import match_onsets
from synth.mixer import cut_excerpts, mix_at_snr
from synth.sounds import reverberate

VERSIONS = ("as recorded", "bright 0.5", "bright 0.7", "dark", "faster 1.15", "slower 0.87",
            *(f"room {rt60_s:g} {direct_db:g}" for rt60_s, direct_db in ROOMS))
SNRS_DB = (20, 10, 5, 0)
#: The second round's rules: the plain minimum of all seven margins, flatness limit 0.03.
SECOND = replace(KnockModel(), max_flatness=0.03, ring_high_drop_db=math.inf)
#: The third round's: the soft minimum, flatness limit 0.08, no allowance for a room's ring.
THIRD = replace(KnockModel(), max_flatness=0.08, ring_high_drop_db=math.inf)
PLAIN_MINIMUM = "plain minimum"


def version(samples: np.ndarray, name: str) -> np.ndarray:
    """The sound as another microphone or table would give it."""
    x = samples.astype(np.float64)
    if name.startswith("bright"):
        a = float(name.split()[1])
        x = np.concatenate([x[:1], x[1:] - a * x[:-1]])
    elif name == "dark":
        a = 0.6
        x = np.convolve(x, (1 - a) * a ** np.arange(40))[: len(x)]
    elif name.startswith("room"):
        _, rt60_s, direct_db = name.split()
        x = reverberate(x, RATE, float(rt60_s), float(direct_db))
    elif name.startswith(("faster", "slower")):
        factor = float(name.split()[1])
        x = np.interp(np.arange(int(len(x) / factor)) * factor, np.arange(len(x)), x)
    return x.astype(np.float32)


def time_scale(name: str) -> float:
    return 1 / float(name.split()[1]) if name.startswith(("faster", "slower")) else 1.0


@dataclass
class Onset:
    features: object
    fold: int
    group: str  # knock, mix, mix_voice, false, clap, other
    snr_db: float | None = None
    version: int = 0  # index in VERSIONS


def onsets(samples: np.ndarray):
    # The gates alone: this table tunes them (the classifier judges what they refuse).
    detector = KnockDetector(keep_rejected=True, classifier=None)
    heard = []
    for block in array_blocks(samples, RATE, RATE, 4000):
        heard += detector.process(block)
    heard += detector.finish()
    return heard + detector.rejected


def collect(clips: list[Clip]) -> list[Onset]:
    assert all(c.split == "tune" for c in clips), "tune clips only"
    samples = {c.name: load_samples(c.path) for c in clips}
    by_name = {c.name: c for c in clips}
    found: list[Onset] = []
    for index, name in enumerate(VERSIONS):
        scale = time_scale(name)
        for clip in clips:
            x = version(samples[clip.name], name)
            labels = [t * scale for t in clip.event_times_s]
            half_s = len(x) / RATE / 2
            for k in onsets(x):
                fold = _fold(clip.name, k.t_s, half_s)
                if clip.kind == "knock":
                    hit = bool(match_onsets([k.t_s], labels).errors_s)
                    group = "knock" if hit else "other"
                elif clip.kind in ("distractor", "background"):
                    group = "false"
                else:
                    group = "clap" if clip.cls == "clap" else "other"
                found.append(Onset(k.features, fold, group, version=index))
        knocks = by_name["knuckle_train"]
        x = version(samples[knocks.name], name)
        labels = [t * scale for t in knocks.event_times_s]
        half_s = len(x) / RATE / 2
        for fold, background in ((0, "dude_miaowing"), (1, "running_tap")):
            excerpts = cut_excerpts(x, RATE, [t for t in labels if (t < half_s) == (fold == 0)])
            mixes = [(snr, version(samples[background], name), "mix") for snr in SNRS_DB]
            mixes += [(10, version(samples[f"{take}_{fold}"], name), "mix_voice")
                      for take in ("cough_large", "cough_small", "laugh_large", "laugh_small")]
            for snr, noise, group in mixes:
                mixture = mix_at_snr(excerpts, noise, RATE, snr, seed=fold)
                for k in onsets(mixture.samples):
                    hit = bool(match_onsets([k.t_s], mixture.onsets_s).errors_s)
                    found.append(
                        Onset(k.features, fold, group if hit else "false", snr, index))
        print(f"  {name}: {len(found)} onsets so far", file=sys.stderr, flush=True)
    return found


def _fold(name: str, t_s: float, half_s: float) -> int:
    if name[-1:].isdigit():
        return int(name[-1])
    if name in ("dude_miaowing", "running_tap"):
        return 0 if name == "dude_miaowing" else 1
    return 0 if t_s < half_s else 1


def is_knock(o: Onset) -> bool:
    """The knocks a rule should hear: knuckle_train's, and mixes down to +5 dB."""
    return o.group in ("knock", "mix_voice") or (o.group == "mix" and o.snr_db >= 5)


class Table:
    """The collected onsets' features as arrays, so thousands of rules score in seconds:
    `audio.knock_score` computes the margins element-wise, on one onset or on all of them."""

    def __init__(self, found: list[Onset]) -> None:
        self.features = OnsetFeatures(**{
            field.name: np.array([getattr(o.features, field.name) for o in found])
            for field in fields(OnsetFeatures)
        })
        self.fold = np.array([o.fold for o in found])
        self.version = np.array([o.version for o in found])
        self.knock = np.array([is_knock(o) for o in found])
        self.knuckle = np.array([o.group == "knock" for o in found])
        self.false = np.array([o.group == "false" for o in found])
        self.clap = np.array([o.group == "clap" for o in found])

    def margins(self, m: KnockModel) -> dict[str, np.ndarray]:
        """Each margin (`audio.knock_score.knock_margins`), one value per onset."""
        return knock_margins(self.features, m)

    def accepted(self, m: KnockModel, how: str = "") -> np.ndarray:
        margins = self.margins(m)
        if how == PLAIN_MINIMUM:
            return np.min(list(margins.values()), axis=0) >= 0
        return combined_margin(margins, m) >= 0

    def score(self, m: KnockModel, folds=(0, 1), how: str = "", versions=None) -> dict:
        ok = self.accepted(m, how)
        pick = np.isin(self.fold, folds)
        if versions is not None:
            pick &= np.isin(self.version, versions)
        return {
            "knocks": float(ok[pick & self.knock].mean()),
            "knuckle": int(ok[pick & self.knuckle].sum()),
            "knuckle_of": int((pick & self.knuckle).sum()),
            "false": int(ok[pick & self.false].sum()),
            "claps": int(ok[pick & self.clap].sum()),
        }


#: The fourth round's grid (KnockModel fields): the room allowance, and the limits it
#: interacts with (the decay, which a room slows; the flatness, which let claps in). The
#: combination stays the third round's (cap 3, bias 0.5).
GRID = {
    "ring_high_drop_db": (math.inf, 10.0, 12.0, 14.0, 16.0),
    "ring_high_drop_over_decay_db": (0.0, 3.0, 5.0, 8.0),
    "min_decay_db": (6.0, 5.0),
    "max_flatness": (0.045, 0.06, 0.08),
}
#: A rule may hear at most this many times the third round's claps on the fold it is chosen on.
CLAP_FACTOR = 3.0


def _row(label: str, s: dict, old: dict | None = None) -> str:
    def both(key, fmt="{}"):
        return fmt.format(s[key]) + (f" ({fmt.format(old[key])})" if old else "")
    return (f"| {label} | {both('knocks', '{:.1%}')} | {both('knuckle')}/{s['knuckle_of']} "
            f"| {both('false')} | {both('claps')} |")


def cross_validate(table: Table, grid: dict) -> None:
    """Choose on one fold (the most knocks heard with no more false knocks than the third
    round's rules there, and at most `CLAP_FACTOR` times its claps), score the other."""
    models = [replace(KnockModel(), **dict(zip(grid, v, strict=True)))
              for v in itertools.product(*grid.values())]
    print(f"\nChosen on one fold among {len(models)} rules, scored on the other; the third "
          "round's rules in brackets:\n")
    print("| chosen on -> scored on | knocks heard | knuckle_train | false | claps |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for choose, held in ((0, 1), (1, 0)):
        old = table.score(THIRD, (choose,))
        best, best_key = None, None
        for m in models:
            s = table.score(m, (choose,))
            key = (s["knocks"], -s["claps"])
            allowed = s["false"] <= old["false"] and s["claps"] <= CLAP_FACTOR * old["claps"]
            if allowed and (best_key is None or key > best_key):
                best, best_key = m, key
        print(_row(f"fold {choose} -> fold {held}", table.score(best, (held,)),
                   table.score(THIRD, (held,))))
        chosen = {k: getattr(best, k) for k in grid}
        print(f"|  (chose {chosen}) | | | | |")


def _by_version(table: Table, rules: dict[str, KnockModel]) -> None:
    print("\n| version | " + " | ".join(rules) + " |")
    print("| --- |" + " ---: |" * len(rules))
    for index, name in enumerate(VERSIONS):
        cells = []
        for m in rules.values():
            s = table.score(m, versions=(index,), how=PLAIN_MINIMUM if m is SECOND else "")
            cells.append(f"{s['knuckle']}/{s['knuckle_of']}, {s['knocks']:.0%}, "
                         f"{s['false']}, {s['claps']}")
        print(f"| {name} | " + " | ".join(cells) + " |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.tune_knocks",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("data_dir", type=Path, help="knocks-dev, or the folder holding it")
    parser.add_argument("--no-grid", action="store_true", help="skip the cross-validation")
    parser.add_argument("--cache", type=Path,
                        help="keep the collected onsets in this file and reuse them")
    args = parser.parse_args(argv)
    if args.cache and args.cache.exists():
        try:
            found = [Onset(*row) for row in pickle.loads(args.cache.read_bytes())]
        except (OSError, pickle.UnpicklingError, EOFError, TypeError, ValueError,
                AttributeError, ImportError) as error:
            print(f"evaluation.tune_knocks: error: {args.cache} is not a cache of collected onsets "
                  f"({type(error).__name__}); delete it to collect them again", file=sys.stderr)
            return 2
    else:
        found = collect([c for c in load_clips(args.data_dir) if c.split == "tune"])
        if args.cache:  # plain tuples: Onset is __main__.Onset when run with -m
            rows = [(o.features, o.fold, o.group, o.snr_db, o.version) for o in found]
            args.cache.write_bytes(pickle.dumps(rows))
    table = Table(found)
    fourth = KnockModel()
    print(f"All {len(VERSIONS)} versions, both folds:\n")
    print("| rules | knocks heard | knuckle_train | false | claps |")
    print("| --- | ---: | ---: | ---: | ---: |")
    print(_row("second round", table.score(SECOND, how=PLAIN_MINIMUM)))
    print(_row("third round", table.score(THIRD)))
    print(_row("fourth round (the defaults)", table.score(fourth)))
    for fold in (0, 1):
        print(_row(f"  fold {fold}: fourth (third)", table.score(fourth, (fold,)),
                   table.score(THIRD, (fold,))))
    print("\nEach version, both folds: knuckle_train heard, knocks heard, false, claps.")
    _by_version(table, {"second round": SECOND, "third round": THIRD, "fourth round": fourth})
    if not args.no_grid:
        cross_validate(table, GRID)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
