"""Everything the camera watches, per frame: arms, the discard pile, the draw piles.

    watcher = TableWatcher(camera_profile, read_card, frame_size=(720, 1280))
    for frame in read_video("game.mp4"):
        for event in watcher.update(frame):
            print(event)
    events = watcher.finish()

Geometry comes from the camera section of the room profile (fractions of the frame), turned
into pixels of the analysis frame once the first frame's size is known.
"""

from __future__ import annotations

from dataclasses import dataclass

from calibration.camera import CameraProfile
from vision.arms import Arm, ArmTracker
from vision.draw_watcher import DrawWatcher
from vision.frames import Frame
from vision.pile_watcher import READ_WAIT_S, CardReader, PileWatcher


@dataclass
class _Watchers:
    arms: ArmTracker
    pile: PileWatcher
    draws: DrawWatcher


class TableWatcher:
    """Frames in, `card` / `card_removed` / `draw` event dicts (DESIGN.md) out."""

    def __init__(self, camera: CameraProfile, read_card: CardReader,
                 read_wait_s: float = READ_WAIT_S) -> None:
        self.camera = camera
        self.read_card = read_card
        self.read_wait_s = read_wait_s
        self._watchers: _Watchers | None = None
        self.last_arms: list[Arm] = []

    def _build(self, frame: Frame) -> _Watchers:
        h, w = frame.small.shape[:2]
        cam = self.camera
        card_h = cam.card_height * h
        cx, cy = cam.pile.centre()
        arms = ArmTracker((cx * w, cy * h), cam.seat_angles_deg, card_h)
        pile = PileWatcher(cam.pile.pixels(h, w), card_h, self.read_card,
                           full_scale=frame.full_size[1] / w, read_wait_s=self.read_wait_s)
        draws = DrawWatcher([r.pixels(h, w) for r in cam.draw_piles], card_h,
                            pile_px=cam.pile.pixels(h, w))
        return _Watchers(arms, pile, draws)

    @property
    def pile(self) -> PileWatcher | None:
        return self._watchers.pile if self._watchers else None

    def update(self, frame: Frame) -> list[dict]:
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

    def finish(self) -> list[dict]:
        if self._watchers is None:
            return []
        return self._watchers.pile.finish() + self._watchers.draws.finish()
