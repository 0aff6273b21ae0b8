"""Frames warped into the table plane (`calibration.camera.TablePlane`): what a camera
leaning over the table sees, as a camera straight above would see it. The watchers work on
these, so a tilted webcam's table has the geometry the overhead one has (issue 22)."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.camera import TablePlane
from vision.frames import Frame, small_size


def _scale(width: float, height: float) -> np.ndarray:
    return np.diag([width, height, 1.0])


class PlaneRectifier:
    """`rectify(frame)`: the frame in the table plane, both its analysis copy and (made only
    when asked for, as `Frame` makes it) its full-resolution image."""

    def __init__(self, plane: TablePlane) -> None:
        self.plane = plane
        self.fraction_map = np.array(plane.homography, np.float64)
        ph, pw = plane.size
        self.small_plane = small_size(ph, pw)
        self._maps: dict[tuple[int, int], np.ndarray] = {}
        self.picture_small: tuple[int, int] | None = None
        """(h, w) of the picture's analysis copy, once one frame has been warped."""

    def _map(self, image_size: tuple[int, int], plane_size: tuple[int, int]) -> np.ndarray:
        """Picture pixels of `image_size` (h, w) -> plane pixels of `plane_size` (h, w)."""
        key = (*image_size, *plane_size)
        if key not in self._maps:
            (ih, iw), (ph, pw) = image_size, plane_size
            self._maps[key] = _scale(pw, ph) @ self.fraction_map @ np.linalg.inv(_scale(iw, ih))
        return self._maps[key]

    def __call__(self, frame: Frame) -> Frame:
        sh, sw = self.small_plane
        ph, pw = self.plane.size

        def small() -> np.ndarray:
            image = frame.small
            self.picture_small = image.shape[:2]
            return cv2.warpPerspective(image, self._map(image.shape[:2], (sh, sw)), (sw, sh),
                                       flags=cv2.INTER_LINEAR)

        def full() -> np.ndarray:
            image = frame.full()
            return cv2.warpPerspective(image, self._map(image.shape[:2], (ph, pw)), (pw, ph),
                                       flags=cv2.INTER_LINEAR)

        def patch(matrix: np.ndarray, size: tuple[int, int]) -> np.ndarray:
            # The patch's warp after the plane's, as one warp of the picture: a card read cost
            # a whole 1280x720 warp (3 ms) for a patch of a few thousand pixels.
            return frame.warped(matrix @ self._map(frame.full_size, (ph, pw)), size)

        return Frame(frame.t_s, frame.index, (ph, pw), small, full, _patch_loader=patch)

    def view_mask(self) -> np.ndarray | None:
        """Which pixels of the plane's analysis copy the camera sees (a bool mask), once one
        frame has been warped: the rest of the plane is black, and an arm reaching in enters
        from where the view ends, not from the plane's edge."""
        if self.picture_small is None:
            return None
        sh, sw = self.small_plane
        seen = np.full(self.picture_small, 255, np.uint8)
        warped = cv2.warpPerspective(seen, self._map(self.picture_small, (sh, sw)), (sw, sh),
                                     flags=cv2.INTER_NEAREST)
        return warped > 0
