"""How real rooms and microphones differ, as augmentations of 16 kHz snippets (numpy + PyAV),
and the synthetic sounds no real recording exists for (cards slapped onto a pile).

Why: the real knocks come from five sources only (~170 events), so a classifier learns the
device unless every snippet is heard through many rooms and microphones. The chain follows the
physical order: source -> room (reverberation) -> other sound in the room (mixed at 0-20 dB)
-> microphone (EQ, band limits incl. the 8 kHz telephone band, i.e. 4 kHz audio) -> phone
processing (AGC / compression, soft clipping) -> codec (AAC or Opus at low bit rates).

Training only (not needed at runtime).
"""

from __future__ import annotations

import numpy as np

RATE_HZ = 16_000


# -- room -------------------------------------------------------------------------------------

def room_impulse_response(rng: np.random.Generator, rate_hz: int = RATE_HZ) -> np.ndarray:
    """A synthetic room: direct sound, 2-8 early reflections (1-25 ms, a table, walls, a
    ceiling), and a diffuse exponentially decaying, darkening noise tail (RT60 0.15-0.9 s) at
    a direct-to-reverberant ratio of -3..+15 dB (a phone next to the knock: high; a laptop
    across the table in a kitchen: low)."""
    rt60 = rng.uniform(0.15, 0.9)
    drr_db = rng.uniform(-3.0, 15.0)
    n = round(rt60 * rate_hz)
    t = np.arange(n) / rate_hz
    tail = rng.standard_normal(n) * np.exp(-6.91 * t / rt60)
    tail[: round(rng.uniform(0.002, 0.008) * rate_hz)] = 0.0
    # Darkening that grows with time (walls absorb highs): a one-pole low-pass on the tail.
    a = rng.uniform(0.2, 0.8)
    tail = _one_pole(tail, a)
    tail *= np.sqrt(10 ** (-drr_db / 10) / (np.sum(tail ** 2) + 1e-12))
    ir = tail
    ir[0] += 1.0
    for _ in range(rng.integers(2, 9)):
        delay = round(rng.uniform(0.001, 0.025) * rate_hz)
        if delay < n:
            ir[delay] += rng.uniform(-0.6, 0.6)
    return ir.astype(np.float32)


def _one_pole(x: np.ndarray, a: float) -> np.ndarray:
    """y[n] = (1-a) x[n] + a y[n-1], via FFT convolution with a truncated kernel."""
    kernel = (1 - a) * a ** np.arange(64)
    return fft_convolve(x, kernel)[: len(x)]


