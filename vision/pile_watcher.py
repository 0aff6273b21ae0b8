"""The discard pile, frame by frame: when a card comes to rest, which card, who put it there.

A small explicit state machine over the pile region of the downscaled frame:

- IDLE: nothing moves and the pile looks as it did (`reference`, the last still pile);
- HAND: something moves over the pile (a hand, an arm, a carried card);
- SETTLING: nothing moves, but the pile differs from the reference: a card may be resting
  there, or a hand is holding still, or the light changed;
- CHANGED: this frame a new card (or a take-back) was confirmed; back to IDLE or HAND next.

A new card is confirmed when the pixels that differ from the reference *and* have been still
for `STABLE_FRAMES` form a card-shaped patch that does not touch the region's edge — an arm
always reaches the edge (it comes from outside), a card lies inside. This also confirms a card
while another hand is already moving in (a jump-in), and never while a hand covers it, nor from
a lamp change (brightness is normalised by the frame's median; a clipped channel counts only
for the change it proves) or a passing shadow (soft, below `CHANGE_L1`, and never card-shaped).

The event's `t` is the first frame from which the new card's pixels have not changed (looked
up in a short history), not the frame it was confirmed in. The card is read by `read_card`
(default: the recogniser) on a full-resolution crop around it, and the readings voted on. A card
is often confirmed while the hand that laid it still covers a corner, so the reading waits
(up to `READ_WAIT_S`) for frames in which no hand is over the pile and the whole card shows;
the event is emitted then, still stamped with the moment the card came to rest. When no such
frame comes in time (a hand lingers, the next card lands), the frames at confirmation are read.
A card whose pixels show the card under it again is a take-back (`card_removed`); a small
shift of the last card by the same hand soon after is an adjustment. Another card from that
hand soon after (a multi-card play: laid beside the last, fanned, or squarely on it) is a card
of its own: the last card still shows where it lay beside it, or it is another colour, or it
reads as another card; once the hand let go of the last card in between, that is asked before
whether the patch shows the pile a nudge away (a card like the last one always does). While a
card waits to be read, the next one may land on it: no reading is taken then (nor is the pile
around it caught up, which would take the next card in as its uncovered part), and readings
from just before the next card came to rest are dropped; a card no arm was seen laying, soon
after the last one by the same hand, is that hand's. A jump-in chain can be laid faster than
the pile comes to rest between its cards: two cards crossed are one square patch
(`_crossed_pair`), and the cards no frame showed are told by the other hands that stopped on
the pile before the last one (`vision.pile_landing.hands_before`), written unsure.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

import cv2
import numpy as np

from referee.cards import Card
from referee.events import CardPlayed, CardRemoved, Event
from referee.rules import RuleSet
from vision.arms import Arm, robust_level
from vision.frames import Frame
from vision.pile_cards import (
    REMAINDER_READ_SURE,
    REST_MATCH,
    UNSEEN_READ_SURE,
    CardReading,
    PlayedCard,
    card_view,
    gap_s,
    guessed_confidence,
    vote_readings,
)
from vision.pile_fan import FanCards, UnderCard
from vision.pile_instick import CoveredUnsureCards
from vision.pile_landing import hand_that_laid, hands_before, hull_points, landed_at
from vision.pile_path import card_path_angle
from vision.pile_same_hand import ADJUST_WINDOW_S, SEAT_WINDOW_S, SameHandCards
from vision.pile_shapes import (
    CHANGE_L1,
    best_card_rect,
    card_sized,
    explained_by_light,
    glare_came_or_went,
    grown,
    matches,
)
from vision.pile_take_back import REMOVAL_MATCH, TakeBacks
from vision.pixels import follow, l1_distance, scale_channels
from vision.seats import angle_deg, angular_distance_deg, vote_share


class PileState(Enum):
    IDLE = "idle"
    HAND = "hand over the pile"
    SETTLING = "settling"
    CHANGED = "changed"


CardReader = Callable[[np.ndarray, float], CardReading | None]
"""Reads the card in a BGR crop taken at session time `t_s` (seconds). The time is there so
a ground-truth reader can stand in for the recogniser in tests and evaluations. A card of a
fan under its top card (`vision.pile_fan`) is read from its own place with `depth=` how many
cards lie over it, which only a ground-truth reader, knowing the pile's order, uses."""

MOTION_L1 = 36.0
"""A pixel moved when its colour (sum of |ΔB|+|ΔG|+|ΔR| after brightness normalisation, 0-765)
changed by more than this since the last frame: above sensor noise and H.264 flicker (~15)."""

CLIPPED_LEVEL = 250
"""A channel this bright in the raw frame is clipped: its value is only known to be at least
this. It is compared with the reference as that bound (`_differs`), not dropped: a lamp turned
up clips pixels that have not changed (the bound is below the reference: no change), while a
white or yellow card on a brightly lit table is clipped almost all over (its oval, its yellow
field) and is still far brighter than a darker card under it. Dropping every pixel with a
clipped channel lost those cards: rendered game 307 (a vivid, brightly lit table) missed 9 of
31 plays, its new card's patch cut to the few unclipped pixels around its print."""

GLARE_MIN_UNCLIPPED = 0.25
"""A change is judged for a glare (`vision.pile_shapes.explained_by_glare`) on its pixels no
channel of which clipped, when they are at least this share of it: a glare's middle clips, its
rim does not (rendered webcam game 441, 49.7 s: a third); a yellow card under a lamp turned up
clips nearly all over, and the few pixels left are no sample of it (4 %: the lamp test's seed 4
took a new card for light)."""

LIGHT_STEP = 0.05
"""The whole picture's light jumped when a channel's level (`robust_level`) changed by this
much (log) from one watched frame to the next: an exposure step or a lamp (the rendered
webcam family's steps are 13-37 %; a hand entering moves the level by a percent or two)."""

LIGHT_STEP_WINDOW_S = 1.0
"""A change confirmed this soon after such a jump may be the jump (`_after_light_step`) ..."""

LIGHT_STEP_HAND_S = 0.2
"""... when no arm's tip was over the pile from this long before the jump on ..."""

LIGHT_STEP_SAME = 0.9
"""... and this share of the patch showed the reference in the last frame before it (or what
differed there then was no card)."""

MIN_MOVING_PX_FRACTION = 0.004
"""Fewer moving pixels than this fraction of the region is noise, not a hand."""

STABLE_FRAMES = 4
"""A pixel must have been still this many frames (133 ms at 30 fps) to count as resting."""

CARD_AREA_RANGE = (0.5, 1.7)
"""A new card's patch (convex hull of the still, changed pixels) covers this many card areas:
less when a corner is still covered, more when a card was pushed a little as it landed."""

CARD_ASPECT_RANGE = (1.1, 2.2)
"""Long/short side of the patch's rotated rectangle (a card is 1.5)."""

CROSSED_AREA_RANGE = (1.2, 2.0)
CROSSED_ASPECT_RANGE = (1.0, 1.1)
"""A still patch this big and this square (where CARD_ASPECT_RANGE begins) is two cards
crossed: a jump-in's card laid across the last one before the pile came to rest between them
(rendered webcam game 302 at 14.7 s: two blue 8s, 1.45 cards, 1.09 long over short, never
confirmed before). No one card is so square, and a fan is longer."""

CROSSED_ONE_PIECE = 0.9
"""... when its changed pixels are one piece, this share of them at least: two cards crossed
touch; a card and a glare or a hand's mark beside it do not."""

