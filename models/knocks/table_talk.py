"""Synthetic table talk: speech by espeak-ng, as not-a-knock training sound (training only).

Why: held out by leave-one-source-out, more than half of the classifier's false knocks in room
sound were spoken digits (fsdd), the only real speech the data sets hold besides a few laughs,
coughs and one babble clip. Talk is the most common sound at a card table, and its plosives and
syllable onsets are sharp enough for the onset stage. espeak-ng (a Debian package; the
announcer already needs it) speaks many languages in many voices, at any speed and pitch, so
the classifier hears syllables of many more speakers than the data sets' few. Formant speech is
not real speech: how much it buys is measured on the real speech the folds leave out
(REPORT.md), never assumed.

Each utterance is a few words of the languages the friends at the table speak (Swedish,
Danish, Norwegian, English, German, Finnish, ...) with the game's own words among them, said by
a random espeak-ng voice variant at a random speed, pitch and word gap. Returns 16 kHz audio.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

RATE_HZ = 16_000

#: A few words per language (space-separated), the game's own among them (numbers, colours).
WORDS = {
    "sv": "en två tre fyra fem sex sju åtta nio noll röd grön blå gul kort din tur seg uno "
          "bruno straff nej ja kolla titta vänta tack pass dra två knacka ta upp spela "
          "vem är det nu okej skit också bra snabbt",
    "da": "en to tre fire fem seks syv otte ni nul rød grøn blå gul kort din tur tag to "
          "skål drik tår nej ja hvad så kom nu uno stop vent",
    "nb": "en to tre fire fem seks sju åtte ni null rød grønn blå gul kort din tur trekk "
          "nei ja kom igjen vent takk",
    "en": "one two three four five six seven eight nine zero red green blue yellow card "
          "your turn draw two skip reverse wild uno knock penalty wait what come on "
          "that's not fair pass me the cup okay",
    "en-us": "one two three four five six seven eight nine zero red green blue yellow "
             "pick up two it's my turn hey stop talking cheater pizza",
    "de": "eins zwei drei vier fünf sechs sieben acht neun null rot grün blau gelb karte "
          "du bist dran zieh zwei aussetzen klopfen nein doch",
    "fi": "yksi kaksi kolme neljä viisi kuusi seitsemän kahdeksan yhdeksän nolla punainen "
          "vihreä sininen keltainen kortti sinun vuorosi",
    "nl": "een twee drie vier vijf zes zeven acht negen nul rood groen blauw geel kaart "
          "jouw beurt pak twee",
    "fr-fr": "un deux trois quatre cinq six sept huit neuf zéro rouge vert bleu jaune carte "
             "à toi passe",
    "es": "uno dos tres cuatro cinco seis siete ocho nueve cero rojo verde azul amarillo "
          "carta te toca",
    "pl": "jeden dwa trzy cztery pięć sześć siedem osiem dziewięć zero czerwony zielony "
          "niebieski żółty karta twoja kolej",
}
#: espeak-ng voice variants (in its data): men, women, children-like, croaky, whispery, klatt.
VARIANTS = ("", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "f1", "f2", "f3", "f4", "f5",
            "croak", "klatt", "klatt2", "klatt3", "whisper", "iven", "linda", "edward",
            "grandma", "grandpa", "anika", "max", "andy", "steph", "norbert")


class TableTalkUnavailable(RuntimeError):
    """espeak-ng is not installed (apt install espeak-ng)."""


def espeak_path() -> str:
    found = shutil.which("espeak-ng")
    if not found:
        raise TableTalkUnavailable("espeak-ng is not installed: apt install espeak-ng "
                                   "(the knock recipe speaks table talk with it)")
    return found


def utterance(rng: np.random.Generator) -> tuple[str, str]:
    """(language, text): a few random words of one random language."""
    language = list(WORDS)[int(rng.integers(len(WORDS)))]
    words = WORDS[language].split()
    n = int(rng.integers(1, 7))
    text = " ".join(words[int(rng.integers(len(words)))] for _ in range(n))
    if rng.random() < 0.25:
        text += "!" if rng.random() < 0.5 else "?"
    return language, text


def speak(rng: np.random.Generator, workdir: Path | None = None) -> np.ndarray:
    """One utterance by a random voice, as 16 kHz float32 mono (peak 0.5)."""
    import soundfile

    language, text = utterance(rng)
    variant = VARIANTS[int(rng.integers(len(VARIANTS)))]
    voice = f"{language}+{variant}" if variant else language
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        wav = Path(tmp) / "talk.wav"
        subprocess.run(
            [espeak_path(), "-v", voice, "-s", str(int(rng.integers(110, 260))),
             "-p", str(int(rng.integers(10, 95))), "-g", str(int(rng.integers(0, 12))),
             "-a", "150", "-w", str(wav), text],
            check=True, capture_output=True, timeout=30)
        samples, rate = soundfile.read(wav, dtype="float32", always_2d=True)
    x = samples.mean(axis=1)
    x = _resample(x, rate, RATE_HZ)
    return (0.5 * x / (np.abs(x).max() + 1e-9)).astype(np.float32)


def _resample(x: np.ndarray, rate_from: int, rate_to: int) -> np.ndarray:
    """Band-limited resampling in the frequency domain (espeak-ng speaks at 22.05 kHz; the
    bins above the new Nyquist are dropped, so nothing folds back)."""
    if rate_from == rate_to:
        return x
    n_to = round(len(x) * rate_to / rate_from)
    spectrum = np.fft.rfft(x)
    kept = np.zeros(n_to // 2 + 1, complex)
    k = min(len(kept), len(spectrum))
    kept[:k] = spectrum[:k]
    return (np.fft.irfft(kept, n_to) * n_to / len(x)).astype(np.float32)
