"""The annotated video of a review: the footage with the recognised top card, the seat arrow of
each play, whose turn it is, knocks, a STOP pause, and rulings drawn on it as captions; the
original sound is kept as it was. Everything drawn is sized to the frame (`OverlaySizes`), so
the small video (640x360 for 720p footage) reads at a glance as the full-size one does.

Drawing is separate from seeing: this module only draws what review already found.
"""

from __future__ import annotations

import contextlib
import math
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from itertools import pairwise
from operator import itemgetter
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from bruno.review.overlay_layer import OverlayLayer
from referee.cards import token_words
from referee.events import Call, CardPlayed, CardRemoved, Event, Knock, RoundEnd
from vision.frames import (
    DECODER_OPTIONS,
    FrameSourceError,
    PlaneShrinker,
    media_time_s,
    plane_pixels,
    upright,
    video_quarter_turns,
)

ARROW_S = 1.5
"""How long a play's seat arrow stays on screen after the card came to rest."""
KNOCK_FLASH_S = 0.35
"""How long a knock's flash stays on screen: long enough to see at 30 fps, short enough that
two knocks in a row read as two."""
PENALTY_CAPTION_S = 4.0
INFO_CAPTION_S = 2.0
"""Captions stay long enough to be read aloud once."""

SMALL_MAX_WIDTH_PX = 960
"""The small annotated video is half the footage's size, but no wider than this: a 1080p phone
video gives 960x540, a 4K one too (at half size, 1920x1080, it would cost four times as
much to encode)."""
SMALL_MAX_FPS = 30
"""The small annotated video takes at most this many frames a second: 60 fps footage gives 30,
half the frames to scale, draw and encode."""
FRAME_SLACK_S = 0.001
"""Frame times on a 30 fps clock are 33.3 ms apart give or take rounding: a frame this close
to being due counts as due."""

ENCODER_OPTIONS = {
    "crf": "23", "preset": "veryfast",
    "x264-params": "ref=1:bframes=0:subme=1:me=dia:trellis=0:rc-lookahead=5:aq-mode=0",
}
"""x264's veryfast with its costliest searches cut: the demo's annotated copy in 22 s instead
of 27 s, and smaller (6.8 MB instead of 7.2 MB); ultrafast saves 2 s more but triples the
file. Table footage is mostly still: there is little for the cut searches to find."""

_SEAT_COLOURS = [(66, 135, 245), (60, 180, 75), (230, 190, 25), (200, 80, 220), (245, 130, 48),
                 (70, 240, 240), (240, 50, 230), (210, 245, 60), (128, 128, 255), (0, 128, 128)]
_CARD_COLOURS = {"r": (40, 40, 220), "y": (30, 210, 240), "g": (60, 170, 60), "b": (200, 110, 30)}


class AnnotationError(Exception):
    """The footage could not be read or the annotated video could not be written."""


@dataclass(frozen=True)
class Overlay:
    """What to draw, in the footage's own time."""

    events: list[Event]
    rulings: list[dict]
    pile_box: tuple[float, float, float, float] | None = None
    """The discard pile as fractions of the frame (x0, y0, x1, y1)."""
    seat_angles_deg: tuple[float, ...] | None = None
    """Seat directions around the pile in image coordinates (x right, y down)."""

    def top_card(self, t: float) -> str | None:
        """The pile's top card after the events up to `t` (a take-back uncovers the card
        under it; the end of a round clears the pile)."""
        return self._moments.top_card(t)

    @cached_property
    def _moments(self) -> _Moments:
        # An overlay's lists are not changed once it is made: the index is built once.
        return _Moments(self.events, self.rulings)


CAPTIONED_INFO = ("instick", "color", "round_over", "multi_card_play", "flaske")
"""Info rulings shown as captions (besides every penalty); `flaske`: Flaske UNO's announcement
of each card, which is the game itself."""
TURN_RULES = ("turn", "round_over")
"""The rulings that say whose turn it is: `turn` names the seat, `round_over` ends the turns
until the next round's first `turn`."""

_SLACK_S = 1e-6
"""Time windows are found by bisection this much wider, then checked exactly as written."""