MIN_CHANGED_IN_HULL = 0.3
"""At least this fraction of the patch must really differ (not just lie between changes)."""

RECENT_FRAMES = 45
"""Pixels that came to rest within this many frames (1.5 s at 30 fps) are "lately": a card
just dropped, not an older difference beside it."""

TOGETHER_FRAMES = 12
"""Pixels that came to rest within this many frames (0.4 s at 30 fps) of the latest ones came
to rest with them: one card put down."""

MAX_MOVING_IN_CARD = 0.03
"""A resting card has at most this fraction of its patch moving (sensor noise on edges); a
card being pushed or a hand over it has far more."""

MOVED_LATELY_FRAMES = 2
"""... where moving means moved within this many frames. Pixels a leaving hand uncovered a
moment ago have not been still for STABLE_FRAMES yet, but they are not moving: the card is
confirmed at once, before a jump-in's hand comes over it."""

LEFTOVER_MAX_CARDS = 0.25
"""A card patch may be the largest piece of what changed when the other pieces together are at
most this many card areas (half the least card patch): specks and slivers a hand left."""

PIECE_STILL_FRAMES = 15
"""... and all that changed has lain still this many frames (0.5 s at 30 fps): a card still
being uncovered shows in pieces too."""

MIN_PART_CARDS = 0.04
"""Changed specks smaller than this many card areas (compression noise, a crumb) are left out
of the patch, or they would bend its shape."""

EDGE_TOUCH_PX = 1
"""Changed pixels this close to the region's edge belong to something reaching in."""

REBASE_AFTER_S = 2.0
"""A difference that is not a card and has not moved for this long (a shadow that stays, a
cup put down) becomes part of the reference."""

HISTORY_S = 3.0
"""How far back the rest time of a card may be found, and arms looked up."""

QUIET_VIEW_S = 0.3
"""A hand's stop on the pile followed by this long with the pile in view and still laid no card
there (`PileWatcher._quiet_after`): a card at rest is confirmed in STABLE_FRAMES frames."""

QUIET_MAX_CHANGED_CARDS = 0.25
"""... and with less than this many cards' area differing from the pile as the watcher took it
in: a pair of cards put down at once may lie in view for a second, never confirmed (a patch too
big and too square for one card; webcam game 471, 38.0 s), and is then found as the hidden card
of the hand's stop once the next card comes."""

QUIET_GAP_S = 0.05
"""Quiet frames this close follow each other (a frame at 30 fps is 0.033 s)."""

STOP_LOOK_S = 0.15
"""A hand that stops on the pile to lay a card holds it there at least this long (the landing's
MIN_STILL_S) ..."""

STOP_MIN_CHANGED_CARDS = 0.5
"""... and the pile differs then by at least this many cards' area: the card, the hand."""

SAME_HAND_S = 1.6
"""A card no arm was seen laying, within this of the last card (the longest gap between two
cards of one multi-card play, 1.5 s, and a frame or two), with no other seat's hand over the
pile meanwhile, is the last card's hand's."""

SEAT_TIP_RADIUS_CARDS = 1.0
"""... and its tip is within this many card heights of the card's centre."""

SEAT_MIN_COVER = 0.3
"""An arm held the card's place in a frame when its pixels covered this fraction of the
card's patch (a carried card is part of the arm that carries it) ..."""

ARRIVAL_WINDOW_S = 0.6
"""When two or more seats' arms held the card's place in this many seconds before it came to
rest, the card came with the arm that reached the place last: a carried card is part of its
arm, so that arm covers the card's place only as the card gets there, while a hand that was
there before (another seat's reach over the pile, the last player's lingering hand) was not
bringing it. Rendered webcam games 301-306 (seats right of 162 found): 0.45 s 151, 0.6 s 153,
0.8 s 151, 1.0 s 150, 1.5 s 148 (the vote alone: 145)."""

ARRIVAL_MIN_COVER = 0.1
"""An arm reached the card's place in the first frame its pixels covered this fraction of
the card's patch (and it held the place, SEAT_MIN_COVER, at some frame of the window); one
already there in the window's first frame came before the window."""

ARRIVAL_MARGIN_S = 0.05
"""... at least this much later than any other (more than a frame at 30 fps): arms that came
together (or one whose pixels the other's blob took for a frame) are left to the vote."""

APPROACH_MIN_CARDS = 0.8
"""A card no arm was seen holding or near, and not the last hand's: the seat of the one arm
whose tip came this many card heights closer to the card in the ARRIVAL_WINDOW_S before it
came to rest and was closest at the end (an arm the colour of the table, seen coming, then
lost over the pile; rendered webcam games 301-306: three cards, all three named right, no
other card changed), ..."""

APPROACH_NEAR_CARDS = 3.5
"""... and came within this many card heights of it. Named so, the seat is unsure
(`seat_share` 0.5)."""

SEAT_ARRIVAL_SHARE = 0.5
"""The seat share written for a seat named by which arm arrived last, or by an arm seen
approaching: a choice between arms, not agreed by every frame."""

PATH_MAX_OFF_DEG = 35.0
"""A card seen sliding into place (`vision.pile_path`) came with the arm whose entry lies
within this of the way it came, seen from the card (neighbouring seats of six lie 60 degrees
apart). It decides between two seats' arms at the card's place (the pass of another seat's
hand over the pile as a card lands), and names the seat of a card no arm was seen laying
(of the arms in view before it, an arm the colour of the table lost over the pile): then the
seat is unsure (SEAT_ARRIVAL_SHARE)."""

SEAT_HOLD_WINDOW_S = 0.15
"""... in the last this many seconds before the card came to rest (earlier, a hand leaving
the card before may cover more of the place than the card still on its way)."""

CATCH_UP_CARDS = 0.35
"""Once no hand is over the pile, the reference takes in the pile as it is this far (card
heights) around a card just confirmed."""

ONE_CARD_MAX = 2.0
"""A patch up to this many cards' area is one card (more: cards put down at once, a fan)."""

READ_FRAMES = 3
"""A new card is read in this many of the latest still frames, and the readings voted on."""

COVERED_MAX = 0.25
"""A waiting card is not read in a frame where more than this fraction of its place shows
something else at rest than the card did when it was confirmed."""

NEXT_CARD_MARGIN_S = 0.2
"""A waiting card's reading from a frame less than this before the next card came to rest, or
after, is not trusted: the hand bringing that card covers the place first."""

READ_SPACING_S = 0.3
"""... taken at least this far apart: a hand that rests on the card a moment after laying it
(its tip outside the pile region, so no hand seems to be over the pile) spoils the readings
of a few frames in a row, and would win the vote if they were consecutive."""

READ_WAIT_S = 2.0
"""How long a new card's reading may wait for a frame with no hand over the pile. The event
comes this much later at most; its `t` is still when the card came to rest."""

WHOLE_CARD_REACH_CARDS = 0.5
"""Once the hand has gone, the new card is what the pile shows now that differs from the pile
before it, within this many card heights of the patch it was confirmed by. That patch is often
a part of the card (a hand still covered the rest, or the card landed on one of its colour),
and a read is only as good as the whole card's outline: on rendered games 104-106, comparing
the frame now (not the reference, which holds only the confirmed patch) within half a card
took the reads right from 80 % to 90 % (the crop's angle off by 19 degrees at the 90th
percentile, was over 50)."""

FITTED_MIN_CARDS = 0.5
"""When the whole patch is bigger than a card, the card is fitted where a card's outline covers
most of the differing pixels, if it covers at least this many cards' area of them (the demo's
two such cards: 0.75 and 0.79). Below that the fit is a guess, and the patch is read as it
is."""

