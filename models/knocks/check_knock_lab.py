"""Quick checks of the runtime pieces (no training; a few seconds). Plain asserts, so it runs
without pytest:  PYTHONPATH=main_snapshot:. .venv/bin/python check_knock_lab.py

- the runtime module imports neither torch, scipy nor librosa;
- the judged onsets do not depend on the block size (1 ms .. 250 ms blocks);
- synthetic card slaps are mostly not knocks (held-out seeds);
- calibration refuses 20 s of claps and a recording without a quiet part, and accepts
  quiet + 5 real knocks.
"""

import sys

import numpy as np

from audio.knock_classifier import KnockClassifier
from models.knocks import knock_augment as aug
from models.knocks.knock_calibration import CalibrationError, calibrate_room
from models.knocks.onset_stage import find_onsets

RATE = 16_000


def main() -> int:
    assert not {"torch", "scipy", "librosa"} & set(sys.modules), "runtime must not need them"
    clf = KnockClassifier()
    assert "torch" not in sys.modules
    from audio.synthetic import clap, knock, noise, place

    x = place(noise(RATE, 4.0, 3e-3), knock(RATE), [1.0, 2.0, 3.0], RATE)

    def judge(t, k):
        return clf.is_knock(clf.judge(x, round(t * RATE), k.features))[1]

    ref = [(round(o.t_s, 4), round(o.confidence, 4)) for o in find_onsets(x, judge)]
    for block in (16, 160, 800, 4000):
        got = [(round(o.t_s, 4), round(o.confidence, 4)) for o in find_onsets(x, judge, 0.5, block)]
        assert got == ref, (block, got, ref)
    print("block-size invariance: ok", ref)

    rng = np.random.default_rng(123_456)
    heard = 0
    for _ in range(50):
        slap, onset = aug.card_slap(rng)
        y = place(noise(RATE, 1.0, 1e-3), slap, [0.5 - onset / RATE], RATE)
        ons = [o for o in find_onsets(y) if o.t_s > 0.3]
        heard += any(clf.is_knock(clf.judge(y, round(o.t_s * RATE), o.features))[0] for o in ons)
    print(f"synthetic card slaps heard as knocks: {heard}/50")
    assert heard <= 10

    claps = place(noise(RATE, 20.0, 1e-3), clap(RATE), list(np.arange(5.5, 19.5, 0.7)), RATE)
    for name, rec in (("claps", claps),
                      ("no quiet part", place(noise(RATE, 12.0, 1e-3), knock(RATE),
                                              list(np.arange(0.3, 11.0, 0.9)), RATE))):
        try:
            calibrate_room(rec, clf)
        except CalibrationError as error:
            print(f"refused ({name}): {error}")
        else:
            raise AssertionError(f"{name} was accepted")
    try:
        from models.knocks.knock_data import load_audio, load_clips, room_noise_like

        knocks = [load_audio(c)[round(c.event_times_s[0] * RATE) - 1600:][:RATE]
                  for c in load_clips() if c.source == "svais" and c.is_knock][:6]
        quiet = room_noise_like(knocks[0], 5 * RATE, np.random.default_rng(0))
        rec = np.concatenate([quiet, *knocks])
        cal = calibrate_room(rec, clf)
        print("accepted (quiet + 6 svais knocks):", {k: v for k, v in cal.to_dict().items()
                                                     if k != "prototype"})
    except FileNotFoundError:
        print("shared data absent: skipped the real calibration")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