def pile_after(pile: list[str], event: Event) -> None:
    """Update the pile's cards (top last) for one event: a play adds its card, a take-back
    of the top card uncovers the one under it, the end of a round clears the pile."""
    if isinstance(event, CardPlayed):
        pile.append(event.card.token)
    elif isinstance(event, CardRemoved) and pile and pile[-1] == event.card.token:
        pile.pop()
    elif isinstance(event, RoundEnd):
        pile.clear()


class _Moments:
    """An overlay's events and rulings indexed by time, so the scene at a moment is found by
    bisection, not by a pass over the whole game (an hour of footage is 108,000 frames and a
    few thousand events). Gives exactly what a pass over the lists in their order would."""

    def __init__(self, events: list[Event], rulings: list[dict]) -> None:
        pile: list[str] = []
        latest = float("-inf")
        self.reached: list[float] = []
        """The latest time among the first n + 1 events: never decreasing."""
        self.tops: list[str | None] = []
        for event in events:
            latest = max(latest, event.t)
            pile_after(pile, event)
            self.reached.append(latest)
            self.tops.append(pile[-1] if pile else None)
        self.plays = _Timed([e for e in events
                             if isinstance(e, CardPlayed) and e.seat is not None], _event_time)
        self.knocks = _Timed([e for e in events if isinstance(e, Knock)], _event_time)
        self.captioned = _Timed([r for r in rulings
                                 if r["kind"] == "ruling" or r["rule"] in CAPTIONED_INFO],
                                itemgetter("t"))
        self.turns = _Timed([r for r in rulings if r["rule"] in TURN_RULES], itemgetter("t"))
        self.pauses = _Timed([e for e in events if isinstance(e, RoundEnd)
                              or (isinstance(e, Call) and e.word in ("stop", "go"))],
                             _event_time)

    def top_card(self, t: float) -> str | None:
        passed = bisect_right(self.reached, t)
        return self.tops[passed - 1] if passed else None

    def turn(self, t: float) -> int | None:
        """The seat whose turn it is at `t`: the latest `turn` ruling's (None before the first,
        and after the end of a round)."""
        latest = self.turns.latest(t)
        return latest.get("seat") if latest is not None and latest["rule"] == "turn" else None

    def paused(self, t: float) -> bool:
        """Whether the game stands in a STOP at `t`: a `stop` call, and no `go` (or end of the
        round) since."""
        latest = self.pauses.latest(t)
        return isinstance(latest, Call) and latest.word == "stop"


def _event_time(event: Event) -> float:
    return event.t


class _Timed:
    """Events or rulings, in their order, with a time each (`time_of` gives it)."""

    def __init__(self, items: list, time_of: Callable[[Any], float]) -> None:
        self.items = items
        self.time_of = time_of
        self.in_order = all(time_of(a) <= time_of(b) for a, b in pairwise(items))

    def around(self, t: float, before_s: float) -> list:
        """The items whose time may lie in [t - before_s, t] (a slice when they are in time
        order, else all of them): the caller checks each exactly."""
        if not self.in_order:
            return self.items
        key = self.time_of
        return self.items[bisect_left(self.items, t - before_s - _SLACK_S, key=key):
                          bisect_right(self.items, t + _SLACK_S, key=key)]

    def latest(self, t: float):
        """The last item (in the list's order) of those at or before `t` with the latest time;
        None when there is none."""
        key = self.time_of
        items = self.items
        if self.in_order:
            items = items[:bisect_right(items, t + _SLACK_S, key=key)]
        best = None
        for item in items:
            if key(item) <= t and (best is None or key(item) >= key(best)):
                best = item
        return best


@dataclass(frozen=True)
class Scene:
    """Everything the overlay shows at one moment. Frames with the same scene look the same
    on top of the footage, so the annotated video draws each scene once (`OverlayLayer`)."""

    top_card: str | None
    arrows: tuple[int, ...]
    """Seats of the plays whose arrow is on screen."""
    knock: bool
    captions: tuple[tuple[str, bool], ...]
    """(message, is a penalty), bottom line first."""
    turn: int | None = None
    """The seat whose turn it is (the referee's latest `turn` ruling), None when unknown."""
    paused: bool = False
    """The game stands in a STOP (a `stop` call, no `go` yet)."""