READ_SURE = RuleSet().min_card_confidence
"""A reading this confident is sure: the referee's own bar, by default (the table's own, from
the rules of the game it plays, comes in as `PileWatcher.read_sure`)."""

STAYED_MIN = 0.25
"""A card stays where it landed: once the hand has gone, at least this fraction of the pixels
of its patch that differed from the pile before it when it was confirmed still differ. What
goes with the hand is no card: the still middle of a plain sleeve lying across the pile (its
ends moving, its middle unchanged from frame to frame) is card-shaped under a reach for a draw
pile, and then the pile shows as before (rendered webcam game 304 of the family's first
version, 3.0 s: 0.0; on its games 301-306 every real card kept at least 0.46)."""

READ_MIN_CARDS = 1.3
"""... and, unless the patch is one card's size, at least this many cards' size (long side
along the patch's long side): a card that landed on a similar one differs from the pile only
in places, so its patch may be a part of it, and the reader must see all of it."""


@dataclass
class _WaitingRead:
    """A card confirmed but not yet read: the frames it was confirmed in (the fallback) and
    the readings of clean frames (no hand over the pile) seen since."""

    played: PlayedCard
    confirmed_t: float
    frames: list[Frame]
    readings: list[CardReading] = field(default_factory=list)
    read_at: list[float] = field(default_factory=list)  # the frame time of each reading
    clean_frames: int = 0
    last_read_t: float = float("-inf")
    caught_up: bool = False  # the reference took in the card's surroundings once uncovered
    others: bool = False  # another hand (or one not named) came over the pile meanwhile
    fallback: CardReading | None = None  # `frames` read, once asked for before it settles
    differed: float = 1.0  # the fraction of its patch that differed from the pile before it
    stayed: list[float] = field(default_factory=list)  # ... still differs, per clean frame
    under: list[UnderCard] = field(default_factory=list)  # the cards under it, if a fan's top
    unsplit_fan: bool = False  # confirmed as a fan not split then (`FanCards._unsplit_fan`)

    def fan_left_unsplit(self) -> bool:
        """Was it confirmed as a fan not split then, and has no clean frame split it since?"""
        return self.unsplit_fan and not self.under

    def landed(self) -> bool:
        """Did this change come as a card comes: brought by an arm that was seen, and still
        there once the hand had gone (STAYED_MIN)? Frames never clean say nothing against it."""
        kept = [s / max(self.differed, 1e-6) for s in self.stayed]
        return self.played.seat is not None and (not kept or float(np.median(kept)) >= STAYED_MIN)


