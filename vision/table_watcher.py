"""Everything the camera watches, per frame: arms, the discard pile, the draw piles.

    watcher = TableWatcher(camera_profile, read_card, frame_size=(720, 1280))
    for frame in read_video("game.mp4"):
        for event in watcher.update(frame):
            print(event)
    events = watcher.finish()

Geometry comes from the camera section of the room profile (fractions of the frame), turned
into pixels of the analysis frame once the first frame's size is known. A profile with a
`table_plane` (a camera that leans) is watched in that plane: each frame is warped into it
first (`vision.table_plane`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2

from calibration.camera import CameraProfile
from referee.events import Event
from vision.arms import Arm, ArmTracker
from vision.draw_watcher import DrawWatcher
from vision.frames import Frame
from vision.pile_watcher import READ_SURE, READ_WAIT_S, CardReader, PileState, PileWatcher
from vision.table_plane import PlaneRectifier

QUIET_STRIDE = 5
"""While the table is quiet (`TableWatcher.quiet`) one frame in this many is watched, the others
passed over without even being shrunk: an arm coming in is seen at most four frames (133 ms)
later, long before it reaches a pile, and from then on every frame is watched until all is
quiet again. On the demo 3900 frames -> 2448 watched (3201 with a stride of 2 while nothing
waits to be read, 2732 with 3); events the same, and on rendered games 101-110 and 301-310
every play, seat and draw the same as watching every frame (live play: the same, so a slow
machine keeps up)."""


@dataclass
class _Watchers:
    arms: ArmTracker
    pile: PileWatcher
    draws: DrawWatcher


class TableWatcher:
    """Frames in, `card` / `card_removed` / `draw` event dicts (docs/DESIGN.md) out."""

    def __init__(self, camera: CameraProfile, read_card: CardReader,
                 read_wait_s: float = READ_WAIT_S, read_sure: float = READ_SURE) -> None:
        """`read_sure`: how sure a card's reading must be to be sure, the game's
        `min_card_confidence` (`referee.rules.RuleSet`)."""
        # OpenCV's own threads on images this small cost more than they gain: they spin
        # while waiting and take the core the video decoder (or the live camera and the
        # microphone) needs. Demo review, vision only: 23.1 -> 18.2 CPU-s, 13.5 -> 12.4 s.
        cv2.setNumThreads(1)
        self.camera = camera
        self.read_card = read_card
        self.read_wait_s = read_wait_s
        self.read_sure = read_sure
        self._watchers: _Watchers | None = None
        self.last_arms: list[Arm] = []
        self.passed_over = 0  # frames passed over since the last one watched
        # A camera that leans is watched in the table plane, where its profile's geometry is.
        self._to_plane = PlaneRectifier(camera.table_plane) if camera.table_plane else None

    def _build(self, frame: Frame) -> _Watchers:
        h, w = frame.small.shape[:2]
        cam = self.camera
        card_h = cam.card_height * h
        cx, cy = cam.pile.centre()
        view = self._to_plane.view_mask() if self._to_plane is not None else None
        arms = ArmTracker((cx * w, cy * h), cam.seat_angles_deg, card_h, view)
        pile = PileWatcher(cam.pile.pixels(h, w), card_h, self.read_card,
                           full_scale=frame.full_size[1] / w, read_wait_s=self.read_wait_s,
                           read_sure=self.read_sure)
        draws = DrawWatcher([r.pixels(h, w) for r in cam.draw_piles], card_h,
                            pile_px=cam.pile.pixels(h, w))
        return _Watchers(arms, pile, draws)

    @property
    def pile(self) -> PileWatcher | None:
        return self._watchers.pile if self._watchers else None

    def quiet(self) -> bool:
        """Nothing is happening: no arm in the picture, the pile idle (a card may wait to be
        read: its readings are READ_SPACING_S apart anyway), no reach for a draw pile being
        followed."""
        watchers = self._watchers
        return watchers is not None and not self.last_arms \
            and watchers.pile.state is PileState.IDLE and watchers.draws.idle()

    def update(self, frame: Frame) -> list[Event]:
        if self.passed_over < QUIET_STRIDE - 1 and self.quiet():
            self.passed_over += 1
            return []
        self.passed_over = 0
        if self._to_plane is not None:
            frame = self._to_plane(frame)
        if self._watchers is None:
            self._watchers = self._build(frame)
        watchers = self._watchers
        arms = watchers.arms.update(frame.small)
        self.last_arms = arms
        events = watchers.pile.update(frame, arms)
        if watchers.pile.came_to_rest is not None:
            # A card at rest is table, not the end of the arm that laid it.
            x0, y0 = watchers.pile.region_px[:2]
            watchers.arms.absorb(watchers.pile.came_to_rest, (x0, y0))
        events += watchers.draws.update(frame.t_s, arms)
        return events

    def finish(self) -> list[Event]:
        if self._watchers is None:
            return []
        return self._watchers.pile.finish() + self._watchers.draws.finish()