def scene_at(overlay: Overlay, t: float) -> Scene:
    """What the overlay shows at time `t`."""
    moments = overlay._moments
    arrows = tuple(event.seat for event in moments.plays.around(t, ARROW_S)
                   if 0 <= t - event.t <= ARROW_S)
    knock = any(0 <= t - event.t <= KNOCK_FLASH_S
                for event in moments.knocks.around(t, KNOCK_FLASH_S))
    due = [r for r in moments.captioned.around(t, PENALTY_CAPTION_S)
           if 0 <= t - r["t"] <= (PENALTY_CAPTION_S if r["kind"] == "ruling" else INFO_CAPTION_S)]
    captions = tuple((r["message"], r["kind"] == "ruling") for r in reversed(due[-3:]))
    # Through the overlay: the live dashboard's overlay shows the referee's own top card.
    return Scene(overlay.top_card(t), arrows, knock, captions, moments.turn(t),
                 moments.paused(t))


def draw_overlay(image: np.ndarray, overlay: Overlay, t: float) -> np.ndarray:
    """Draw everything due at time `t` onto a copy of the BGR frame."""
    out = image.copy()
    draw_scene(out, overlay, scene_at(overlay, t))
    return out


@dataclass(frozen=True)
class OverlaySizes:
    """How big everything is drawn on a frame of `width` x `height`, in pixels: text heights
    are a share of the frame's height (the shorter side's share for an odd shape), so a label
    reads the same on the small video as on the full-size one."""

    width: int
    height: int

    @cached_property
    def unit(self) -> float:
        """1 at 640x360, 2 at 1280x720: the frame's size against the small video's."""
        return max(0.5, min(self.width / 640, self.height / 360))

    @property
    def label_px(self) -> int:
        """A seat's label and the turn badge: 4% of a 360-line frame (was 2% of it)."""
        return round(14 * self.unit)

    @property
    def badge_px(self) -> int:
        return round(14 * self.unit)

    @property
    def caption_px(self) -> int:
        """A caption line at most (a long one is made smaller to fit the width)."""
        return round(13 * self.unit)

    @property
    def stop_px(self) -> int:
        return round(30 * self.unit)

    @property
    def line(self) -> int:
        """The thickness of text strokes and outlines."""
        return max(1, round(2 * self.unit))


def draw_scene(out: np.ndarray, overlay: Overlay, scene: Scene) -> None:
    """Draw `scene` onto the BGR image `out`, in place."""
    h, w = out.shape[:2]
    size = OverlaySizes(w, h)
    unit = size.unit
    centre = _pile_centre(overlay, w, h)
    # Labels and markers stay above the captions (drawn last, over the arrows' tails).
    clear = h - sum(height for _, _, height in _caption_lines(scene.captions, size, w))
    if scene.paused:
        _stop_frame(out, size)
    if overlay.pile_box is not None:
        x0, y0, x1, y1 = overlay.pile_box
        cv2.rectangle(out, (int(x0 * w), int(y0 * h)), (int(x1 * w), int(y1 * h)),
                      (0, 215, 255), max(1, round(unit)))
    if scene.turn is not None:
        _turn_marker(out, overlay, scene.turn, centre, size, clear)
    for seat in scene.arrows:
        _seat_arrow(out, overlay, seat, centre, size, clear)
    if scene.knock:
        radius = round(24 * unit)
        knock_centre = (w - round(12 * unit) - radius, round(12 * unit) + radius)
        cv2.circle(out, knock_centre, radius, (255, 255, 255), max(2, round(3 * unit)),
                   cv2.LINE_AA)
        _pill(out, "KNOCK", (knock_centre[0], knock_centre[1] + radius + size.label_px),
              size.label_px, size, (255, 255, 255), (20, 20, 20))
    badge_bottom = _top_card_badge(out, scene.top_card, size)
    if scene.turn is not None:
        _turn_badge(out, scene.turn, badge_bottom, size)
    if scene.paused:
        _stop_banner(out, size)
    _captions(out, scene.captions, size)


