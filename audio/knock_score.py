"""What a knuckle knock on a table sounds like, and how sure we are that an onset is one.

Each feature of an onset is turned into a *margin*: how far it lies on the knock side of
its boundary, in units of that feature's typical spread (0 = on the boundary). The two level
margins (strength over the floor, jump over the sound before) must each be positive on their
own. The five shape margins (decay, flatness, attack, centroid, ring) are combined by a
*soft minimum* (`combined_margin`): -log(sum(exp(-min(margin, cap)))), plus a bias. Like the
plain minimum, one knock-like feature cannot outvote a cough's slow decay; unlike it, an
onset that is borderline on *several* shape features at once (a laugh: decay, centroid and
ring all near their limits) scores lower than one borderline on one feature and clearly
knock-like on the rest (a knuckle through another microphone). That let the shape limits be
looser for the same false knocks (audio/NOTEBOOK.md, third round). The level margins stay hard:
in noise they weaken together with the shape, and a soft minimum over them lost knocks at
0 dB SNR.

The boundaries (defaults of `KnockModel`) sit between the feature distributions measured
on the *tune* split of knocks-dev (5th-95th percentiles of the onsets the detector found;
see `audio/NOTEBOOK.md`):

| feature | knuckle knocks | what it rejects |
| --- | --- | --- |
| jump over the level before (>= 15 dB) | 42-58 dB | voices growing out of voices |
| decay in the 20 ms after the peak (>= 6 dB) | 7.5-15.5 dB | laughs 0-7 dB |
| attack, onset to peak (<= 7 ms) | 3.8-5.3 ms | coughs 2.8-30 (median 13) ms |
| flatness of the added power (<= 0.08) | 0.003-0.0095 (brighter mic: -0.058) | claps 0.006-0.30 |
| centroid of the added power (250-1500 Hz) | 300-620 Hz | finger-pad taps 74-500 (median 118) Hz |
| ring: >2 kHz over the room at the decision | 1-21 dB (<2 kHz: 40-50) | coughs, laughs 7-26 |

The ring limit is max(10 dB, the level below 2 kHz over the room's - 12 dB, the high band's
own peak during the onset - max(16 dB, the decay + 5 dB)); the last term (fourth round)
keeps knocks in a reverberant room, whose click the room smears past the decision.

A room profile replaces the strength gate and centroid band with this table's own knocks
(`audio.calibration.knock_model_for`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class OnsetFeatures:
    """Measurements of one onset, taken by the time the detector decides (see DetectorParams).

    Levels are in dB; `*_db` relative ones are above the noise floor `floor_db`. The
    spectral shape (`centroid_hz`, `flatness`) is that of the power the onset added to the
    frame just before it, so a steady background does not blur it.
    """

    strength_db: float  # peak frame level above the noise floor
    pre_level_db: float  # level just before the onset, above the noise floor
    decay_db: float  # how far the level fell from the peak by the decision (>0 = fell)
    flux_db: float  # the onset function at the onset (mean dB rise per bin)
    centroid_hz: float  # spectral centroid of the added power
    flatness: float  # spectral flatness of the added power, 0..1
    floor_db: float  # the noise floor when the onset happened
    attack_ms: float = 0.0  # from the onset to the envelope's peak (ms)
    #: At the decision (`decay_window_s` after the peak), the level above / below
    #: `audio.spectral.HIGH_BAND_HZ` (2 kHz) over the room's own level in that band (dB).
    ring_high_db: float = 0.0
    ring_low_db: float = 0.0
    #: The loudest the band above 2 kHz stood over the room's while the onset was watched
    #: (dB): a knuckle's click is there at the strike and gone by the decision.
    high_peak_db: float = 0.0


@dataclass(frozen=True)
class KnockModel:
    """The expected sound of a knock; a room profile replaces the defaults with this table's.

    Defaults were measured on the tune split of knocks-dev (see the module docstring).
    """

    #: Fitted to a table's calibration knocks by a room profile (`audio.calibration
    #: .knock_model_for`): the detector then lets these gates hear knocks beside its classifier.
    from_table: bool = False
    #: Noise floor to start from before 0.5 s has been heard (dB re full scale); None: learn it.
    noise_floor_db: float | None = None
    #: A knock must fall at least this much (dB) between its peak and the decision.
    min_decay_db: float = 6.0
    decay_spread_db: float = 1.5
    #: The added power's flatness must stay below this (a knock rings at a few resonances).
    #: 0.08 keeps knocks through a brighter microphone (tune knocks pre-emphasised by
    #: a = 0.7 reach 0.058); chosen with the soft minimum (audio/NOTEBOOK.md, third round),
    #: and chosen again in the fourth.
    max_flatness: float = 0.080
    #: Spread of log10(flatness).
    flatness_spread_log10: float = 0.25
    #: The added power's centroid must lie in this band (Hz).
    min_centroid_hz: float = 250.0
    max_centroid_hz: float = 1500.0
    #: Spread of log2(centroid), in octaves.
    centroid_spread_octaves: float = 0.4
    #: Onset to envelope peak must be shorter than this (ms): a knuckle strikes, a voice swells.
    max_attack_ms: float = 7.0
    attack_spread_ms: float = 1.5
    #: The peak must stand this far (dB) above the level just before the onset: a knock
    #: cuts through; a cough or laugh syllable often grows out of the sound before it.
    min_jump_db: float = 15.0
    jump_spread_db: float = 3.0
    #: The ring: 20 ms after the peak a knuckle still rings below 2 kHz but has (nearly) no
    #: sound left above it; a cough or laugh goes on breathing there. The high band may stand
    #: at most `ring_high_room_db` over the room's, or `ring_high_below_low_db` under the low
    #: band's excess when that is larger (a loud knock's ring may reach 2 kHz a little).
    ring_high_room_db: float = 10.0
    ring_high_below_low_db: float = 12.0
    #: ... or, in a reverberant room, far enough under the high band's own peak during the
    #: onset: the room smears a knuckle's click into the high band for tens of ms, but the
    #: click has still fallen at least `ring_high_drop_db` since the strike, and
    #: `ring_high_drop_over_decay_db` more than the whole sound has (the knock's body rings
    #: on below 2 kHz). A cough or laugh fades evenly across the bands, or not at all
    #: (fourth round, audio/NOTEBOOK.md). math.inf turns this allowance off (the third round).
    ring_high_drop_db: float = 16.0
    ring_high_drop_over_decay_db: float = 5.0
    ring_spread_db: float = 3.0
    #: Softness of the strength gate (dB); the gate itself is `DetectorParams.min_strength_db`.
    strength_spread_db: float = 3.0
    min_strength_db: float = 15.0
    #: A calibrated table's knocks also reach at least this level (dB re full scale, the
    #: peak frame's), however loud the room has become since; None: no such gate. A profile
    #: sets it (`audio.calibration.knock_model_for`) instead of raising `min_strength_db`,
    #: which counts from the room's current floor and so lost knocks when talk raised it.
    min_level_db: float | None = None
    #: The soft minimum of the shape margins counts each up to this (in spreads), so a
    #: margin far on the knock side counts as merely "clear" ...
    combine_cap: float = 3.0
    #: ... and this is added to it. With 0.5, the shape is on the line where one feature is
    #: 0.37 spreads past its boundary and the other four are clear, or two are 0.29 inside
    #: theirs, or all five 1.11 inside.
    combine_bias: float = 0.5


# The margins are written with numpy's element-wise functions, so the same code scores one
# onset (floats) in the detector and thousands at once (arrays of each feature) when rules
# are compared offline (`evaluation.tune_knocks`).


def ring_limit_db(features: OnsetFeatures, model: KnockModel) -> float:
    """How far (dB) the band above 2 kHz may stand over the room's at the decision."""
    return np.maximum(
        np.maximum(model.ring_high_room_db, features.ring_low_db - model.ring_high_below_low_db),
        features.high_peak_db
        - np.maximum(model.ring_high_drop_db,
                     features.decay_db + model.ring_high_drop_over_decay_db),
    )


