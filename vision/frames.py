"""Frame sources: a video file (PyAV, media timestamps) or a live camera (OpenCV), as `Frame`s.

Every frame carries `t_s`, seconds on the session clock: for a file, the frame's own
presentation timestamp (so variable-frame-rate video keeps its true timing); for a camera,
monotonic time since the source was opened. The watchers work on `small`, a downscaled copy;
the full-resolution image is made only when asked for (`Frame.full()`), i.e. on a settle when
a card is read, because converting every 1280x720 frame to BGR would cost more than all the
watching together.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ANALYSIS_WIDTH_PX = 320
"""Width of the downscaled frame the watchers look at. A card ~130 px high at 1280x720 is
~32 px high here: enough to see its outline, cheap enough for several ms of budget per frame."""

TRUNCATION_SLACK_S = 0.5
"""A file whose last decodable frame ends more than this before its stated duration is
reported as truncated (a few frames of slack for containers that round their duration)."""


DECODER_OPTIONS = {"skip_loop_filter": "bidir"}
"""libavcodec options for decoding footage to watch. The deblocking filter (the smoothing of
block edges) is skipped on B-frames: no other frame is predicted from most of them, so the
blocks do not spread, and the watchers, which look at a copy shrunk 4x, see no difference.
Decoding the demo: 9.3 -> 7.7 CPU-s. Skipping it on every frame saves no more and made a
phantom play and a phantom draw in rendered games 105 and 106."""


DECODE_AHEAD_FRAMES = 8
"""How many decoded frames `decoded_ahead` may hold for the watchers (a few MB at 720p)."""


class FrameSourceError(Exception):
    """A camera or video cannot be opened or read. The message is one line for people."""


@dataclass
class Frame:
    """One picture: `t_s` (session seconds), `index` (0-based), `small` (BGR uint8 at
    `ANALYSIS_WIDTH_PX` wide) and the full-resolution BGR image (`full()`).

    Both images are made on first use: a frame the watchers pass over (nothing happening on
    the table, see `TableWatcher`) costs its decoding and nothing more."""

    t_s: float
    index: int
    full_size: tuple[int, int]
    """(height, width) of the full image, known without making it."""
    _small_loader: Callable[[], np.ndarray] = field(repr=False)
    _full_loader: Callable[[], np.ndarray] = field(repr=False)
    _small: np.ndarray | None = field(default=None, repr=False)
    _full: np.ndarray | None = field(default=None, repr=False)
    decoded: Any = field(default=None, repr=False)
    """The decoder's own frame (an `av.VideoFrame`) when the frame came from a video file, for
    a caller that re-encodes the footage (the annotated video); else None."""
    plane_shrunk: PlaneShrinker | None = field(default=None, repr=False)
    """For a frame from a video file, `plane_shrunk(index, size)` shrinks a plane of
    `decoded` sharing the work with the analysis copy (see `PlaneShrinker`); else None."""
    _patch_loader: Callable[[np.ndarray, tuple[int, int]], np.ndarray] | None = \
        field(default=None, repr=False)
    """How `warped` cuts a patch without making the full image first (a frame from a video
    file converts only the patch's part of the decoder's planes; a frame warped into the table
    plane cuts it from the camera's picture in one warp); None: from `full()`."""
    _loading: threading.RLock = field(default_factory=threading.RLock, repr=False)
    """One loader at a time: live, the watchers and the dashboard's picture use one frame from
    several threads, and the decoder's frame is not safe to convert from two at once (PyAV's
    scaler crashed the process when four dashboard clients fetched pictures together)."""

    @property
    def small(self) -> np.ndarray:
        """The analysis copy (made once, on first use)."""
        if self._small is None:
            with self._loading:
                if self._small is None:
                    self._small = self._small_loader()
        return self._small

    def full(self) -> np.ndarray:
        """The full-resolution BGR image (made once, on first use)."""
        if self._full is None:
            with self._loading:
                if self._full is None:
                    self._full = self._full_loader()
        return self._full

    def patch(self, affine: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        """A `size` (width, height) patch of the full image: its pixel (x, y) is the full
        image's at `affine` (2x3) applied backwards, as `cv2.warpAffine` maps; the full
        image's edge pixels repeat past it."""
        if self._patch_loader is not None and self._full is None:
            with self._loading:
                return self._patch_loader(np.vstack([affine, [0.0, 0.0, 1.0]]), size)
        return cv2.warpAffine(self.full(), affine, size, flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)

    def warped(self, matrix: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        """`patch` for a perspective `matrix` (3x3, full image -> patch)."""
        if self._patch_loader is not None and self._full is None:
            with self._loading:
                return self._patch_loader(matrix, size)
        return cv2.warpPerspective(self.full(), matrix, size, flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)


class PlaneShrinker:
    """`shrinker(index, size)`: plane `index` (0 Y, 1 U, 2 V) of a decoded planar YUV picture
    area-averaged down to `size` (height, width), exactly as `shrink_plane` shrinks it. Each
    plane's first halving is made once and shared: the watchers' copy and the small annotated
    video (half the footage's size) both start with it, and at 720p it is most of the cost of
    either (0.34 ms less per watched 720p frame: the demo's review 0.8 CPU-s less).

    It holds the decoded frame, never the `Frame` around it: a frame that referred to itself
    would be freed only by the cycle collector, late, and perhaps in a forked process, where
    freeing the decoder's scaler waits forever on threads that process does not have."""

    def __init__(self, av_frame) -> None:
        self.av_frame = av_frame
        self.halved: list[np.ndarray | None] = [None, None, None]

    def __call__(self, index: int, size: tuple[int, int]) -> np.ndarray:
        plane = plane_pixels(self.av_frame.planes[index])
        if plane.shape[0] >= 2 * size[0] and plane.shape[1] >= 2 * size[1]:
            # Two threads may race to make it; both would make the same array.
            if self.halved[index] is None:
                self.halved[index] = _halve(plane)
            plane = self.halved[index]
        return shrink_plane(plane, size)


def small_size(height: int, width: int, analysis_width: int = ANALYSIS_WIDTH_PX) -> tuple[int, int]:
    """(height, width) of the analysis copy of a `height` x `width` frame (never upscaled)."""
    w = min(width, analysis_width)
    return max(1, round(height * w / width)), w


def frame_from_image(image: np.ndarray, t_s: float, index: int = 0,
                     analysis_width: int = ANALYSIS_WIDTH_PX) -> Frame:
    """A `Frame` around an image already in memory (a still photo, a rendered frame)."""
    h, w = image.shape[:2]
    sh, sw = small_size(h, w, analysis_width)
    if (sh, sw) == (h, w):
        return Frame(t_s, index, (h, w), lambda: image, lambda: image, image, image)
    return Frame(t_s, index, (h, w),
                 lambda: cv2.resize(image, (sw, sh), interpolation=cv2.INTER_AREA),
                 lambda: image, None, image)


# ---------------------------------------------------------------------------------------------
# Video files


def _open_container(path: Path):
    import av

    if not path.exists():
        raise FrameSourceError(f"{path}: no such file; check the path")
    if path.is_dir():
        raise FrameSourceError(f"{path}: is a folder; give a video file")
    try:
        container = av.open(str(path))
    except (av.error.FFmpegError, OSError, UnicodeDecodeError) as error:
        raise FrameSourceError(
            f"{path}: cannot be read as a video ({type(error).__name__}); it may be truncated "
            "or not a video; record it again or convert it with ffmpeg") from error
    if not container.streams.video:
        container.close()
        raise FrameSourceError(f"{path}: has no video track; give a video of the table")
    return container


def video_duration_s(path: str | Path) -> float | None:
    """The video track's stated duration in seconds, or None when the container does not say."""
    container = _open_container(Path(path))
    with container:
        return _stated_duration_s(container)


def _stated_duration_s(container) -> float | None:
    import av

    stream = container.streams.video[0]
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        stated = container.duration / av.time_base
        origin = media_origin_s(container)
        # Some files whose clock starts late (an hour in) state their end, not their length:
        # a whole one was called truncated at 130 s "of its stated 3730 s".
        return stated - origin if 0 < origin < stated else stated
    return None


def media_time_s(pts: int, stream) -> float:
    """Seconds from the start of the file of a frame (or packet) of a PyAV `stream` with
    presentation time `pts`: the clock review stamps its events with, and the annotated video,
    the report and a player showing the file (and so the notes taken from it) go by. Every
    track is on it: the file's start is its earliest track's (`media_origin_s`), so a picture
    that starts 2 s after the sound (a webcam recorder's file, a cut copied without
    re-encoding) keeps its 2 s, and a recording whose clock starts at 3600 s starts at 0."""
    return float(pts * stream.time_base) - media_origin_s(stream.container)


def media_origin_s(container) -> float:
    """The media time, on the tracks' own clock, that a file starts at (seconds)."""
    import av

    start = container.start_time
    return start / av.time_base if start is not None else 0.0


def media_pts(t_s: float, stream) -> int:
    """The presentation time in `stream` of media time `t_s` (`media_time_s`'s inverse)."""
    return int((t_s + media_origin_s(stream.container)) / stream.time_base)


def read_video(path: str | Path, analysis_width: int = ANALYSIS_WIDTH_PX,
               decoder_threads: int = 0) -> Iterator[Frame]:
    """Every frame of the first video track, in presentation order, with its media time.

    `decoder_threads`: 0 lets FFmpeg decode with a thread per core (frames come fastest to a
    caller that does little with them); 1 decodes in the caller's thread, which costs a
    quarter less CPU and suits a caller with a thread of its own for it (`decoded_ahead`).

    Raises FrameSourceError when the file cannot be opened, and — after the last good frame
    has been yielded — when it breaks off (a decode error, or it ends well before its stated
    duration), so a caller keeps everything seen up to the break.
    """
    import av

    path = Path(path)
    container = _open_container(path)
    with container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"  # frame threads, unless one thread is asked for
        stream.thread_count = decoder_threads
        stream.codec_context.options = DECODER_OPTIONS
        stated = _stated_duration_s(container)
        last_end_s = 0.0
        index = 0
        try:
            for av_frame in container.decode(stream):
                if av_frame.pts is None:
                    continue
                t_s = media_time_s(av_frame.pts, stream)
                av_frame = upright(av_frame)
                frame = _frame_of(av_frame, t_s, index, analysis_width)
                yield frame
                index += 1
                rate = float(stream.average_rate or 30)
                last_end_s = t_s + 1.0 / rate
        except (av.error.FFmpegError, OSError) as error:
            raise FrameSourceError(
                f"{path}: the video breaks off at {last_end_s:.2f} s ({type(error).__name__}); "
                "events up to there were kept; the file is damaged or truncated") from error
        if index == 0:
            raise FrameSourceError(f"{path}: no frame could be decoded; the file is damaged")
        if stated is not None and last_end_s < stated - TRUNCATION_SLACK_S:
            raise FrameSourceError(
                f"{path}: the video ends at {last_end_s:.2f} s of its stated {stated:.2f} s; "
                "events up to there were kept; the file is truncated")


def decoded_ahead(frames: Iterator[Frame], depth: int = DECODE_AHEAD_FRAMES) -> Iterator[Frame]:
    """`frames` (from `read_video`), decoded in a thread of their own up to `depth` frames
    ahead of the caller, who watches them meanwhile (PyAV lets go of the interpreter while it
    decodes). A review lets FFmpeg decode with its frame threads in that thread
    (`decoder_threads=0`): on a video of a high bitrate decoding is the slow half, and a
    second decoding thread takes the core the watching leaves idle (the rendered overhead
    bench game, 15 Mb/s: one thread 5.0-5.2 s, frame threads 3.8 s; 5 December). On the
    demo (0.9 Mb/s) one thread was the faster when the watchers cost more (11.1 s against
    13.0 s, 2 December); now both take 6.8 s, the frame threads 0.5 CPU-s more.
    Errors come out where they would have: after the frames before them. Stopping early
    (closing this generator) stops the thread and closes `frames`."""
    handed: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def hand(kind: str, item) -> bool:
        while not stop.is_set():
            try:
                handed.put((kind, item), timeout=0.1)
                return True
            except queue.Full:
                pass
        return False

    def decode() -> None:
        try:
            for frame in frames:
                if not hand("frame", frame):
                    return
        except BaseException as error:  # whatever it is, raised in the caller, who waits
            hand("error", error)
            return
        hand("end", None)

    thread = threading.Thread(target=decode, name="decoder", daemon=True)
    thread.start()
    try:
        while True:
            kind, item = handed.get()
            if kind == "frame":
                yield item
            elif kind == "error":
                raise item
            else:
                return
    finally:
        stop.set()
        thread.join()
        close = getattr(frames, "close", None)
        if close is not None:
            close()


def _frame_of(av_frame, t_s: float, index: int, analysis_width: int) -> Frame:
    h, w = av_frame.height, av_frame.width
    shrinker = PlaneShrinker(av_frame)
    patch = None
    if av_frame.format.name in ("yuv420p", "yuvj420p") and h % 2 == 0 and w % 2 == 0:
        def patch(matrix: np.ndarray, size: tuple[int, int]) -> np.ndarray:
            return _patch_of_planes(av_frame, matrix, size)
    return Frame(t_s, index, (h, w), lambda: _small_of(av_frame, shrinker, analysis_width),
                 lambda: av_frame.to_ndarray(format="bgr24"), decoded=av_frame,
                 plane_shrunk=shrinker, _patch_loader=patch)


PATCH_MARGIN_PX = 4
"""The part of the decoder's planes converted for a patch reaches this far past the patch's
corners (the interpolation's neighbours, and even bounds for the half-size chroma)."""


def _patch_of_planes(av_frame, matrix: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """`Frame.warped` for a planar YUV 4:2:0 frame: only the part of the picture under the
    patch is converted to BGR, by the decoder's own converter (the same pixels as converting
    the whole frame: a card's read cost converting the whole 1280x720 frame, 4.7 ms, for a
    patch of a few hundred pixels a side; the part costs 0.1 ms)."""
    import av

    h, w = av_frame.height, av_frame.width
    pw, ph = size
    corners = np.array([[0, 0, 1], [pw, 0, 1], [0, ph, 1], [pw, ph, 1]], np.float64)
    source = corners @ np.linalg.inv(matrix).T
    source = source[:, :2] / source[:, 2:3]
    x0 = max(0, int(np.floor(source[:, 0].min())) - PATCH_MARGIN_PX) & ~1
    y0 = max(0, int(np.floor(source[:, 1].min())) - PATCH_MARGIN_PX) & ~1
    x1 = min(w, (int(np.ceil(source[:, 0].max())) + PATCH_MARGIN_PX + 1) & ~1)
    y1 = min(h, (int(np.ceil(source[:, 1].max())) + PATCH_MARGIN_PX + 1) & ~1)
    if x1 - x0 < 2 or y1 - y0 < 2:  # wholly off the picture: its edge, repeated
        x0, y0 = min(max(x0, 0), w - 2) & ~1, min(max(y0, 0), h - 2) & ~1
        x1, y1 = x0 + 2, y0 + 2
    part = av.VideoFrame(x1 - x0, y1 - y0, av_frame.format.name)
    part.color_range = av_frame.color_range
    part.colorspace = av_frame.colorspace
    for index in range(3):
        step = 1 if index == 0 else 2
        plane_pixels(part.planes[index])[:] = \
            plane_pixels(av_frame.planes[index])[y0 // step:y1 // step, x0 // step:x1 // step]
    moved = matrix @ np.array([[1.0, 0.0, x0], [0.0, 1.0, y0], [0.0, 0.0, 1.0]])
    return cv2.warpPerspective(_patch_converter().reformat(part, format="bgr24", threads=1)
                               .to_ndarray(), moved, size, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


_converters = threading.local()


def _patch_converter():
    """This thread's converter for patches, on one thread: `to_ndarray` on a new frame makes a
    converter of its own, with threads of its own, each time (1.5 ms on average, up to 4.5 ms,
    for a 0.1 ms conversion); the pixels are the same."""
    if not hasattr(_converters, "one"):
        from av.video.reformatter import VideoReformatter

        _converters.one = VideoReformatter()
    return _converters.one


def _small_of(av_frame, shrinker: PlaneShrinker, analysis_width: int) -> np.ndarray:
    h, w = av_frame.height, av_frame.width
    sh, sw = small_size(h, w, analysis_width)
    name = av_frame.format.name
    if name in ("yuv420p", "yuvj420p") and h % 2 == 0 and w % 2 == 0:
        y, u, v = (shrinker(plane, (sh, sw)) for plane in range(3))
        return _bgr_from_yuv(y, u, v, name == "yuvj420p")
    return av_frame.reformat(width=sw, height=sh, format="bgr24",
                             interpolation="AREA").to_ndarray()


def quarter_turns(av_frame) -> int:
    """How many quarter turns counterclockwise a decoded frame's picture needs to show as a
    player shows it (0-3): a phone filming upright stores its picture turned and says so in
    the video's display matrix."""
    return round((getattr(av_frame, "rotation", 0) or 0) / 90) % 4


def upright(av_frame):
    """`av_frame` turned as its display matrix says (itself when it says nothing): seats,
    cards and the annotated video are then as the person who filmed sees them (a phone video
    tagged "rotate 90" was watched sideways, and every seat named from the wrong edge)."""
    turns = quarter_turns(av_frame)
    if not turns:
        return av_frame
    import av

    if av_frame.format.name in ("yuv420p", "yuvj420p"):
        planes = [np.rot90(plane_pixels(plane), turns) for plane in av_frame.planes]
        height, width = planes[0].shape
        turned = av.VideoFrame(width, height, av_frame.format.name)
        for target, plane in zip(turned.planes, planes, strict=True):
            np.copyto(plane_pixels(target), plane)
    else:
        picture = np.ascontiguousarray(np.rot90(av_frame.to_ndarray(format="bgr24"), turns))
        turned = av.VideoFrame.from_ndarray(picture, format="bgr24")
    turned.pts, turned.time_base = av_frame.pts, av_frame.time_base
    return turned


def video_quarter_turns(path: str | Path) -> int:
    """`quarter_turns` of a video file's first frame (0 when it has none)."""
    container = _open_container(Path(path))
    with container:
        for av_frame in container.decode(video=0):
            return quarter_turns(av_frame)
    return 0


def plane_pixels(plane) -> np.ndarray:
    """A PyAV frame plane as a uint8 image view, without a copy (PyAV's `to_ndarray` copies
    and stacks all three planes of every frame); writable when the frame's buffer is. Rows
    may be padded past the width."""
    rows = np.frombuffer(plane, np.uint8, count=plane.line_size * plane.height)
    return rows.reshape(plane.height, plane.line_size)[:, :plane.width]


def shrink_plane(plane: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """`plane` area-averaged down to `size` (height, width): halved while it is at least twice
    the size, then resized the rest of the way. OpenCV halves ten times faster than it
    shrinks by four in one step; the result differs by at most a grey level of rounding."""
    sh, sw = size
    while plane.shape[0] >= 2 * sh and plane.shape[1] >= 2 * sw:
        plane = _halve(plane)
    if plane.shape[:2] != (sh, sw):
        plane = cv2.resize(plane, (sw, sh), interpolation=cv2.INTER_AREA)
    return plane


def _halve(plane: np.ndarray) -> np.ndarray:
    return cv2.resize(plane, (plane.shape[1] // 2, plane.shape[0] // 2),
                      interpolation=cv2.INTER_AREA)


def _bgr_from_yuv(y: np.ndarray, u: np.ndarray, v: np.ndarray, full_range: bool) -> np.ndarray:
    """The analysis copy from the decoder's Y, U and V planes already shrunk to its size (area
    averaging): only the small image is converted to BGR. Half the cost of swscale's scaled
    conversion, which dominated a review's time."""
    if not full_range:  # H.264's usual limited range (Y 16-235, U/V 16-240) to full
        y = cv2.convertScaleAbs(y, alpha=255 / 219, beta=-16 * 255 / 219)
        u = cv2.convertScaleAbs(u, alpha=255 / 224, beta=128 - 128 * 255 / 224)
        v = cv2.convertScaleAbs(v, alpha=255 / 224, beta=128 - 128 * 255 / 224)
    return cv2.cvtColor(cv2.merge([y, u, v]), cv2.COLOR_YUV2BGR)


# ---------------------------------------------------------------------------------------------
# Cameras


def read_camera(device: int | str = 0, analysis_width: int = ANALYSIS_WIDTH_PX,
                session_start_s: float | None = None,
                stop: Callable[[], bool] | None = None) -> Iterator[Frame]:
    """Frames from a live camera (an index such as 0, or a device path such as /dev/video2).

    The camera is opened on the first `next()`, not when this is called. `t_s` is monotonic
    time since `session_start_s` (default: when the camera opened). Stops when `stop()` is
    true; raises FrameSourceError when the camera is missing or stops delivering.
    """
    capture = _quietly_open(device)
    if not capture.isOpened():
        raise FrameSourceError(
            f"camera {device!r} cannot be opened; check it is plugged in and not in use, or "
            "give another with --camera")
    origin = session_start_s if session_start_s is not None else time.monotonic()
    index = 0
    try:
        while stop is None or not stop():
            ok, image = capture.read()
            t_s = time.monotonic() - origin
            if not ok or image is None:
                raise FrameSourceError(
                    f"camera {device!r} stopped delivering frames after {index}; check the "
                    "cable and try again")
            yield frame_from_image(image, t_s, index, analysis_width)
            index += 1
    finally:
        capture.release()


def _quietly_open(device: int | str) -> cv2.VideoCapture:
    """The camera opened with OpenCV's own log silenced: a missing camera would otherwise
    print `[ WARN:0@0.113] ... cap_v4l.cpp` lines before our one-line error."""
    logging = cv2.utils.logging
    level = logging.getLogLevel()
    logging.setLogLevel(logging.LOG_LEVEL_SILENT)
    try:
        return cv2.VideoCapture(device)
    finally:
        logging.setLogLevel(level)


def read_image(path: str | Path, analysis_width: int = ANALYSIS_WIDTH_PX) -> Frame:
    """A still photo as a single frame at t = 0."""
    path = Path(path)
    if not path.exists():
        raise FrameSourceError(f"{path}: no such file; check the path")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise FrameSourceError(f"{path}: cannot be read as an image; give a JPEG or PNG")
    return frame_from_image(image, 0.0, 0, analysis_width)


IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


def first_frame(path: str | Path, skip_s: float = 0.0,
                analysis_width: int = ANALYSIS_WIDTH_PX) -> Frame:
    """A photo, or the first frame at or after `skip_s` of a video (for calibration)."""
    path = Path(path)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return read_image(path, analysis_width)
    chosen = None
    try:
        for frame in read_video(path, analysis_width):
            chosen = frame
            if frame.t_s >= skip_s:
                break
    except FrameSourceError:
        if chosen is None:
            raise
    if chosen is None:
        raise FrameSourceError(f"{path}: no frame could be decoded; the file is damaged")
    chosen.full()
    return chosen