def write_annotated_video(source: str | Path, out: str | Path, overlay: Overlay, *,
                          full_size: bool = True,
                          progress: Callable[[float], None] | None = None) -> int:
    """Decode `source`, draw the overlay on its frames, write `out` (H.264) with the original
    sound stream copied unchanged; every frame at the footage's size, or the small video
    (`full_size=False`, see `AnnotatedWriter`). Returns the number of frames written.

    `progress`, when given, is called after every frame written with the seconds of footage
    annotated so far (the end of that frame: never decreasing, the duration at the end).

    A review draws its annotated video while it watches (`bruno.review.annotation_pass`);
    this second pass over the footage is for when that could not be done."""
    import av

    source = Path(source)
    writer = AnnotatedWriter(source, out, full_size=full_size)
    annotated = 0.0
    whole = True
    try:
        container = av.open(str(source))
    except (av.error.FFmpegError, OSError) as error:
        writer.abandon()
        raise AnnotationError(f"{source}: cannot be read as a video ({error})") from None
    with container:
        in_video = container.streams.video[0]
        in_video.thread_type = "AUTO"  # decode on both cores while this one draws
        # Decoded as the watch decodes it, so this pass draws the video the watch would have.
        in_video.codec_context.options = DECODER_OPTIONS
        try:
            for frame in container.decode(in_video):
                frame = upright(frame)  # as the watch saw it, and a player shows it
                # The footage's own clock, as review stamped its events.
                t = (media_time_s(frame.pts, in_video) if frame.pts is not None
                     else annotated)
                if writer.wants(t):
                    writer.write(frame, t, overlay)
                if progress is not None:
                    annotated = max(annotated, t + writer.frame_s)
                    progress(float(annotated))
        except av.error.FFmpegError:
            whole = False  # a truncated file: keep what was annotated up to the break
        except BaseException:
            writer.abandon()
            raise
    writer.close(whole)
    return writer.frames


