"""One line per LOSO run: the worst left-out source on each metric (from loso_results*.json).

    python summarize.py _v1 _v2 _v3 _v4 _v4thr
"""

import json
import sys
from pathlib import Path


def frac(pair):
    return pair[0] / pair[1] if pair and pair[1] else None


def line(tag):
    path = Path(f"loso_results{tag}.json")
    if not path.exists():
        return None
    results = json.loads(path.read_text())["results"]
    rows = [(s, row) for r in results for s, row in r["sources"].items()]
    big = [x for x in rows if x[1]["default"]["knocks"] >= 8]
    cal = [x for x in rows if "calibrated" in x[1]]
    rec = min((row["default"]["recall"], s) for s, row in big)
    rec_all = min((row["default"]["recall"], s) for s, row in rows)
    cal_rec = min((row["calibrated"]["recall"], s) for s, row in cal)
    cal_fp = max((row["calibrated"]["false_per_10min"], s) for s, row in cal)
    fp = max((row["default"]["false_per_10min"], s) for s, row in rows)
    dis = max((frac(row["default"]["distractor_clips"]), s) for s, row in rows)
    slap = max((frac(row["default"]["slaps"]), s) for s, row in rows)
    err = max((row["default"]["median_onset_err_ms"] or 0, s) for s, row in rows)
    thr = ", ".join(f"{t:g}" for t in sorted({r.get("threshold", 0.0) for r in results}))
    return (f"| {tag.strip('_')} | {thr} | {100 * rec[0]:.0f}% ({rec[1]}) "
            f"| {100 * rec_all[0]:.0f}% ({rec_all[1]}) | {100 * cal_rec[0]:.0f}% ({cal_rec[1]}) "
            f"| {fp[0]:.1f} ({fp[1]}) | {100 * dis[0]:.0f}% ({dis[1]}) "
            f"| {100 * slap[0]:.1f}% ({slap[1]}) | {err[0]:.1f} ({err[1]}) | {cal_fp[0]:.1f} |")


def main(tags) -> int:
    print("| run | threshold(s) (logit) | recall, worst source with >= 8 knocks "
          "| recall, worst of all | calibrated recall, worst | false / 10 min, worst "
          "| distractor clips, worst | card slaps, worst | median onset err, worst (ms) "
          "| calibrated false / 10 min, worst |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for tag in tags:
        text = line(tag)
        if text:
            print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