@dataclass
class PileWatcher(SameHandCards, FanCards, TakeBacks, CoveredUnsureCards):
    """Watches the pile region `region_px` = (x0, y0, x1, y1) of the analysis frame."""

    region_px: tuple[int, int, int, int]
    card_height_px: float
    read_card: CardReader
    full_scale: float = 4.0  # full-frame pixels per analysis pixel
    read_wait_s: float = READ_WAIT_S  # live play may not wait as long as a review can
    read_sure: float = READ_SURE  # the game's `min_card_confidence`
    state: PileState = PileState.IDLE
    unread: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        x0, y0, x1, y1 = self.region_px
        self.shape = (y1 - y0, x1 - x0)
        self.card_area = self.card_height_px ** 2 * 2 / 3
        self.reference: np.ndarray | None = None
        self.previous: np.ndarray | None = None
        self.still_frames = np.zeros(self.shape, np.int32)
        self.history: deque[tuple[float, np.ndarray]] = deque()
        self.arm_history: deque[tuple[float, list[Arm]]] = deque()
        # Per frame: how many of the pile's pixels differed from the reference
        # (`_stop_laid`), and whether it lay quiet: no hand over it, nothing moving in it and
        # nothing new on it (`_quiet_after`).
        self.pile_record: deque[tuple[float, int, bool]] = deque()
        self.recent_frames: deque[Frame] = deque(maxlen=READ_FRAMES)
        self.played: list[PlayedCard] = []
        self.stale_since = np.full(self.shape, np.inf)
        self.base_level: np.ndarray | None = None
        self.level: np.ndarray | None = None  # the last frame's (`robust_level`)
        self.light_step_t: float | None = None  # the last frame whose level jumped (`_crop`)
        self.clip_floor = np.full(3, CLIPPED_LEVEL, np.float32)  # CLIPPED_LEVEL, scaled
        self.clipped = np.zeros((*self.shape, 3), bool)  # the latest crop's clipped channels
        self.hand_left = True  # no hand over the pile since the last card was confirmed
        self.waiting: _WaitingRead | None = None
        self.held_unsure: list[CardPlayed] = []  # `vision.pile_instick`: may yet be covered
        self.last_sure: CardPlayed | None = None  # `vision.pile_instick`: the card under them
        self.taken_back_t = -np.inf  # when the last take-back was seen
        self.moving: np.ndarray | None = None
        self.came_to_rest: np.ndarray | None = None  # this frame's new card (bool, region)
        edge = np.ones(self.shape, bool)
        edge[EDGE_TOUCH_PX:-EDGE_TOUCH_PX or None, EDGE_TOUCH_PX:-EDGE_TOUCH_PX or None] = False
        self.edge = edge

    # -- per frame -------------------------------------------------------------------------

    def update(self, frame: Frame, arms: list[Arm]) -> list[Event]:
        """Look at one frame; return the events it confirms (usually none)."""
        events = self._watch(frame, arms)
        if self.waiting is not None:
            events = self._read_waiting(frame, arms) + events
        return self._covered_unsure(events, frame.t_s)

    def finish(self) -> list[Event]:
        """The end of the footage: a card still waiting for a clean frame is read now."""
        return self._covered_unsure(self._settle_waiting(), float("inf"))

    def _watch(self, frame: Frame, arms: list[Arm]) -> list[Event]:
        t = frame.t_s
        self.came_to_rest = None
        crop, clipped = self._crop(frame.small, t)
        self.clipped = clipped
        self._remember(t, crop, frame, arms)
        if self.reference is None:
            self.reference = crop
            self.previous = crop
            return []
        moving = l1_distance(crop, self.previous) > MOTION_L1
        self.moving = moving
        self.previous = crop
        self.still_frames = np.where(moving, 0, self.still_frames + 1)
        changed = self._differs(crop, clipped)
        changed_px = int(changed.sum())
        any_moving = moving.mean() > MIN_MOVING_PX_FRACTION
        hand_over = self._arm_over(arms)
        self.pile_record.append((t, changed_px, not hand_over and not any_moving and
                                 changed_px < QUIET_MAX_CHANGED_CARDS * self.card_area))
        if not hand_over:
            self.hand_left = True
        if not changed.any():
            self.stale_since[:] = np.inf
            self.state = PileState.HAND if any_moving else PileState.IDLE
            if not any_moving:
                # Follow slow drifts of the light while nothing happens.
                follow(self.reference, crop, 0.05)
            return []
        events = self._confirm(t, crop, changed, hand_over)
        if events:
            self.state = PileState.CHANGED
            return events
        self.state = PileState.HAND if any_moving else PileState.SETTLING
        self._rebase_stale(t, crop, changed & ~moving & (not hand_over))
        return []

    def _rebase_stale(self, t: float, crop: np.ndarray, stale: np.ndarray) -> None:
        """Pixels that differ, are no card, and have sat still with no hand near for
        REBASE_AFTER_S (a shadow that stays, a cup put down, the mark a hand left in the
        reference) become part of the reference."""
        self.stale_since = np.where(stale, np.minimum(self.stale_since, t), np.inf)
        old = (t - self.stale_since) >= REBASE_AFTER_S
        if old.any():
            self.reference[old] = crop[old]
            self.stale_since[old] = np.inf

    def _crop(self, small: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray]:
        x0, y0, x1, y1 = self.region_px
        raw = small[y0:y1, x0:x1]
        level = np.maximum(robust_level(small[::6, ::6]), 1.0)
        if self.base_level is None:
            self.base_level = level
        # Scaled to the first frame's light (not to a fixed level, which would amplify the
        # noise of a dark table along with its brightness).
        gains = self.base_level / level
        if self.level is not None and \
                float(np.abs(np.log(level / self.level)).max()) >= LIGHT_STEP:
            self.light_step_t = t  # the whole picture jumped: the camera or the lamp
        self.level = level
        crop = scale_channels(raw.astype(np.float32), gains)
        self.clip_floor = (CLIPPED_LEVEL * gains).astype(np.float32)
        clipped = raw >= CLIPPED_LEVEL  # per channel
        return crop, clipped

    def _differs(self, crop: np.ndarray, clipped: np.ndarray,
                 reference: np.ndarray | None = None) -> np.ndarray:
        """Pixels that differ from the reference (or `reference`) by more than CHANGE_L1."""
        reference = self.reference if reference is None else reference
        return l1_distance(self._as_seen(crop, clipped, reference), reference) > CHANGE_L1

    def _as_seen(self, crop: np.ndarray, clipped: np.ndarray, reference: np.ndarray
                 ) -> np.ndarray:
        """`crop` with each clipped channel at the least it may differ from `reference`: its
        value is at least the clip level (scaled like the crop), so it differs by how far the
        reference lies below that, or not at all."""
        if not clipped.any():
            return crop
        bound = np.maximum(reference, self.clip_floor)
        return np.where(clipped, bound, crop).astype(np.float32)

    def _light_over(self, crop: np.ndarray, changed: np.ndarray) -> bool:
        """Is the change at `changed` (a card-shaped patch's changed pixels) the light over
        what lay there: a lamp or shadow's factor (`vision.pile_shapes.explained_by_light`),
        or a glare's added white coming or going (`explained_by_glare`)? Judged on the pixels
        no channel of which clipped: a clipped pixel's colour is not known (a glare whitens
        the pile's middle)."""
        unclipped = changed & ~self.clipped.any(axis=2)
        share = unclipped.sum() / max(1, changed.sum())
        seen = unclipped if share >= 0.5 else changed  # mostly clipped: the bounds are all
        if explained_by_light(crop[seen], self.reference[seen], self._places(seen)):
            return True
        if share < GLARE_MIN_UNCLIPPED:
            return False  # a card's white and yellow clipped under a bright lamp: not known
        return glare_came_or_went(crop[unclipped], self.reference[unclipped],
                                  self._places(unclipped))

    def _places(self, mask: np.ndarray) -> np.ndarray:
        """The places of `mask`'s pixels (N x 2, x and y) in card heights."""
        ys, xs = np.nonzero(mask)
        return np.column_stack([xs, ys]).astype(np.float64) / self.card_height_px

    def _after_light_step(self, t: float, hull: np.ndarray) -> bool:
        """Did the patch change when the whole picture's light jumped (an exposure step, the
        lamp turned up or down), with no hand over the pile since? In the last frame before the
        jump it showed what the reference shows, or differed only by what is no card; nothing
        could have laid a card on it after. Scaling each frame back to the first frame's light
        leaves such a patch changed where the camera's response is not a common factor
        (rendered webcam game 443, 44.0 s: 8 % brighter and its blue shifted, 0.12 in
        chromaticity: read again as the same card, a phantom second one)."""
        step = self.light_step_t
        if step is None or t - step > LIGHT_STEP_WINDOW_S:
            return False
        before = next((crop for when, crop in reversed(self.history) if when < step), None)
        if before is None or any(self._arm_over(arms) for when, arms in self.arm_history
                             if step - LIGHT_STEP_HAND_S <= when <= t):
            return False
        differed = l1_distance(before, self.reference) > CHANGE_L1
        if float((~differed[hull]).mean()) >= LIGHT_STEP_SAME:
            return True
        # Part of it differed already, at rest, and was no card (what a leaving hand or a
        # card's twin left, not yet taken into the reference): the jump made it card-sized
        # (rendered webcam game 455, 41.6 s: the rest of a pair's second card, 0.2 of a card,
        # became a card once the lamp dimmed, a phantom 1.6 s after the pair).
        return self._card_patch(differed & grown(hull, 1)) is None

    def _remember(self, t: float, crop: np.ndarray, frame: Frame, arms: list[Arm]) -> None:
        self.history.append((t, crop))
        self.arm_history.append((t, arms))
        self.recent_frames.append(frame)
        while self.history and self.history[0][0] < t - HISTORY_S:
            self.history.popleft()
        while self.arm_history and self.arm_history[0][0] < t - HISTORY_S:
            self.arm_history.popleft()
        while self.pile_record and self.pile_record[0][0] < t - HISTORY_S:
            self.pile_record.popleft()

    def _quiet_after(self, start: float, end: float) -> bool:
        """Did the pile lie in view, no hand over it, nothing moving and nothing new on it, for
        QUIET_VIEW_S on end between `start` (a hand's stop on it) and `end`? A card that stop
        laid would have shown then; none did, so it laid none (webcam game 492, 25.6 s: a
        bystander's hand beside the player's for a quarter second, then the pile in full view
        for a second, written as a hidden card when the next card came)."""
        run_start = previous = None
        for t, _, quiet in self.pile_record:
            if not quiet or not start < t < end:
                continue
            if previous is None or t - previous > QUIET_GAP_S:
                run_start = t
            previous = t
            if t - run_start >= QUIET_VIEW_S:
                return True
        return False

    def _stop_laid(self, start: float) -> bool:
        """Could a hand's stop on the pile that began at `start` have laid a card: did the pile
        differ from the reference by STOP_MIN_CHANGED_CARDS of a card or more (the card and
        the hand) in the STOP_LOOK_S from it? (Webcam game 503, 36.9 s: a bystander's
        fingertip at the pile's edge, 0.1 of a card, written as a hidden card.)"""
        most = max((count for t, count, _ in self.pile_record
                    if start <= t <= start + STOP_LOOK_S), default=None)
        return most is None or most >= STOP_MIN_CHANGED_CARDS * self.card_area

    def _arm_over(self, arms: list[Arm]) -> bool:
        return any(self._tip_over(a) for a in arms)

    def _tip_over(self, arm: Arm) -> bool:
        x0, y0, x1, y1 = self.region_px
        return x0 <= arm.tip[0] < x1 and y0 <= arm.tip[1] < y1

    # -- confirming a card -----------------------------------------------------------------

    def _confirm(self, t: float, crop: np.ndarray, changed: np.ndarray, hand_over: bool
                 ) -> list[Event]:
        resting = changed & (self.still_frames >= STABLE_FRAMES)
        hull, leftover, unsplit_fan = self._card_patch(resting), None, False
        if hull is None and resting.any():
            # Something older may still differ next to it (what the last hand left, a card
            # not yet confirmed under a jump-in): try the pixels that came to rest lately,
            # then those that came to rest together with the latest ones, on their own.
            hull = self._card_patch(resting & (self.still_frames <= RECENT_FRAMES))
            if hull is None:
                youngest = int(self.still_frames[resting].min())
                hull = self._card_patch(
                    resting & (self.still_frames <= youngest + TOGETHER_FRAMES))
            if hull is None:
                hull = self._fan_patch(crop, resting)  # cards put down at once (pile_fan.py)
            if hull is None and not hand_over:
                hull = self._crossed_pair(resting)
            if hull is None and not hand_over:
                hull = self._fan_past_edge(crop, resting)  # a fan that reaches past the region
            if hull is None and not hand_over:
                hull = self._largest_piece(resting, changed)
                leftover = None if hull is None else resting & ~hull
            if hull is None and not hand_over:
                hull = self._unsplit_fan(crop, resting)  # split while it is read, or not at all
                unsplit_fan = hull is not None
        if hull is None or \
                (self.still_frames[hull] < MOVED_LATELY_FRAMES).mean() > MAX_MOVING_IN_CARD:
            return []
        # Judged on the pixels that changed: up to 70 % of a patch (MIN_CHANGED_IN_HULL) may
        # lie between them, unchanged, and those keep their colour and brightness whatever
        # changed the others. Judged on all, the parts of a card its leaving hand uncovered
        # passed for light (rendered game 302, 5.5 s), were not joined to that card, and the
        # last part, uncovered once the hand had gone, was taken for a new card.
        if self._light_over(crop, hull & changed) or self._after_light_step(t, hull):
            self._adopt(crop, hull)  # a shadow or glare over the top card, not a new card
            return []
        if self.played and hand_over and self._taking_back(crop, hull, changed, t):
            return []  # the card under the top one shows: a take-back, once the hand is gone
        if self.played and self._shows_before(crop, self.played[-1], hull, REMOVAL_MATCH):
            settled = self._settle_waiting()  # a card taken back before it was read
            gone = self.played.pop()
            # All of where it lay shows what was under it again, not only what shows yet.
            under = grown(hull | gone.hull, 1)
            self.reference = np.where(under[..., None], gone.before, self.reference)
            if gone.card is None:
                return settled  # never read: it was not announced, so nothing to take back
            # Backdated like a card: to when what was under it showed (mostly) still.
            gone_t = self._rest_time(crop, hull, t)
            self.taken_back_t = t
            return [*settled, CardRemoved(round(gone_t, 4), card=Card.parse(gone.card))]
        rest_t = self._rest_time(crop, hull, t)
        seat, seat_share = self._seat(hull, rest_t)
        last = self.played[-1] if self.played else None
        if last is not None and self._adjusts(last, hull, seat, rest_t, crop):
            if leftover is not None:
                return []  # only part of what changed: the last card is not moved there
            self._adopt(crop, hull | last.hull)
            last.hull = hull
            self.came_to_rest = hull
            return []
        if leftover is not None:
            self._adopt(crop, leftover)  # the specks beside the new card: what hands left
        settled = self._settle_waiting(rest_t)  # the card before is read now, or never
        self.hand_left = False
        played = PlayedCard(None, seat, rest_t, hull, self.reference.copy(), seat_share)
        # A hand that lingered on its card hid it until it left (`vision.pile_landing`). Not
        # for a patch bigger than a card: cards put down at once landed one by one under the
        # stopped hand, the top one last.
        if hull.sum() <= ONE_CARD_MAX * self.card_area:
            points = hull_points(hull, self.region_px[:2])
            landed_t = landed_at(self.arm_history, points, seat, rest_t, self.card_height_px,
                                 not_before=last.event_t if last is not None else -np.inf)
            played.landed_t = landed_t if landed_t < rest_t else None
            played.hands_before = [
                stop for stop in hands_before(
                    self.arm_history, points, seat, last.seat if last is not None else None,
                    # Not since before a take-back: its hand stopped on the pile too.
                    max(last.event_t if last is not None else -np.inf, self.taken_back_t),
                    rest_t, played.event_t, t, self.card_height_px)
                if self._stop_laid(stop[1]) and not self._quiet_after(stop[1], played.event_t)]
            laying_hand = hand_that_laid(seat, played.hands_before)
            if laying_hand is not None:
                played.seat, played.landed_t = laying_hand
                played.seat_share, played.hands_before = SEAT_ARRIVAL_SHARE, []
        self.played.append(played)
        del self.played[:-8]
        self._adopt(crop, hull)
        self.came_to_rest = hull
        differed = float(self._differs(crop, self.clipped, played.before)[hull].mean())
        self.waiting = _WaitingRead(played, t, list(self.recent_frames), differed=differed,
                                    unsplit_fan=unsplit_fan)
        return settled

    # -- reading a card --------------------------------------------------------------------

    def _read_waiting(self, frame: Frame, arms: list[Arm]) -> list[Event]:
        """Read the waiting card in this frame if no hand is over the pile and the card lies
        still; emit it once READ_FRAMES such readings are in, or when waiting is over."""
        waiting = self.waiting
        assert waiting is not None
        if frame.t_s - waiting.confirmed_t > self.read_wait_s:
            if not waiting.readings:
                waiting.fallback = self._read_at_last(waiting, frame, arms)
            return self._settle_waiting()
        if self._arm_over(arms):
            seat = waiting.played.seat
            waiting.others |= seat is None or any(
                a.seat != seat for a in arms if self._tip_over(a))
        if frame.t_s <= waiting.confirmed_t or self._arm_over(arms):
            return []
        if self._card_pending() or self._covered(waiting.played):
            # Another card came to rest (the same hand's next one, laid before the hand left):
            # read now, this would be read as that one, and caught up, it would be taken in
            # as this card's uncovered part. It is confirmed first; this one settles then,
            # with the readings from before it came (or of the frames it was confirmed in).
            return []
        if not waiting.caught_up:
            # Until it is done: the hand that just left may still move at the pile's edge.
            waiting.caught_up = self._catch_up(waiting.played, waiting.others)
            if waiting.caught_up:
                waiting.played.caught_up_t = frame.t_s
        if frame.t_s - waiting.last_read_t < READ_SPACING_S:
            return []
        places = self._whole_card(waiting.played)
        if self.moving is None or self.moving[places[0]].mean() > MAX_MOVING_IN_CARD:
            return []
        waiting.last_read_t = frame.t_s
        self._look_at_fan(waiting, frame)  # is it a fan's top card (`vision.pile_fan`)?
        readings = [r for r in (self._read(place, [frame]) for place in places) if r is not None]
        reading = max(readings, key=lambda r: r.confidence, default=None)
        waiting.clean_frames += 1
        played = waiting.played
        waiting.stayed.append(
            float(self._differs(self.previous, self.clipped, played.before)[played.hull].mean()))
        if reading is not None:
            waiting.readings.append(reading)
            waiting.read_at.append(frame.t_s)
        # A fan confirmed unsplit is looked at until it splits or the wait runs out.
        if waiting.clean_frames >= READ_FRAMES and not waiting.fan_left_unsplit():
            return self._settle_waiting()
        return []

    def _read_at_last(self, waiting: _WaitingRead, frame: Frame, arms: list[Arm]
                      ) -> CardReading | None:
        """A card no clean frame showed in READ_WAIT_S: read from the frames it was confirmed
        in, where the hand that laid it often still covered part of it, and, when no hand is
        over the pile now, nothing else waits to be confirmed and the card lies still, from
        this frame too; the surer reading. (The hand that left was taken into the reference
        with the card, so the card it uncovered no longer looks as it did when confirmed, and
        `_covered` held every later frame back: webcam game 481 at 1.0 s, a y_9 read y_8 from
        under a finger. Five development sets and the blind 591-602 without a profile: cards
        right 818 -> 821, nothing else changed; in the renderer's plane, 461 and 561 as
        before.)"""
        readings = [waiting.fallback or self._read(waiting.played.hull, waiting.frames)]
        if not self._arm_over(arms) and not self._card_pending() and self.moving is not None:
            places = self._whole_card(waiting.played)
            if self.moving[places[0]].mean() <= MAX_MOVING_IN_CARD:
                readings += [self._read(place, [frame]) for place in places]
        return max((r for r in readings if r is not None), key=lambda r: r.confidence,
                   default=None)

    def _card_pending(self) -> bool:
        """Is there a card-shaped patch at rest that differs from the reference (a card not yet
        confirmed: a hand still moves over part of it, or it waits to be told from an
        adjustment)? Found as `_confirm` finds one: all such pixels, those that came to rest
        lately, or with the latest ones."""
        changed = l1_distance(self.previous, self.reference) > CHANGE_L1
        resting = changed & (self.still_frames >= STABLE_FRAMES)
        if not resting.any():
            return False
        youngest = int(self.still_frames[resting].min())
        return any(self._card_patch(part) is not None for part in (
            resting, resting & (self.still_frames <= RECENT_FRAMES),
            resting & (self.still_frames <= youngest + TOGETHER_FRAMES)))

    def _place(self, played: PlayedCard) -> np.ndarray:
        """The card's place as the reference holds it: where it differs from the pile before
        the card, near its patch (the patch may be only the part of it uncovered last)."""
        near = grown(played.hull, round(WHOLE_CARD_REACH_CARDS * self.card_height_px))
        return near & (l1_distance(self.reference, played.before) > CHANGE_L1) | played.hull

    def _covered(self, played: PlayedCard) -> bool:
        """Does something at rest cover more than COVERED_MAX of the card's place, as the
        reference holds it (a card laid on it, or a hand resting on it, spoils its reading)?"""
        place = self._place(played)
        over = (l1_distance(self.previous, self.reference) > CHANGE_L1) & place & \
            (self.still_frames >= STABLE_FRAMES)
        return bool(over.sum() > COVERED_MAX * place.sum())

    def _catch_up(self, played: PlayedCard, others: bool) -> bool:
        """The first still frame with no hand over the pile after a card was confirmed: around
        the card, where the pile before it shows again, the hand that was there (and may have
        been taken in with the card) has gone: the reference becomes the pile as it is now.
        When no other hand came over the pile meanwhile (`others` False), the same goes for
        the rest of the card, which the hand uncovered: it is that card, not a new one.

        False (nothing done) while something still moves around the card: the leaving hand's
        tip is out of the region before its last pixels are. Tried once only, this left the
        hand in the reference whenever it left fast (rendered game 302: a hand taken in with
        the card at 43.1 s stayed there, hidden by the next card; when that card was taken
        back the pile under it matched the reference of before it only 72 %, and the take-back
        was a phantom new card)."""
        r = max(1, round(CATCH_UP_CARDS * self.card_height_px))
        near = grown(played.hull, r)
        if self.moving is None or self.moving[near].mean() > MAX_MOVING_IN_CARD:
            return False
        now = self.previous
        take = near & ~played.hull & (l1_distance(now, played.before) <= CHANGE_L1)
        if not others:
            take |= near
        self.reference[take] = now[take]
        self.stale_since[take] = np.inf
        return True

    def _whole_card(self, played: PlayedCard) -> list[np.ndarray]:
        """Where the card lies now that nothing covers it, as places to read it (the surest
        reading is taken): the patch of what differs from the pile before it came, near where
        it was confirmed (the confirmed patch when that is not card-shaped); when that is not
        one card's size, also the card fitted to the differing pixels. The fit goes astray when
        little of the card differs, and its crop, cut too tight, can read sure and wrong: the
        first sure reading used to be taken, the fit's before the patch's, and on webcam games
        301-306 four cards the patch read at 1.00 were read from the fit at 0.52-0.64 (b_4 as
        b_1); taking the surest put 136 -> 140 cards right there, 161 -> 162 on 311-316."""
        near = grown(played.hull, round(WHOLE_CARD_REACH_CARDS * self.card_height_px))
        differs = (l1_distance(self.previous, played.before) > CHANGE_L1) & near
        whole = self._card_patch(differs)
        place = whole if whole is not None and (whole & played.hull).any() else played.hull
        if self._card_sized_mask(place):
            return [place]
        fitted = self._fitted_card(differs)
        return [place] if fitted is None or not (fitted & played.hull).any() else [fitted, place]

    def _card_sized_mask(self, mask: np.ndarray) -> bool:
        ys, xs = np.nonzero(mask)
        (_, _), (w, h), _ = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
        return card_sized(w, h, self.card_height_px)

    def _fitted_card(self, differs: np.ndarray) -> np.ndarray | None:
        """Where a card's outline covers most of the differing pixels (the card landed on one
        of its own colour, so it differs only in places, and something beside it changed
        too); None when no card's place holds FITTED_MIN_CARDS of them."""
        covered, rect = best_card_rect(differs, self.card_height_px)
        if covered < FITTED_MIN_CARDS * self.card_area:
            return None
        box = np.zeros(self.shape, np.uint8)
        cv2.fillConvexPoly(box, np.round(cv2.boxPoints(rect)).astype(np.int32), 1)
        return box > 0

    def _settle_waiting(self, next_t: float = float("inf")) -> list[Event]:
        """Emit the waiting card with the readings of clean frames, else of the frames it was
        confirmed in. `next_t`: when the card after it came to rest; readings from frames
        NEXT_CARD_MARGIN_S before it on may have read that card (laid on it by the same hand,
        while nothing seemed to lie on it yet), and are dropped."""
        waiting, self.waiting = self.waiting, None
        if waiting is None:
            return []
        kept = [r for r, t in zip(waiting.readings, waiting.read_at, strict=True)
                if t < next_t - NEXT_CARD_MARGIN_S]
        if len(kept) < len(waiting.readings):
            waiting.readings, waiting.fallback = kept, None
        played = waiting.played
        reading = vote_readings(waiting.readings) or waiting.fallback or \
            self._read(played.hull, waiting.frames)
        if reading is not None and (
                (reading.confidence < _bar(played, self.read_sure) and not waiting.landed())
                or self._remainder_of_last(played, reading)):
            # The reader's weak guess at a change no arm was seen bringing (a glare drifting
            # over the pile), or that went with the hand: the watcher saw no card come.
            if played in self.played:
                self.played.remove(played)
            # Where the pile shows as it was before, that is what it is (not the arm taken in).
            back = grown(played.hull, 1) & \
                ~self._differs(self.previous, self.clipped, played.before)
            self.reference[back] = played.before[back]
            return []
        if reading is None:
            self.unread.append(played.t_s)
            if played in self.played:
                self.played.remove(played)
            return []
        taken_back = self._taken_back_by(played, reading)
        if taken_back is not None:
            self.taken_back_t = max(self.taken_back_t, played.t_s)
            return [taken_back]
        played.card = reading.card
        alternatives = (reading.runner_up,) if reading.runner_up else ()
        # A seat every frame agreed on is written as sure (no field): the log stays as it was.
        share = played.seat_share
        seat_confidence = None if share is None or share >= 1.0 else round(share, 2)
        under = self._fan_events(waiting)
        # A fan's cards landed one by one under the stopped hand: its stop says when the first
        # did, not the top one, which keeps its rest time.
        t = played.t_s if under else played.event_t
        return [*under, *self._cards_of_hands_before(played, reading),
                CardPlayed(round(t, 4), card=Card.parse(reading.card),
                           seat=played.seat, confidence=round(reading.confidence, 3),
                           alternatives=alternatives, seat_confidence=seat_confidence)]

    def _cards_of_hands_before(self, played: PlayedCard, reading: CardReading
                               ) -> list[CardPlayed]:
        """The cards the hands before this one laid on its place, hidden by it before the pile
        came to rest (`PlayedCard.hands_before`): never seen, so taken for this card (a
        jump-in's card is the same card), below the referee's bar (UNDER_GUESS_CONFIDENCE):
        the referee counts them as plays but judges no card it is unsure of."""
        return [CardPlayed(round(t, 4), card=Card.parse(reading.card), seat=seat,
                           confidence=guessed_confidence(reading.confidence))
                for seat, t in played.hands_before]

    def _remainder_of_last(self, played: PlayedCard, reading: CardReading) -> bool:
        """Is a barely readable card by a seat that laid a card moments earlier (the last, or
        one another seat's card has covered since) that card's remainder (the part its hand
        covered, or the card under it uncovered as the hand slid off), not a card of its own?
        A card of its own reads: rendered webcam games 301-306, the two such changes read
        0.001 and 0.03, the real cards after a card of the same seat all above
        REMAINDER_READ_SURE. A hand that stays over the pile while a jump-in lands on its card
        uncovers a part as it goes too (webcam games 463, 59.3 s, and 473, 18.5 s: read 0.41
        and 0.44, written as that seat's second card)."""
        if reading.confidence >= REMAINDER_READ_SURE or played.seat is None:
            return False
        return any(p is not played and p.seat == played.seat and
                   0 <= gap_s(played.t_s, p.t_s) < ADJUST_WINDOW_S for p in self.played)

    def _last_reading(self, last: PlayedCard) -> CardReading | None:
        """What the last card reads as: its card once read, else its readings so far or those
        of the frames it was confirmed in (kept: they are the fallback when it settles)."""
        if last.card is not None:
            return CardReading(last.card, 1.0)
        waiting = self.waiting
        if waiting is None or waiting.played is not last:
            return None
        if not waiting.readings and waiting.fallback is None:
            waiting.fallback = self._read(last.hull, waiting.frames)
        return vote_readings(waiting.readings) or waiting.fallback

    def _adopt(self, crop: np.ndarray, mask: np.ndarray) -> None:
        self.reference = np.where(grown(mask, 1)[..., None], crop, self.reference)

    def _card_patch(self, still_changed: np.ndarray, area_range: tuple = CARD_AREA_RANGE,
                    aspect_range: tuple = CARD_ASPECT_RANGE, past_edge: bool = False
                    ) -> np.ndarray | None:
        """The convex hull (bool mask) of the still, changed pixels that do not belong to
        something reaching in from the region's edge (with `past_edge`, those too), when it
        is card-shaped (or as big and as long as `area_range` and `aspect_range` say); else
        None."""
        mask = still_changed.astype(np.uint8)
        if mask.sum() < MIN_CHANGED_IN_HULL * area_range[0] * self.card_area:
            return None
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        touching = [] if past_edge else np.unique(labels[self.edge & (labels > 0)])
        specks = [i for i in range(1, count)
                  if stats[i, cv2.CC_STAT_AREA] < MIN_PART_CARDS * self.card_area]
        inside = (labels > 0) & ~np.isin(labels, np.concatenate([touching, specks]))
        points = np.column_stack(np.nonzero(inside)[::-1]).astype(np.int32)
        if len(points) < 3:
            return None
        hull_pts = cv2.convexHull(points)
        area = cv2.contourArea(hull_pts)
        if not area_range[0] * self.card_area <= area <= area_range[1] * self.card_area:
            return None
        (_, _), (rw, rh), _ = cv2.minAreaRect(hull_pts)
        aspect = max(rw, rh) / max(min(rw, rh), 1e-6)
        if not aspect_range[0] <= aspect <= aspect_range[1]:
            return None
        hull = np.zeros(self.shape, np.uint8)
        cv2.fillConvexPoly(hull, hull_pts, 1)
        hull = hull > 0
        if inside[hull].mean() < MIN_CHANGED_IN_HULL:
            return None
        return hull

    def _largest_piece(self, resting: np.ndarray, changed: np.ndarray) -> np.ndarray | None:
        """The largest piece of the still, changed pixels, when it is card-shaped on its own
        and all that changed has lain still for PIECE_STILL_FRAMES. A card laid on its twin, a
        little aside, changes only where it does not lie over the twin (a card with a bite out
        of it); a strip the hand left elsewhere would bend the whole patch's shape (webcam game
        495, 31.1 s: a jump-in on a yellow 9 never seen). So the piece must read as the last
        card: any other card's first piece, while a hand still uncovers it, is no card's whole
        place (462, 56.2 s: a yellow 3 read y_6 from its piece, then whole)."""
        last = self.played[-1] if self.played else None
        if last is None or last.card is None:
            return None  # no read card to be the twin of
        unsettled = changed & (self.still_frames < PIECE_STILL_FRAMES)
        if unsettled.sum() > MIN_PART_CARDS * self.card_area:
            return None
        count, labels, stats, _ = cv2.connectedComponentsWithStats(
            resting.astype(np.uint8), connectivity=8)
        if count < 3:
            return None  # one piece: the whole patch was looked at already
        largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        rest = int(stats[1:, cv2.CC_STAT_AREA].sum() - stats[largest, cv2.CC_STAT_AREA])
        if rest > LEFTOVER_MAX_CARDS * self.card_area:
            return None
        piece = self._card_patch(labels == largest)
        if piece is None:
            return None
        reading = self._read(piece, [self.recent_frames[-1]])
        return piece if reading is not None and reading.card == last.card else None

    def _crossed_pair(self, resting: np.ndarray) -> np.ndarray | None:
        """Two cards crossed, at rest (the patch's convex hull), or None: a patch too square
        for one card and too small for a fan, in one piece (CROSSED_ONE_PIECE). Asked only
        with no hand over the pile: a hand resting by its card makes such patches too."""
        hull = self._card_patch(resting, CROSSED_AREA_RANGE, CROSSED_ASPECT_RANGE)
        if hull is None:
            return None
        inside = (resting & hull).astype(np.uint8)
        _, _, stats, _ = cv2.connectedComponentsWithStats(inside, connectivity=8)
        if stats[1:, cv2.CC_STAT_AREA].max() < CROSSED_ONE_PIECE * inside.sum():
            return None
        return hull

    def _rest_time(self, crop: np.ndarray, hull: np.ndarray, now: float) -> float:
        rest = now
        for t, past in reversed(self.history):
            if not matches(past, crop, hull, REST_MATCH, MOTION_L1):
                break
            rest = t
        return rest

    def _seat(self, hull: np.ndarray, rest_t: float) -> tuple[int | None, float | None]:
        """The seat of the arm that held the card's place just before it came to rest (the
        card was in its hand); of two or more seats' arms that held it, the one that reached
        it last (ARRIVAL_WINDOW_S), unless the card was seen sliding in from another of them
        (`_came_from`); failing that, of the arm whose tip was nearest the card, the last
        card's hand (`_same_hand`), the one arm seen coming (`_approached`), or the arm in
        view the card slid in from. Two seats' arms merged into one blob count as their parts
        (`Arm.parts`). With it, the share of the frames' votes that named it (how sure the
        seat is)."""
        xs, ys = hull_points(hull, self.region_px[:2])
        centre = (xs.mean(), ys.mean())
        radius2 = (SEAT_TIP_RADIUS_CARDS * self.card_height_px) ** 2
        min_cover = SEAT_MIN_COVER * len(xs)
        holding, nearest = [], []
        arrived: dict[int, float] = {}  # when each seat's arm reached the card's place
        held: set[int] = set()  # the seats whose arm held it (SEAT_MIN_COVER) in the window
        first_t = None
        entries: dict[int, tuple[float, float]] = {}  # where each seat's arm entered, lately
        close: set[int | None] = set()  # the seats whose arm's tip came near the card
        for t, arms in self.arm_history:
            # Two seats' arms merged into one blob are each seat's part of it (`Arm.parts`).
            seat_arms = [p for a in arms for p in a.seat_parts()]
            if rest_t - ARRIVAL_WINDOW_S <= t <= rest_t + 0.05:
                first_t = t if first_t is None else first_t
                entries.update((a.seat, a.entry) for a in seat_arms if a.seat is not None)
                for a in arms:
                    whole = a.covers(xs, ys) if a.parts else 0
                    for part in a.seat_parts():
                        if part.seat is None:
                            continue
                        cover = part.covers(xs, ys)
                        touched = cover >= ARRIVAL_MIN_COVER * len(xs)
                        if touched and part.seat not in arrived:
                            arrived[part.seat] = -np.inf if t == first_t else t
                        # Where the blob held the place, the card between two arms is split
                        # between their parts by nearness alone: each that reached it held it.
                        if cover >= min_cover or (touched and whole >= min_cover):
                            held.add(part.seat)
            if not rest_t - SEAT_WINDOW_S <= t <= rest_t + 0.05:
                continue
            if t >= rest_t - SEAT_HOLD_WINDOW_S:
                cover = [(a.covers(xs, ys), a.seat) for a in seat_arms]
                cover = [c for c in cover if c[0] >= min_cover]
                if cover:
                    holding.append(max(cover, key=lambda c: c[0])[1])
            near = [((a.tip[0] - centre[0]) ** 2 + (a.tip[1] - centre[1]) ** 2, a.seat)
                    for a in seat_arms]
            near = [n for n in near if n[0] <= radius2]
            close.update(n[1] for n in near)
            if near:
                nearest.append(min(near, key=lambda n: n[0])[1])
        seat = vote_share(holding) if holding else vote_share(nearest)
        arrivals = sorted((t, s) for s, t in arrived.items() if s in held)
        if len(arrivals) >= 2 and arrivals[-1][0] - arrivals[-2][0] >= ARRIVAL_MARGIN_S \
                and arrivals[-1][1] != seat[0]:
            seat = (arrivals[-1][1], SEAT_ARRIVAL_SHARE)
        path: list[float | None] = []  # the card's slide (`vision.pile_path`), found once

        def came_from(candidates: dict[int, tuple[float, float]]) -> int | None:
            if not path:
                path.append(card_path_angle(self.history, hull, rest_t, self.card_height_px,
                                            self.reference))
            return self._came_from(path[0], centre, candidates)

        there = {s: e for s, e in entries.items() if s in held or s in close}
        if len(there) >= 2:
            # Two seats' arms at the card's place: it came with the one it slid in from.
            came = came_from(there)
            if came is not None and came != seat[0]:
                seat = (came, SEAT_ARRIVAL_SHARE)
        if seat[0] is None:
            seat = self._same_hand(rest_t)
        if seat[0] is None:
            seat = self._approached(centre, rest_t)
        if seat[0] is None and entries:
            came = came_from(entries)
            seat = (came, SEAT_ARRIVAL_SHARE) if came is not None else seat
        return seat

    @staticmethod
    def _came_from(path: float | None, centre: tuple[float, float],
                   entries: dict[int, tuple[float, float]]) -> int | None:
        """Of the seats whose arms entered at `entries`, the one the card slid in from: whose
        entry lies, seen from the card, within PATH_MAX_OFF_DEG of `path`, the way it came
        (`vision.pile_path.card_path_angle`); None when the card was not seen sliding
        (`path` None), or no entry lies so."""
        if path is None:
            return None
        off, seat = min((angular_distance_deg(angle_deg(e, centre), path), s)
                        for s, e in entries.items())
        return seat if off <= PATH_MAX_OFF_DEG else None

    def _approached(self, centre: tuple[float, float], rest_t: float
                    ) -> tuple[int | None, float | None]:
        """The seat of the one arm seen coming towards the card before it came to rest
        (APPROACH_MIN_CARDS), when no arm was seen holding it or near it."""
        tracks: dict[int, list[float]] = {}
        for t, arms in self.arm_history:
            if rest_t - ARRIVAL_WINDOW_S <= t <= rest_t + 0.05:
                for a in arms:
                    if a.seat is not None:
                        d = float(np.hypot(a.tip[0] - centre[0], a.tip[1] - centre[1]))
                        tracks.setdefault(a.seat, []).append(d / self.card_height_px)
        came = [s for s, d in tracks.items()
                if d[0] - min(d) >= APPROACH_MIN_CARDS and min(d) <= APPROACH_NEAR_CARDS
                and d.index(min(d)) >= len(d) - 3]
        return (came[0], SEAT_ARRIVAL_SHARE) if len(came) == 1 else (None, None)

    def _same_hand(self, rest_t: float) -> tuple[int | None, float | None]:
        """The seat of a card no arm was seen near: the last card's, when it came to rest
        within SAME_HAND_S of it and every arm seen over the pile since was that seat's. A
        hand that lays several cards in a row rests over the pile so long that the arm
        tracker takes the still arm into its background (rendered multi-card plays: no arm in
        the 0.35 s before the third card of a play 1.2 s and 1.0 s apart)."""
        last = self.played[-1] if self.played else None
        if last is None or last.seat is None or not 0 < gap_s(rest_t, last.t_s) <= SAME_HAND_S:
            return None, None
        for t, arms in self.arm_history:
            if last.t_s <= t <= rest_t and any(
                    a.seat != last.seat for a in arms if self._tip_over(a)):
                return None, None
        return last.seat, last.seat_share

    def _read(self, hull: np.ndarray, frames: list[Frame]) -> CardReading | None:
        ys, xs = np.nonzero(hull)
        points = np.column_stack([xs + self.region_px[0], ys + self.region_px[1]])
        (cx, cy), (rw, rh), angle = cv2.minAreaRect((points * self.full_scale).astype(np.float32))
        card_long = self.card_height_px * self.full_scale
        if not card_sized(rw, rh, card_long):
            long_side = card_long * READ_MIN_CARDS
            short_side = long_side * 2 / 3
            if rw >= rh:
                rw, rh = max(rw, long_side), max(rh, short_side)
            else:
                rw, rh = max(rw, short_side), max(rh, long_side)
        readings = []
        for frame in frames:
            view = card_view(frame, (cx, cy), (rw, rh), angle, card_long)
            reading = self.read_card(view, frame.t_s)
            if reading is not None:
                readings.append(reading)
        return vote_readings(readings)


def _bar(played: PlayedCard, sure: float) -> float:
    """How sure the reading of a change must be to make it a play whatever else is known of
    it: the game's bar `sure`, or UNSEEN_READ_SURE when no arm was seen bringing it."""
    return sure if played.seat is not None else max(sure, UNSEEN_READ_SURE)