class AnnotatedWriter:
    """The annotated video being written: decoded frames in (in order, with their time), each
    with the scene due at its time drawn on; H.264 out, with the source's sound stream copied
    in step. Every frame at the footage's size (`full_size`), or the small video: half the
    footage's width and height, at most `SMALL_MAX_WIDTH_PX` wide and `SMALL_MAX_FPS` frames
    a second (`wants` says which frames), a quarter of the pixels or less to scale, draw and
    encode, which a review's two cores can afford beside the watching.

    Raises AnnotationError (one line) when the source has no video or `out` cannot be
    written; `close()` finishes the file, `abandon()` deletes what was written."""

    def __init__(self, source: str | Path, out: str | Path, *, full_size: bool = True) -> None:
        import av

        self.source, self.out = Path(source), Path(out)
        try:
            self.input = av.open(str(self.source))
        except (av.error.FFmpegError, OSError) as error:
            raise AnnotationError(f"{self.source}: cannot be read as a video ({error})") from None
        if not self.input.streams.video:
            self.input.close()
            raise AnnotationError(f"{self.source}: has no video stream")
        in_video = self.input.streams.video[0]
        in_audio = self.input.streams.audio[0] if self.input.streams.audio else None
        source_rate = in_video.average_rate or Fraction(30)
        self.frame_s = float(1 / source_rate)
        """How long one of the footage's frames lasts."""
        self.rate = source_rate if full_size else min(source_rate, Fraction(SMALL_MAX_FPS))
        self._step_s = 0.0 if full_size else 1 / SMALL_MAX_FPS - FRAME_SLACK_S
        self._due_s = float("-inf")
        width, height = in_video.codec_context.width, in_video.codec_context.height
        if _quarter_turns_of(self.source) % 2:  # a phone's portrait video, stored turned
            width, height = height, width
        if not full_size:
            scale = min(0.5, SMALL_MAX_WIDTH_PX / width)
            width, height = round(width * scale), round(height * scale)
        self.size = (max(2, height - height % 2), max(2, width - width % 2))
        try:
            self.target = av.open(str(self.out), "w", options={"movflags": "faststart"})
            self.video = self.target.add_stream("libx264", rate=self.rate)
            self.video.height, self.video.width = self.size
            self.video.pix_fmt = "yuv420p"
            self.video.time_base = in_video.time_base
            # The encoder counts time in the footage's own ticks too: in ticks of 1/rate (the
            # average rate, 80/3 for a phone that halved its rate in the dark) two frames of a
            # variable rate fell on one tick and the muxer refused the second (EINVAL).
            self.video.codec_context.time_base = in_video.time_base
            self.video.options = dict(ENCODER_OPTIONS)
            # Encode on both cores: with one thread the annotated copy took half a review.
            self.video.thread_type = "AUTO"
            self.audio = self.target.add_stream_from_template(in_audio) if in_audio else None
        except (av.error.FFmpegError, OSError) as error:
            self.input.close()
            raise AnnotationError(f"{self.out}: cannot write the annotated video ({error})") \
                from None
        # The sound is copied packet by packet as the frames reach it, so the file is
        # interleaved as it is written.
        self._sound = self.input.demux(in_audio) if in_audio else None
        self._sound_held = None
        self._sound_held_t = float("-inf")
        self.layers = _SceneLayers(*self.size)
        self.frames = 0
        self.end_s = 0.0
        """The end of the last frame written, in footage seconds."""

    def wants(self, t: float) -> bool:
        """Whether the footage's next frame, at `t`, goes into the video (asked once for each
        frame, in order): every frame at full size; in the small video, not one that follows
        the last one taken sooner than a frame of `SMALL_MAX_FPS` (a 60 fps phone video gives
        every other frame, with their own times)."""
        if t < self._due_s:
            return False
        self._due_s = t + self._step_s
        return True

    def write(self, frame, t: float, overlay: Overlay) -> Scene:
        """Draw the scene due at `t` on `frame` (a decoded av.VideoFrame of the source) and
        encode it; returns the scene drawn."""
        return self.write_canvas(self.canvas(frame), t, frame.pts, frame.time_base, overlay)

    def write_canvas(self, canvas, t: float, pts: int | None, time_base, overlay: Overlay
                     ) -> Scene:
        """`write` for a frame already made into a canvas (`canvas`), with its source frame's
        timestamp."""
        import av

        scene = scene_at(overlay, t)
        self.layers.get(scene, overlay).blend_into(canvas)
        canvas.pts, canvas.time_base = pts, time_base
        try:
            self.target.mux(self.video.encode(canvas))
            self._copy_sound_until(t)
        except (av.error.FFmpegError, OSError) as error:
            raise AnnotationError(f"{self.out}: cannot write the annotated video ({error})") \
                from None
        self.frames += 1
        self.end_s = max(self.end_s, t + self.frame_s)
        return scene

    def canvas(self, frame, shrunk: PlaneShrinker | None = None):
        """A new yuv420p frame at this video's size with `frame`'s picture, to draw on. Can
        run apart from `write` (in another thread): it touches nothing of the writer's.

        `shrunk(index, size)`, when given, is `frame`'s plane `index` shrunk to `size` by a
        `vision.frames.PlaneShrinker` that the watchers' copy of the frame shares
        (`Frame.plane_shrunk`); else a shrinker of its own."""
        height, width = self.size
        if frame.format.name != "yuv420p" or frame.width % 2 or frame.height % 2:
            return frame.reformat(width=width, height=height, format="yuv420p")
        import av

        shrunk = shrunk or PlaneShrinker(frame)
        out = av.VideoFrame(width, height, "yuv420p")
        for index, target in enumerate(out.planes):
            size = (height, width) if index == 0 else (height // 2, width // 2)
            np.copyto(plane_pixels(target), shrunk(index, size))
        return out

    def close(self, whole: bool = True) -> None:
        """Flush the encoder, copy the rest of the sound (all of it; when the footage broke
        off, `whole=False`, up to the last frame's end) and close the file."""
        import av

        try:
            self.target.mux(self.video.encode())
            self._copy_sound_until(float("inf") if whole else self.end_s)
        except (av.error.FFmpegError, OSError) as error:
            self.abandon()
            raise AnnotationError(f"{self.out}: cannot write the annotated video ({error})") \
                from None
        finally:
            self.input.close()
        self.target.close()

    def abandon(self) -> None:
        """Stop and delete what was written (a review that failed leaves no half video)."""
        for container in (self.target, self.input):
            with contextlib.suppress(Exception):  # already broken: the file goes anyway
                container.close()
        self.out.unlink(missing_ok=True)

    def _copy_sound_until(self, t: float) -> None:
        import av

        if self._sound is None or t < self._sound_held_t:
            return  # most frames: the next sound packet is still ahead of them
        try:
            while True:
                packet = self._sound_held or next(self._sound)
                self._sound_held = None
                if packet.dts is None:
                    continue  # the demuxer's flush packet
                if packet.pts is not None:
                    packet_t = media_time_s(packet.pts, packet.stream)
                    if packet_t > t:
                        self._sound_held, self._sound_held_t = packet, packet_t
                        return
                packet.stream = self.audio
                self.target.mux(packet)
        except (StopIteration, av.error.FFmpegError):
            self._sound = None  # the end of the sound, or damage in it: the rest is left out


class _SceneLayers:
    """Each scene drawn once and blended into the frames that show it (`OverlayLayer`); the
    last few scenes are kept, as a scene often comes back (the badge alone, between plays)."""

    KEEP = 16

    def __init__(self, height: int, width: int) -> None:
        self.height, self.width = height, width
        self.layers: OrderedDict[Scene, OverlayLayer] = OrderedDict()

    def get(self, scene: Scene, overlay: Overlay) -> OverlayLayer:
        layer = self.layers.pop(scene, None)
        if layer is None:
            layer = OverlayLayer.render(lambda image: draw_scene(image, overlay, scene),
                                        self.height, self.width)
        self.layers[scene] = layer
        while len(self.layers) > self.KEEP:
            self.layers.popitem(last=False)
        return layer


# --- drawing helpers -----------------------------------------------------------------------

def _pile_centre(overlay: Overlay, w: int, h: int) -> tuple[int, int]:
    if overlay.pile_box is None:
        return w // 2, h // 2
    x0, y0, x1, y1 = overlay.pile_box
    return int((x0 + x1) / 2 * w), int((y0 + y1) / 2 * h)


_FONT = cv2.FONT_HERSHEY_SIMPLEX
_FONT_CAP_PX = cv2.getTextSize("H", _FONT, 1.0, 1)[0][1]
"""The height of a capital in OpenCV's plain font at scale 1: text is sized in pixels."""
_STOP_RED = (30, 30, 210)


def _font_scale(text_px: float) -> float:
    return text_px / _FONT_CAP_PX


def _text_size(text: str, text_px: float, thickness: int) -> tuple[int, int]:
    (tw, th), _ = cv2.getTextSize(text, _FONT, _font_scale(text_px), thickness)
    return tw, th


def _put(image: np.ndarray, text: str, origin: tuple[int, int], text_px: float,
         colour: tuple[int, int, int], thickness: int) -> None:
    cv2.putText(image, text, origin, _FONT, _font_scale(text_px), colour, thickness,
                cv2.LINE_AA)


def _pill(image: np.ndarray, text: str, centre: tuple[float, float], text_px: int,
          size: OverlaySizes, fill: tuple[int, int, int], ink: tuple[int, int, int],
          outline: tuple[int, int, int] | None = None, bottom: int | None = None
          ) -> tuple[int, int, int, int]:
    """`text` on a filled box centred at `centre`, kept inside the frame (and above
    `bottom`); returns the box (x0, y0, x1, y1)."""
    w = image.shape[1]
    h = image.shape[0] if bottom is None else bottom
    tw, th = _text_size(text, text_px, size.line)
    pad = max(2, round(text_px * 0.35))
    bw, bh = tw + 2 * pad, th + 2 * pad
    x0 = int(min(max(centre[0] - bw / 2, 1), w - bw - 1))
    y0 = int(min(max(centre[1] - bh / 2, 1), h - bh - 1))
    cv2.rectangle(image, (x0, y0), (x0 + bw, y0 + bh), fill, -1)
    if outline is not None:
        cv2.rectangle(image, (x0, y0), (x0 + bw, y0 + bh), outline, size.line)
    _put(image, text, (x0 + pad, y0 + pad + th), text_px, ink, size.line)
    return x0, y0, x0 + bw, y0 + bh


def _ink_on(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    """Black or white text, whichever reads on `colour` (BGR)."""
    b, g, r = colour
    return (20, 20, 20) if 0.114 * b + 0.587 * g + 0.299 * r > 140 else (255, 255, 255)


def _seat_colour(seat: int) -> tuple[int, int, int]:
    return _SEAT_COLOURS[seat % len(_SEAT_COLOURS)]


def _seat_arrow(image: np.ndarray, overlay: Overlay, seat: int, centre: tuple[int, int],
                size: OverlaySizes, clear: int) -> None:
    angles = overlay.seat_angles_deg
    if not angles or seat >= len(angles):
        return
    h, w = image.shape[:2]
    angle = math.radians(angles[seat])
    reach = 0.42 * min(w, h)
    start = (int(centre[0] + reach * math.cos(angle)), int(centre[1] + reach * math.sin(angle)))
    end = (int(centre[0] + 0.18 * reach * math.cos(angle)),
           int(centre[1] + 0.18 * reach * math.sin(angle)))
    colour = _seat_colour(seat)
    cv2.arrowedLine(image, start, end, colour, max(2, round(3 * size.unit)), cv2.LINE_AA,
                    tipLength=0.18)
    # The label sits just beyond the arrow's tail, on the player's side.
    text = f"seat {seat}"
    tw, th = _text_size(text, size.label_px, size.line)
    beyond = reach + 0.6 * size.label_px + abs(math.cos(angle)) * tw / 2 \
        + abs(math.sin(angle)) * th
    label_at = (centre[0] + beyond * math.cos(angle), centre[1] + beyond * math.sin(angle))
    _pill(image, text, label_at, size.label_px, size, colour, _ink_on(colour), (20, 20, 20),
          bottom=clear)


def _edge_point(centre: tuple[int, int], angle: float, w: int, h: int, inset: float
                ) -> tuple[float, float]:
    """Where the ray from `centre` at `angle` (radians, image axes) leaves the frame shrunk
    by `inset` on every side."""
    dx, dy = math.cos(angle), math.sin(angle)
    limits = []
    if dx > 1e-9:
        limits.append((w - 1 - inset - centre[0]) / dx)
    elif dx < -1e-9:
        limits.append((inset - centre[0]) / dx)
    if dy > 1e-9:
        limits.append((h - 1 - inset - centre[1]) / dy)
    elif dy < -1e-9:
        limits.append((inset - centre[1]) / dy)
    reach = max(0.0, min(limits)) if limits else 0.0
    return centre[0] + reach * dx, centre[1] + reach * dy


def _turn_marker(image: np.ndarray, overlay: Overlay, seat: int, centre: tuple[int, int],
                 size: OverlaySizes, clear: int) -> None:
    """A triangle in the seat's colour at the frame's edge on that player's side, pointing at
    the player: whose turn it is, where they sit."""
    angles = overlay.seat_angles_deg
    if not angles or seat >= len(angles):
        return
    w = image.shape[1]
    angle = math.radians(angles[seat])
    length = 1.6 * size.label_px
    tip = _edge_point(centre, angle, w, clear, 0.3 * size.label_px)
    back = (tip[0] - length * math.cos(angle), tip[1] - length * math.sin(angle))
    across = (-math.sin(angle) * length * 0.6, math.cos(angle) * length * 0.6)
    points = np.array([tip, (back[0] + across[0], back[1] + across[1]),
                       (back[0] - across[0], back[1] - across[1])], np.int32)
    cv2.fillConvexPoly(image, points, _seat_colour(seat), cv2.LINE_AA)
    cv2.polylines(image, [points], True, (20, 20, 20), size.line, cv2.LINE_AA)


def _turn_badge(image: np.ndarray, seat: int, top: int, size: OverlaySizes) -> None:
    """"seat 2 to play" under the top card badge, in the seat's colour."""
    colour = _seat_colour(seat)
    text = f"seat {seat} to play"
    tw, th = _text_size(text, size.label_px, size.line)
    pad = max(2, round(size.label_px * 0.35))
    margin = round(6 * size.unit)
    _pill(image, text, (margin + tw / 2 + pad, top + margin + th / 2 + pad), size.label_px,
          size, colour, _ink_on(colour), (20, 20, 20))


def _stop_frame(image: np.ndarray, size: OverlaySizes) -> None:
    h, w = image.shape[:2]
    border = max(3, round(5 * size.unit))
    cv2.rectangle(image, (0, 0), (w - 1, h - 1), _STOP_RED, 2 * border)


def _stop_banner(image: np.ndarray, size: OverlaySizes) -> None:
    """"STOP" in a red box at the top middle while the game stands paused."""
    h, w = image.shape[:2]
    _pill(image, "STOP - game paused", (w / 2, 0.2 * h), size.stop_px, size, _STOP_RED,
          (255, 255, 255), (255, 255, 255))


def _top_card_badge(image: np.ndarray, token: str | None, size: OverlaySizes) -> int:
    """The top card, top left, framed in its colour; returns the badge's bottom edge."""
    text = f"top card: {token_words(token)}" if token else "top card: -"
    colour = _CARD_COLOURS.get(token[0], (30, 30, 30)) if token and token[1:2] == "_" \
        else (30, 30, 30)
    tw, th = _text_size(text, size.badge_px, size.line)
    pad = max(2, round(size.badge_px * 0.35))
    margin = round(6 * size.unit)
    box = (margin, margin, margin + tw + 2 * pad, margin + th + 2 * pad)
    cv2.rectangle(image, box[:2], box[2:], (250, 250, 250), -1)
    cv2.rectangle(image, box[:2], box[2:], colour, max(2, round(2 * size.unit)))
    _put(image, text, (margin + pad, margin + pad + th), size.badge_px, (20, 20, 20),
         size.line)
    return box[3]


def _caption_lines(captions: tuple[tuple[str, bool], ...], size: OverlaySizes, width: int
                   ) -> list[tuple[str, float, int]]:
    """(text, its height in pixels, its band's height) of each caption, bottom line first: a
    line too long for the frame is made smaller to fit, never cut."""
    margin = round(8 * size.unit)
    lines = []
    for message, _ in captions:
        text = message.encode("ascii", "replace").decode("ascii")
        text_px = float(size.caption_px)
        tw, _ = _text_size(text, text_px, size.line)
        if tw > width - 2 * margin:
            text_px *= (width - 2 * margin) / tw
        lines.append((text, text_px, round(max(text_px, 0.6 * size.caption_px) * 1.9)))
    return lines


def _captions(image: np.ndarray, captions: tuple[tuple[str, bool], ...],
              size: OverlaySizes) -> None:
    """The rulings due, one band each from the bottom up (penalties red)."""
    h, w = image.shape[:2]
    margin = round(8 * size.unit)
    y = h
    lines = _caption_lines(captions, size, w)
    for (text, text_px, line_h), (_, penalty) in zip(lines, captions, strict=True):
        band = (30, 30, 170) if penalty else (60, 60, 60)
        cv2.rectangle(image, (0, y - line_h), (w, y), band, -1)
        _put(image, text, (margin, y - round((line_h - text_px) / 2)), text_px,
             (255, 255, 255), max(1, min(size.line, round(text_px / 7))))
        y -= line_h


def _quarter_turns_of(source: Path) -> int:
    """`video_quarter_turns`, 0 for a video that cannot be decoded (the pass says why)."""
    import av

    try:
        return video_quarter_turns(source)
    except (FrameSourceError, av.error.FFmpegError, OSError):
        return 0
