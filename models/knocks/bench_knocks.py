"""Cost and latency of onset stage + knock classifier, the way bench/audio_speed.py measures
the detector: 48 kHz mono, resampled to 16 kHz and analysed in 10 ms blocks on one thread.

    PYTHONPATH=main_snapshot:. .venv/bin/python bench_knocks.py [--model knocks.onnx]

- per onset: computing the patch (numpy) and running the ONNX model (1 thread), ms;
- streaming: CPU time over audio time for resampling + onset stage + classifier on every
  onset, for synthetic room noise with a knock every 1.5 s and for real busy sound (claps,
  laughs, dishes: many onsets per second, the worst case for the classifier's cost);
- latency: onset -> event, when the event can be emitted only once POST_S of audio after the
  onset has arrived and the detector has decided: max(decision, onset + POST_S), rounded up to
  the end of its 10 ms block.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from audio.blocks import RawChunk, conform, laid_out
from audio.knock_classifier import DEFAULT_MODEL_PATH, KnockClassifier
from audio.synthetic import knock, noise, place
from models.knocks.onset_stage import JudgedDetector

RATE_HZ = 48_000


def per_onset_ms(classifier: KnockClassifier, repeats: int = 2000) -> tuple[float, float]:
    x = (0.01 * np.random.default_rng(0).standard_normal(16_000)).astype(np.float32)
    for _ in range(50):
        classifier.judge(x, 8000)
    t0 = time.perf_counter()
    for _ in range(repeats):
        p = classifier.patch(x, 8000)
    patch_ms = 1000 * (time.perf_counter() - t0) / repeats
    t0 = time.perf_counter()
    for _ in range(repeats):
        classifier.judge_patches(p[None])
    return patch_ms, 1000 * (time.perf_counter() - t0) / repeats


def stream(sound48: np.ndarray, classifier: KnockClassifier, block_s: float = 0.010):
    """(CPU s of resampling, CPU s of detection incl. classifier, onsets, latencies ms)."""
    block_in = round(block_s * RATE_HZ)
    chunks = [RawChunk(sound48[i:i + block_in], RATE_HZ, 0.0 if i == 0 else None)
              for i in range(0, len(sound48), block_in)]
    t0 = time.process_time()
    blocks = list(conform(chunks, 16_000, round(block_s * 16_000)))
    resample_s = time.process_time() - t0
    track = laid_out(blocks)  # what the detector's history buffer would hold

    def judge(t_s, _k):
        return classifier.is_knock(classifier.judge(track, round(t_s * 16_000)))[1]

    detector = JudgedDetector(judge=judge)
    t0 = time.process_time()
    for block in blocks:
        detector.process(block)
    detector.finish()
    detect_s = time.process_time() - t0
    post = classifier.spec.post_s
    latencies = []
    for o in detector.onsets:
        if o.accepted:
            ready = max(o.decided_at_s, o.t_s + post)
            emitted = np.ceil(ready / block_s - 1e-9) * block_s
            latencies.append(1000 * (emitted - o.t_s))
    return resample_s, detect_s, detector.onsets, latencies


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=str(DEFAULT_MODEL_PATH))
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args(argv)
    classifier = KnockClassifier(args.model)
    patch_ms, onnx_ms = per_onset_ms(classifier)
    print(f"per onset: patch {patch_ms:.3f} ms + ONNX {onnx_ms:.3f} ms = "
          f"{patch_ms + onnx_ms:.3f} ms (one thread)")
    times = list(np.arange(1.0, args.seconds - 0.5, 1.5))
    synthetic = place(noise(RATE_HZ, seconds=args.seconds, rms=3e-3), knock(RATE_HZ), times,
                      RATE_HZ)
    sounds = {"room noise + a knock every 1.5 s": synthetic}
    try:
        from models.knocks.knock_data import load_audio, load_clips

        busy = [c for c in load_clips() if c.cls in ("clap", "laugh", "cough")
                or c.name.endswith("doing_the_dishes")]
        x16 = np.concatenate([load_audio(c) for c in busy])[: int(args.seconds * 16_000)]
        sounds["real busy sound (claps, laughs, coughs, dishes)"] = np.repeat(x16, 3)  # ~48k
    except Exception as error:
        print(f"busy sound skipped: {error}")
    for name, sound in sounds.items():
        runs = [stream(sound, classifier) for _ in range(3)]
        resample_s = min(r[0] for r in runs)
        detect_s = min(r[1] for r in runs)
        onsets, latencies = runs[0][2], runs[0][3]
        seconds = len(sound) / RATE_HZ
        print(f"{name}: {seconds:.0f} s, {len(onsets)} onsets judged "
              f"({len(onsets) / seconds:.1f}/s), {sum(o.accepted for o in onsets)} knocks; "
              f"cost {100 * (resample_s + detect_s) / seconds:.2f}% of one core "
              f"(resample {100 * resample_s / seconds:.2f}%, onset stage + classifier "
              f"{100 * detect_s / seconds:.2f}%)")
        if latencies:
            print(f"  latency onset -> event (10 ms blocks): median "
                  f"{statistics.median(latencies):.1f} ms, worst {max(latencies):.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