def fft_convolve(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    n = len(x) + len(h) - 1
    size = 1 << (n - 1).bit_length()
    return np.fft.irfft(np.fft.rfft(x, size) * np.fft.rfft(h, size), size)[:n]


def reverberate(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return fft_convolve(x, room_impulse_response(rng))[: len(x)].astype(np.float32)


# -- microphone -------------------------------------------------------------------------------

def mic_response(rng: np.random.Generator, n_bins: int, rate_hz: int = RATE_HZ) -> np.ndarray:
    """A random microphone's magnitude response on `n_bins` rfft bins: a tilt of +-6 dB per
    decade, 2-5 bumps of +-10 dB, a high-pass (50-500 Hz, a phone or laptop mic has little
    bass) and a low-pass: none, or 7, 5, 4 (the 8 kHz telephone band) or 3.4 kHz."""
    f = np.linspace(0, rate_hz / 2, n_bins)
    lf = np.log10(np.maximum(f, 20.0))
    gain_db = rng.uniform(-6, 6) * (lf - 3.0)
    for _ in range(rng.integers(2, 6)):
        centre = rng.uniform(np.log10(100), np.log10(7000))
        width = rng.uniform(0.08, 0.4)
        gain_db += rng.uniform(-10, 10) * np.exp(-0.5 * ((lf - centre) / width) ** 2)
    hp = rng.uniform(50, 500)
    order = rng.integers(1, 4)
    response = 10 ** (gain_db / 20) / np.sqrt(1 + (hp / np.maximum(f, 1.0)) ** (2 * order))
    cutoff = rng.choice([0.0, 7000.0, 5000.0, 4000.0, 3400.0], p=[0.3, 0.2, 0.15, 0.25, 0.1])
    if cutoff:
        response /= np.sqrt(1 + (f / cutoff) ** (2 * rng.integers(4, 9)))
    return response


def colour(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """`x` through a random microphone (zero-phase; the responses are smooth, so little
    pre-ringing leaks before an onset)."""
    size = 1 << (len(x) - 1).bit_length()
    spectrum = np.fft.rfft(x, size)
    return np.fft.irfft(spectrum * mic_response(rng, len(spectrum)), size)[: len(x)].astype(
        np.float32)


def compress(x: np.ndarray, rng: np.random.Generator, rate_hz: int = RATE_HZ) -> np.ndarray:
    """Phone-style AGC / compressor: a peak envelope (attack 0.5-5 ms, release 30-300 ms), gain
    reduction above a threshold 5-30 dB under the peak at ratio 2-10; sometimes a tanh clip."""
    attack = np.exp(-1 / (rng.uniform(0.0005, 0.005) * rate_hz))
    release = np.exp(-1 / (rng.uniform(0.03, 0.3) * rate_hz))
    level = np.abs(x).astype(np.float64)
    env = np.empty_like(level)
    e = 0.0
    for i, v in enumerate(level):  # a few thousand samples: fine in training
        coef = attack if v > e else release
        e = coef * e + (1 - coef) * v
        env[i] = e
    peak = env.max() + 1e-12
    threshold = peak * 10 ** (-rng.uniform(5, 30) / 20)
    ratio = rng.uniform(2, 10)
    over = np.maximum(env / threshold, 1.0)
    gain = over ** (1 / ratio - 1)
    y = x * gain
    if rng.random() < 0.25:
        drive = rng.uniform(1.5, 6) / (np.abs(y).max() + 1e-9)
        y = np.tanh(drive * y) / drive
    return y.astype(np.float32)


# -- codec ------------------------------------------------------------------------------------

def codec_roundtrip(x: np.ndarray, codec: str, bit_rate: int, rate_hz: int = RATE_HZ
                    ) -> np.ndarray:
    """`x` encoded and decoded with PyAV ('aac' in ADTS or 'libopus' in Ogg) at `bit_rate`,
    re-aligned to the input by cross-correlation (codecs add priming delay), same length.
    Call it on a long concatenation of snippets, not per snippet (container overhead)."""
    import io

    import av

    peak = float(np.abs(x).max()) or 1.0
    scale = 0.5 / peak
    data = (x * scale).astype(np.float32)
    buf = io.BytesIO()
    frame_size = 1024 if codec == "aac" else 960
    with av.open(buf, mode="w", format="adts" if codec == "aac" else "ogg") as out:
        stream = out.add_stream(codec, rate=rate_hz)
        stream.bit_rate = bit_rate
        stream.layout = "mono"
        for start in range(0, len(data), frame_size):
            chunk = data[start: start + frame_size]
            if len(chunk) < frame_size:
                chunk = np.pad(chunk, (0, frame_size - len(chunk)))
            frame = av.AudioFrame.from_ndarray(chunk[None], format="flt", layout="mono")
            frame.sample_rate = rate_hz
            frame.pts = start
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    buf.seek(0)
    pieces, out_rate = [], rate_hz
    with av.open(buf, mode="r") as inp:
        for frame in inp.decode(audio=0):
            out_rate = frame.sample_rate
            a = frame.to_ndarray()
            pieces.append(a.reshape(-1) if a.shape[0] == 1 else a[0])
    y = np.concatenate(pieces).astype(np.float32) / scale
    if out_rate != rate_hz:  # Opus decodes at 48 kHz
        y = _decimate(y, out_rate // rate_hz)
    return _align(x, y)


def _decimate(x: np.ndarray, step: int) -> np.ndarray:
    """Low-pass (windowed sinc at 0.45 of the new rate) and keep every step-th sample."""
    taps = 16 * step | 1
    k = np.arange(taps) - (taps - 1) / 2
    h = np.sinc(2 * 0.45 / step * k) * np.blackman(taps)
    h /= h.sum()
    y = np.convolve(x, h, mode="same")
    return y[::step].astype(np.float32)


def _align(x: np.ndarray, y: np.ndarray, max_lag: int = 4096) -> np.ndarray:
    """`y` shifted so it lines up with `x` (the lag of the cross-correlation's peak)."""
    n = min(len(x), len(y), 1 << 16)
    corr = fft_convolve(y[:n + max_lag][::-1].astype(np.float64), x[:n].astype(np.float64))
    # corr index k corresponds to lag = len(y_seg) - 1 - k
    seg = len(y[:n + max_lag])
    lags = seg - 1 - np.arange(len(corr))
    ok = (lags >= 0) & (lags <= max_lag)
    lag = int(lags[ok][np.argmax(corr[ok])])
    out = np.zeros(len(x), np.float32)
    z = y[lag: lag + len(x)]
    out[: len(z)] = z
    return out


# -- other sound in the room ------------------------------------------------------------------

def mix_at_snr(x: np.ndarray, background: np.ndarray, snr_db: float, anchor: int,
               rng: np.random.Generator) -> np.ndarray:
    """`x` plus a random stretch of `background` scaled so that the 100 ms after `anchor`
    (the onset) stands `snr_db` over the background's mean power (as audio.mixer defines SNR)."""
    if len(background) < len(x):
        background = np.tile(background, len(x) // max(1, len(background)) + 1)
    start = rng.integers(0, len(background) - len(x) + 1)
    bg = background[start: start + len(x)].astype(np.float64)
    sig = x[anchor: anchor + 1600].astype(np.float64)
    p_sig = float(np.mean(sig ** 2)) + 1e-12
    p_bg = float(np.mean(bg ** 2)) + 1e-12
    gain = np.sqrt(p_sig / p_bg / 10 ** (snr_db / 10))
    return (x + gain * bg).astype(np.float32)


# -- synthetic sounds of a card table ---------------------------------------------------------

def shaped_noise(rng, n, rate_hz, lo_hz, hi_hz, tilt_db_per_oct, ripple_db=4.0):
    """White noise shaped in the frequency domain: a band, a tilt, a random ripple."""
    size = 1 << (max(n, 2) - 1).bit_length()
    f = np.fft.rfftfreq(size, 1 / rate_hz)
    octaves = np.log2(np.maximum(f, 20.0) / 1000.0)
    gain_db = tilt_db_per_oct * octaves + ripple_db * np.interp(
        octaves, np.linspace(-6, 4, 12), rng.standard_normal(12))
    band = 1 / np.sqrt(1 + (lo_hz / np.maximum(f, 1)) ** 4) / np.sqrt(1 + (f / hi_hz) ** 6)
    spectrum = np.fft.rfft(rng.standard_normal(size)) * band * 10 ** (gain_db / 20)
    y = np.fft.irfft(spectrum, size)[:n]
    return y / (np.std(y) + 1e-12)


def card_slap(rng: np.random.Generator, rate_hz: int = RATE_HZ, seconds: float = 0.4
              ) -> tuple[np.ndarray, int]:
    """A card slapped onto the discard pile, synthesised (no real recording exists).

    What it is physically: a stiff sheet of paper board hitting a stack of paper on a table.
    The air pushed out between card and pile gives a broadband *noise* burst (not a resonance):
    band 300 Hz-8 kHz, its centre of energy in 1-5 kHz, flat to slightly falling spectrum with a
    random ripple (paper has no strong modes); a soft attack (0.5-5 ms raised cosine: the card
    lands over its area, not at a point) and a short decay (time constant 3-25 ms). The pile and
    table add a weak low thump (60-300 Hz damped sine, 5-20 ms, -25..-6 dB) most of the time;
    some slaps land in two steps (the edge, then the face, 4-30 ms later); some are preceded by
    the card sliding off the hand or the pile (a 20-120 ms rising hiss, -30..-12 dB).
    Returns (samples, onset index).
    """
    n = round(seconds * rate_hz)
    onset = round(rng.uniform(0.08, 0.15) * rate_hz)
    y = np.zeros(n)

    def burst(at, amp):
        length = n - at
        t = np.arange(length) / rate_hz
        attack = rng.uniform(0.0005, 0.005)
        tau = rng.uniform(0.003, 0.025)
        env = np.where(t < attack, 0.5 - 0.5 * np.cos(np.pi * t / attack), 1.0)
        env *= np.exp(-np.maximum(t - attack, 0) / tau)
        noise = shaped_noise(rng, length, rate_hz, rng.uniform(200, 800),
                              rng.uniform(4000, 8000), rng.uniform(-3.0, 1.5))
        y[at:] += amp * env * noise

    burst(onset, 1.0)
    if rng.random() < 0.35:
        burst(onset + round(rng.uniform(0.004, 0.03) * rate_hz), rng.uniform(0.3, 1.0))
    if rng.random() < 0.7:  # the pile / table thump
        t = np.arange(n - onset) / rate_hz
        f0 = rng.uniform(60, 300)
        thump = np.sin(2 * np.pi * f0 * t) * np.exp(-t / rng.uniform(0.005, 0.02))
        thump *= np.clip(t / rng.uniform(0.001, 0.004), 0, 1)
        y[onset:] += 10 ** (rng.uniform(-25, -6) / 20) * 3 * thump
    if rng.random() < 0.4:  # sliding hiss before
        length = round(rng.uniform(0.02, 0.12) * rate_hz)
        start = max(0, onset - length)
        hiss = shaped_noise(rng, onset - start, rate_hz, 1500, 8000, 0.0)
        ramp = np.linspace(0, 1, onset - start) ** 2
        y[start:onset] += 10 ** (rng.uniform(-30, -12) / 20) * hiss * ramp
    return (0.3 * y / (np.abs(y).max() + 1e-12)).astype(np.float32), onset


def riffle(rng: np.random.Generator, rate_hz: int = RATE_HZ, seconds: float = 0.6
           ) -> tuple[np.ndarray, int]:
    """A riffle shuffle / cards being squared: a train of 10-50 tiny paper clicks (0.3-2 ms
    noise blips, high-passed) over 0.2-0.5 s, getting denser. Returns (samples, first click)."""
    n = round(seconds * rate_hz)
    y = np.zeros(n)
    first = round(0.08 * rate_hz)
    span = rng.uniform(0.2, 0.5)
    for _ in range(rng.integers(10, 50)):
        at = first + round(span * rng.random() ** 0.7 * rate_hz)
        length = round(rng.uniform(0.0003, 0.002) * rate_hz) + 2
        if at + length < n:
            blip = shaped_noise(rng, length, rate_hz, 1000, 8000, 0.0)
            y[at: at + length] += rng.uniform(0.2, 1.0) * blip * np.hanning(length)
    return (0.2 * y / (np.abs(y).max() + 1e-12)).astype(np.float32), first


# -- other tables -----------------------------------------------------------------------------

def stretch(x: np.ndarray, anchor: int, factor: float) -> np.ndarray:
    """`x` played `factor` times faster around sample `anchor` (which stays put): every
    resonance moves up by `factor` and rings 1/`factor` as long, like a smaller or stiffer
    table (0.75-1.33 in training). Linear interpolation (content is <= 8 kHz at 16 kHz: at
    factor > 1 the top is folded a little, which the microphone low-pass hides)."""
    k = np.arange(len(x))
    pos = anchor + (k - anchor) * factor
    return np.interp(pos, k, x, left=0.0, right=0.0).astype(np.float32)


def shorten_decay(x: np.ndarray, anchor: int, rng: np.random.Generator,
                  rate_hz: int = RATE_HZ) -> np.ndarray:
    """A more damped table (a cloth, a thick top): from 5-20 ms after the onset on, an extra
    exponential decay with a 10-60 ms time constant."""
    t = (np.arange(len(x)) - anchor) / rate_hz - rng.uniform(0.005, 0.02)
    return (x * np.exp(-np.maximum(t, 0.0) / rng.uniform(0.01, 0.06))).astype(np.float32)


def modal_knock(rng: np.random.Generator, rate_hz: int = RATE_HZ, seconds: float = 0.4
                ) -> tuple[np.ndarray, int]:
    """A synthetic knock on a table, by modal synthesis (a positive that no one table owns).

    A strike excites a plate's modes: 2-7 damped sines, 100-3000 Hz (log-uniform; most energy
    in the lowest), each decaying with a time constant of 3-80 ms (higher modes die faster);
    the excitation is a half-sine contact pulse whose width sets the hardness: 0.8-3 ms for a
    knuckle or finger, 0.1-0.6 ms for a pen or hammer (which also adds a short contact click
    of noise). Knuckle knocks often strike in two steps (2-15 ms apart). Returns (samples,
    onset index)."""
    n = round(seconds * rate_hz)
    onset = round(rng.uniform(0.08, 0.15) * rate_hz)
    t = np.arange(n - onset) / rate_hz
    ir = np.zeros(n - onset)
    n_modes = int(rng.integers(2, 8))
    freqs = np.sort(np.exp(rng.uniform(np.log(100), np.log(3000), n_modes)))
    for i, f in enumerate(freqs):
        tau = rng.uniform(0.003, 0.08) * (300 / f) ** rng.uniform(0.0, 0.7)
        amp = rng.uniform(0.2, 1.0) * (1.0 if i == 0 else rng.uniform(0.1, 1.0))
        ir += amp * np.sin(2 * np.pi * f * t + rng.uniform(0, 2 * np.pi)) * np.exp(-t / tau)
    hard = rng.random() < 0.4
    width = rng.uniform(0.0001, 0.0006) if hard else rng.uniform(0.0008, 0.003)
    m = max(2, round(width * rate_hz))
    pulse = np.sin(np.pi * np.arange(m) / m)
    y = np.zeros(n)
    y[onset:] = fft_convolve(ir, pulse)[: n - onset]
    if rng.random() < 0.3:  # a second knuckle
        d = round(rng.uniform(0.002, 0.015) * rate_hz)
        y[onset + d:] += rng.uniform(0.3, 1.0) * y[onset: n - d]
    if hard:
        click = shaped_noise(rng, round(rng.uniform(0.0005, 0.002) * rate_hz), rate_hz,
                              1000, 8000, 0.0)
        y[onset: onset + len(click)] += rng.uniform(0.05, 0.4) * np.abs(y).max() * click * \
            np.hanning(len(click))
    return (0.3 * y / (np.abs(y).max() + 1e-12)).astype(np.float32), onset