def strength_margin(features: OnsetFeatures, model: KnockModel) -> float:
    """How far the onset clears the strength gate over the room's floor and, for a
    calibrated table, its absolute level gate (in spreads)."""
    over_floor = (features.strength_db - model.min_strength_db) / model.strength_spread_db
    if model.min_level_db is None:
        return over_floor
    level_db = features.floor_db + features.strength_db
    return np.minimum(over_floor, (level_db - model.min_level_db) / model.strength_spread_db)


def knock_margins(features: OnsetFeatures, model: KnockModel) -> dict[str, float]:
    """Each feature's margin on the knock side of its boundary, in spreads (0 = boundary)."""
    centroid = np.maximum(features.centroid_hz, 1.0)
    return {
        "strength": strength_margin(features, model),
        "jump": (features.strength_db - features.pre_level_db - model.min_jump_db)
        / model.jump_spread_db,
        "decay": (features.decay_db - model.min_decay_db) / model.decay_spread_db,
        "flatness": (math.log10(model.max_flatness)
                     - np.log10(np.maximum(features.flatness, 1e-9)))
        / model.flatness_spread_log10,
        "attack": (model.max_attack_ms - features.attack_ms) / model.attack_spread_ms,
        "centroid": np.minimum(
            np.log2(centroid / model.min_centroid_hz),
            np.log2(model.max_centroid_hz / centroid),
        )
        / model.centroid_spread_octaves,
        "ring": (ring_limit_db(features, model) - features.ring_high_db) / model.ring_spread_db,
    }


#: The margins that must each be positive on their own (levels); the others are shape.
LEVEL_MARGINS = ("strength", "jump")


def combined_margin(margins: dict[str, float], model: KnockModel) -> float:
    """min(level margins, `combine_bias` + soft minimum of the shape margins capped at
    `combine_cap`): >= 0 is a knock."""
    shape = [m for name, m in margins.items() if name not in LEVEL_MARGINS]
    soft = model.combine_bias - np.log(
        sum(np.exp(-np.minimum(m, model.combine_cap)) for m in shape)
    )
    return np.minimum(soft, np.minimum(*(margins[name] for name in LEVEL_MARGINS)))


def knock_confidence(features: OnsetFeatures, model: KnockModel) -> float:
    """0..1: how much the onset looks like a knuckle knock (0.5 = the acceptance line)."""
    score = float(combined_margin(knock_margins(features, model), model))
    return 1.0 / (1.0 + math.exp(-2.0 * max(score, -300.0)))
