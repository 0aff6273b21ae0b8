"""How fast the card recogniser reads a frame: `python -m bench.vision_speed`.

Measures, in one run and on one core (OpenCV and onnxruntime limited to one thread), the median
milliseconds for:
- a 1280x720 frame with one card, and with a pile of five plus four scattered cards
  (`vision.recognise`: locate + rectify + classify);
- locating alone on the pile frame, with the classical locator and with the learned
  localiser (`vision.localise_model`: both its looks, 320 and 480 px wide), when it is installed;
- `recognise` with the locator `bruno identify` uses (`default_locator`);
- classifying one rectified crop alone, and per crop in a batch of 16.
Frames are rendered by `synth.render` (seeded), so the run needs no data files.
"""

from __future__ import annotations

import argparse
import statistics
import time

import cv2
import numpy as np


def _median_ms(fn, repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    cv2.setNumThreads(args.threads)

    from synth.render import render_scene
    from vision.classify import CardClassifier
    from vision.localise_model import LOCALISER_PATH, CardLocaliser
    from vision.locate import locate
    from vision.recognise import default_locator, recognise
    from vision.rectify import rectify

    clf = CardClassifier(threads=args.threads)
    localiser = CardLocaliser(threads=args.threads) if LOCALISER_PATH.is_file() else None
    one, one_cards = render_scene(101, size=(720, 1280), n_cards=1, card_h_frac=(0.3, 0.4))
    pile, pile_cards = render_scene(202, size=(720, 1280), n_cards=4, pile=5,
                                    card_h_frac=(0.22, 0.3))
    crops = [rectify(pile, c.quad) for c in pile_cards]
    batch = np.stack([crops[i % len(crops)] for i in range(16)])

    rows = [
        ("frame 1280x720, one card", _median_ms(lambda: recognise(one, clf), args.repeats)),
        ("frame 1280x720, pile of 5 + 4 scattered",
         _median_ms(lambda: recognise(pile, clf), args.repeats)),
        ("  of which locate (pile frame)", _median_ms(lambda: locate(pile), args.repeats)),
        *([("  learned localiser alone (pile frame)",
             _median_ms(lambda: localiser.locate(pile), args.repeats)),
            (f"frame 1280x720, pile, recognise(locator={default_locator()!r})",
             _median_ms(lambda: recognise(pile, clf, locator=default_locator(),
                                          localiser=localiser), args.repeats))]
          if localiser is not None else []),
        ("classify one crop", _median_ms(lambda: clf.probabilities(batch[:1]), args.repeats * 4)),
        ("classify per crop, batch of 16",
         _median_ms(lambda: clf.probabilities(batch), args.repeats) / 16),
    ]
    n_one = len(recognise(one, clf))
    n_pile = len(recognise(pile, clf))
    print(f"threads: {args.threads} (OpenCV and onnxruntime); median of {args.repeats} runs")
    print("| what | ms |")
    print("| --- | --- |")
    for name, ms in rows:
        print(f"| {name} | {ms:.1f} |")
    print(f"cards read: one-card frame {n_one} (of {len(one_cards)}), "
          f"pile frame {n_pile} (of {len(pile_cards)} whole faces)")


if __name__ == "__main__":
    main()
