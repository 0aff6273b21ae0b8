"""One footage file reviewed from end to end: the camera set-up (from a profile, or proposed
from the footage itself), vision and audio over the video, the referee, and the review folder.

The same referee path as live play and `bruno replay`: the merged events go through
`referee.session.replay`, so the folder's events.jsonl replays to its rulings.jsonl.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from calibration.camera import CameraProfile, default_camera_profile, load_camera_profile
from referee.eventlog import GameSetup
from referee.events import parse_event
from referee.session import replay
from vision.frames import FrameSourceError, first_frame
from vision.pile_watcher import CardReader
from vision.review import review_video

PROPOSAL_FRAME_AT_S = 3.0
"""With no profile, the camera set-up is proposed from the frame this far in: past the deal,
with the dealer's card on the pile (as `bruno calibrate camera --from` does)."""


class ReviewError(Exception):
    """A footage file that cannot be reviewed at all; the message is one line for people."""


@dataclass
class CameraSetup:
    camera: CameraProfile
    picture: np.ndarray | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class ReviewOutcome:
    footage: Path
    folder: Path
    files: dict[str, Path]
    events: list[dict]
    rulings: list[dict]
    sound_checked: bool
    error: str | None = None
    notes: list[str] = field(default_factory=list)


def has_sound_track(path: str | Path) -> bool:
    import av

    try:
        with av.open(str(path)) as container:
            return bool(container.streams.audio)
    except (av.error.FFmpegError, OSError):
        return False


def camera_setup(footage: Path, profile: Path | None, players: int | None) -> CameraSetup:
    """The camera part: the profile's when given; else proposed from the footage and shown in
    the report; else (nothing found) the default layout, with a note saying so."""
    from calibration.camera_proposal import CameraCalibrationError, draw_proposal, propose_camera

    if profile is not None:
        return CameraSetup(load_camera_profile(profile))
    seats = players or 4
    try:
        image = first_frame(footage, PROPOSAL_FRAME_AT_S).full()
    except FrameSourceError as error:
        raise ReviewError(str(error)) from None
    try:
        proposal, warnings = propose_camera(image, seats)
    except CameraCalibrationError as error:
        camera = default_camera_profile(seats)
        return CameraSetup(camera, draw_proposal(image, camera),
                           [f"No room profile, and the table could not be found in the footage "
                            f"({error}); the default layout was used."])
    notes = ["No room profile: the pile, draw piles and seats were proposed from the footage "
             "(see the picture at the end).", *warnings]
    return CameraSetup(proposal, draw_proposal(image, proposal), notes)


def review_footage(footage: str | Path, out_folder: str | Path, read_card: CardReader, *,
                   profile: Path | None = None, players: int | None = None, dealer: int = 0,
                   variant: str = "bruno", annotate: bool = True) -> ReviewOutcome:
    """Review one file into `out_folder`; raise ReviewError when nothing can be read."""
    from bruno.review_outputs import write_review_folder

    footage = Path(footage)
    setup = camera_setup(footage, profile, players)
    players = players or setup.camera.players
    if players != setup.camera.players:
        raise ReviewError(f"--players {players} but the profile has {setup.camera.players} "
                          "seats; calibrate the camera for this table")
    sound = has_sound_track(footage)
    try:
        result = review_video(footage, setup.camera, read_card, players, dealer, listen=sound)
    except FrameSourceError as error:
        raise ReviewError(str(error)) from None
    game = GameSetup(variant=variant, players=players, dealer=dealer,
                     settings={} if sound else {"check_knocks": False})
    game.validate()
    parsed = [parse_event(e, players) for e in result.events]
    rulings = [r.to_dict() for r in replay(game.new_game(), parsed)]
    notes = setup.notes + result.notes
    if result.error:
        notes.append(f"The video breaks off: {result.error}. The review covers what came "
                     "before the break.")
    pile = setup.camera.pile
    files = write_review_folder(
        out_folder, footage, game.to_dict(), result.events, rulings,
        pile_box=(pile.x, pile.y, pile.x + pile.w, pile.y + pile.h),
        seat_angles_deg=setup.camera.seat_angles_deg, sound_checked=sound,
        calibration_picture=setup.picture, notes=notes, annotate=annotate,
    )
    return ReviewOutcome(footage, Path(out_folder), files, result.events, rulings, sound,
                         result.error, notes)
