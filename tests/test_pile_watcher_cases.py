"""Pile-watcher failures found on rendered games 301-310, each as a tiny clip."""

from __future__ import annotations

import pytest

from table_helpers import of_kind, watch


@pytest.mark.parametrize("seed", [0, 2, 4])
def test_cards_whose_white_and_yellow_clip_under_a_bright_lamp_are_still_plays(seed):
    # A lamp turned up clips a card's white oval and yellow field (R and G at 255): those
    # pixels still show the card is new, as far brighter than what lay there. Dropping every
    # clipped pixel cut the new card's patch to its print and lost the play (game 307: 9 of
    # 31 plays on a brightly lit table).
    found, truth = watch({"players": 4, "seed": seed, "duration_s": 4.5,
                          "lighting": [{"t": 0.3, "gain": 1.5}],
                          "plays": [{"t": 1.0, "seat": 0, "card": "y_7", "linger_s": 0.2},
                                    {"t": 2.5, "seat": 2, "card": "y_reverse", "linger_s": 0.2}]})
    cards = of_kind(found, "card")
    assert [(c["card"], c["seat"]) for c in cards] == [("y_7", 0), ("y_reverse", 2)]
    for seen, true in zip(cards, of_kind(truth, "card"), strict=True):
        assert abs(seen["t"] - true["t"]) <= 0.1


@pytest.mark.parametrize("seed", [16, 37, 43])
def test_a_card_taken_back_from_over_a_card_whose_hand_left_fast_is_no_new_play(seed):
    # The first card is confirmed while its hand still rests beside it, and the hand is taken
    # into the reference with it. The hand leaves fast: on the first frame without a hand over
    # the pile its last pixels still move, so the pile around the card cannot be caught up
    # then; it must be once they are still, or the hand stays in the reference under the next
    # card, and when that card is taken back the pile under it does not match: a phantom play
    # (game 302, 47.5 s).
    found, truth = watch({"players": 6, "seed": seed, "duration_s": 6.5, "plays": [
        {"t": 1.0, "seat": 4, "card": "b_2", "linger_s": 0.4},
        {"t": 3.0, "seat": 5, "card": "r_9", "linger_s": 0.1}],
        "takebacks": [{"t": 4.9, "seat": 5}]})
    assert [(c["card"], c["seat"]) for c in of_kind(found, "card")] == [("b_2", 4), ("r_9", 5)]
    removed = of_kind(found, "card_removed")
    assert [c["card"] for c in removed] == ["r_9"]
    assert abs(removed[0]["t"] - of_kind(truth, "card_removed")[0]["t"]) <= 0.3


def multi_card_play(seed: int, first: str, second: str, after_s: float) -> dict:
    """One seat lays two cards with one hand, `after_s` apart (DrukUNO's multi-card play, a
    Snabb-UNO jump-in on oneself): the arm lifts off the first and comes in with the second."""
    return {"players": 4, "seed": seed, "duration_s": 4.0, "plays": [
        {"t": 1.0, "seat": seed % 4, "card": first, "linger_s": 0.2,
         "more": [{"card": second, "after_s": after_s}]}]}


@pytest.mark.parametrize(("seed", "first", "second", "after_s"), [
    (3, "b_2", "r_2", 0.5), (4, "b_2", "r_2", 1.0), (5, "y_skip", "y_7", 0.75),
    (7, "y_skip", "y_7", 0.5), (6, "g_4", "g_4", 1.0), (8, "g_4", "g_4", 0.75)])
def test_two_cards_laid_by_one_hand_within_the_adjust_window_are_two_plays(seed, first, second,
                                                                          after_s):
    # The second card lands by the same seat well within ADJUST_WINDOW_S of the first, on or
    # beside it: it used to be taken for the first card nudged (one play, read as the second).
    found, truth = watch(multi_card_play(seed, first, second, after_s))
    cards = of_kind(found, "card")
    assert [(c["card"], c["seat"]) for c in cards] == [(first, seed % 4), (second, seed % 4)]
    for seen, true in zip(cards, of_kind(truth, "card"), strict=True):
        assert abs(seen["t"] - true["t"]) <= 0.1


@pytest.mark.parametrize("seed", [3, 11, 12, 19])
def test_a_card_nudged_straight_by_the_hand_that_laid_it_is_still_one_play(seed):
    found, truth = watch({"players": 4, "seed": seed, "duration_s": 3.5, "plays": [
        {"t": 1.0, "seat": seed % 4, "card": "r_8", "linger_s": 0.8, "adjust": True}]})
    cards = of_kind(found, "card")
    assert [(c["card"], c["seat"]) for c in cards] == [("r_8", seed % 4)]
    assert abs(cards[0]["t"] - truth[0]["t"]) <= 0.2


class _WeakTruth:
    """The ground truth's card, read as weakly as the recogniser's worst guesses (0.05)."""

    def __init__(self, truth):
        from vision.card_readers import TruthReader

        self.truth = TruthReader(truth)

    def __call__(self, crop, t_s):
        from vision.pile_watcher import CardReading

        sure = self.truth(crop, t_s)
        return None if sure is None else CardReading(sure.card, 0.05, None)


def test_weakly_read_cards_that_arms_brought_and_left_lying_are_still_plays():
    # A weak reading is no play only when nothing came as a card comes (webcam games 303,
    # 304); the recogniser's weak guesses at real cards (webcam game 305 at 12.7 s) stay.
    from calibration.layout import TableLayout
    from synth.footage import FootageRenderer
    from synth.scenario import Scenario
    from vision.frames import frame_from_image
    from vision.table_watcher import TableWatcher

    from event_helpers import log_lines

    scenario = Scenario.model_validate({"players": 4, "seed": 21, "duration_s": 7.0, "plays": [
        {"t": 1.0, "seat": 0, "card": "r_3", "linger_s": 0.2},
        {"t": 3.0, "seat": 1, "card": "g_3", "linger_s": 0.4},
        {"t": 5.0, "seat": 2, "card": "g_7", "linger_s": 0.1}]}).check()
    renderer = FootageRenderer(scenario, (180, 320))
    truth = renderer.truth()[1:]
    watcher = TableWatcher(TableLayout().camera_profile(4, size=(180, 320)), _WeakTruth(truth))
    found = []
    for index, (t, image) in enumerate(renderer.frames()):
        found += log_lines(watcher.update(frame_from_image(image, t, index)))
    found += log_lines(watcher.finish())
    assert [(c["card"], c["seat"], c["confidence"]) for c in of_kind(found, "card")] == [
        ("r_3", 0, 0.05), ("g_3", 1, 0.05), ("g_7", 2, 0.05)]


def test_a_change_no_arm_brought_or_that_left_with_the_hand_has_not_landed():
    import numpy as np

    from vision.pile_watcher import PlayedCard, _WaitingRead

    def waiting(seat, differed, stayed):
        hull = np.ones((4, 4), bool)
        played = PlayedCard(None, seat, 1.0, hull, np.zeros((4, 4, 3), np.float32))
        return _WaitingRead(played, 1.1, [], differed=differed, stayed=stayed)

    assert waiting(2, 0.8, [0.7, 0.8, 0.8]).landed()  # brought, and still lying there
    assert waiting(2, 0.8, []).landed()  # never seen uncovered: nothing says otherwise
    assert not waiting(None, 0.8, [0.8, 0.8, 0.8]).landed()  # no arm seen: a glare
    assert not waiting(5, 1.0, [0.0, 0.0, 0.05]).landed()  # gone with the arm: its sleeve


def test_an_unnamed_change_needs_a_sure_reading_and_a_same_seat_remainder_a_readable_one():
    import numpy as np

    from vision.pile_watcher import UNSEEN_READ_SURE, CardReading, PileWatcher, PlayedCard, _bar

    def played(seat, t_s):
        return PlayedCard(None, seat, t_s, np.ones((4, 4), bool), np.zeros((4, 4, 3), np.float32))

    # No arm seen bringing it (webcam game 306: an exposure step and a glare, read 0.55-0.57).
    assert _bar(played(None, 1.0), 0.5) == UNSEEN_READ_SURE > _bar(played(2, 1.0), 0.5) == 0.5
    watcher = PileWatcher((0, 0, 40, 40), 10.0, lambda crop, t: None)
    first, remainder, later = played(1, 1.0), played(1, 1.4), played(1, 3.0)
    watcher.played = [first, remainder]
    weak, read = CardReading("r_4", 0.01), CardReading("r_4", 0.9)
    assert watcher._remainder_of_last(remainder, weak)  # the last card's part its hand hid
    assert not watcher._remainder_of_last(remainder, read)  # a card of its own: it reads
    # Webcam games 364, 373, 374, 382 and 383: such parts read 0.31-0.42, all phantom plays.
    assert watcher._remainder_of_last(remainder, CardReading("wild_draw_4", 0.36))
    watcher.played = [first, later]
    assert not watcher._remainder_of_last(later, weak)  # long after: not that card's part
    other = played(2, 1.4)
    watcher.played = [first, other]
    assert not watcher._remainder_of_last(other, weak)  # another seat's card
    # Another seat's jump-in lay between (webcam game 473, 18.5 s): still the first's part.
    jump_in, uncovered = played(0, 1.2), played(1, 1.6)
    watcher.played = [first, jump_in, uncovered]
    assert watcher._remainder_of_last(uncovered, weak)
    assert not watcher._remainder_of_last(uncovered, read)


def test_a_glare_passing_over_the_pile_is_light_and_a_new_card_is_not():
    import numpy as np

    from vision.pile_shapes import explained_by_light as _explained_by_light

    rng = np.random.default_rng(3)
    ys, xs = np.mgrid[0:30, 0:20]
    where = np.column_stack([xs.ravel(), ys.ravel()]) / 30.0  # card heights
    pile = rng.uniform(40, 200, (600, 3)).astype(np.float32)  # the cards under the glare
    spot = 1.0 + 0.9 * np.exp(-((where[:, 0] - 0.3) ** 2 + (where[:, 1] - 0.5) ** 2) / 0.08)
    glared = pile * spot[:, None].astype(np.float32)
    assert _explained_by_light(glared, pile, where)
    # Without the places a factor that varies this much is not one lamp's change.
    assert not _explained_by_light(glared, pile)
    new_card = rng.uniform(40, 200, (600, 3)).astype(np.float32)
    assert not _explained_by_light(new_card, pile, where)
    assert _explained_by_light(pile * 0.8, pile)  # a lamp turned down, as before


def test_a_glare_that_whitens_the_pile_is_light_and_a_card_the_tables_hue_is_not():
    import numpy as np

    from vision.pile_shapes import explained_by_glare, explained_by_light

    rng = np.random.default_rng(5)
    ys, xs = np.mgrid[0:30, 0:20]
    where = np.column_stack([xs.ravel(), ys.ravel()]) / 30.0  # card heights
    pile = rng.uniform(20, 180, (600, 3)).astype(np.float32)  # the cards under the glare
    # The lamp mirrored in the gloss adds white light, most at the spot's middle: the print
    # keeps its differences between channels but washes out (rendered webcam game 441, 49.7 s).
    spot = 70.0 * np.exp(-((where[:, 0] - 0.3) ** 2 + (where[:, 1] - 0.5) ** 2) / 0.3)
    noise = rng.normal(0, 4, pile.shape)
    glared = (pile * 1.1 + spot[:, None] + noise).astype(np.float32)
    assert not explained_by_light(glared, pile, where)  # its colours change: not a lamp's factor
    assert explained_by_glare(glared, pile, where)
    # Light taken away is no glare coming (the watcher asks the other way round whether a
    # glare the reference took in has left).
    assert not explained_by_glare(pile, glared, where)
    # A red card on a reddish-brown table has the table's hue, only brighter; but its border
    # and print change from pixel to pixel where the table did not (rendered webcam game 391,
    # 1.1 s, its first card).
    table = np.tile(np.float32([6, 48, 107]), (600, 1))
    card = np.tile(np.float32([34, 78, 140]), (600, 1))
    border = (xs.ravel() < 3) | (xs.ravel() > 16) | (ys.ravel() < 3) | (ys.ravel() > 26)
    card[border] = (200, 205, 215)
    card[(abs(xs.ravel() - 10) < 3) & (abs(ys.ravel() - 15) < 6)] = (230, 230, 235)  # the numeral
    card += rng.normal(0, 4, card.shape).astype(np.float32)
    assert not explained_by_glare(card, table, where)
    assert not explained_by_glare(table, card, where)
    # Nor is a new card's print over the old one's, nor a patch too small to judge.
    assert not explained_by_glare(rng.uniform(20, 230, (600, 3)).astype(np.float32), pile, where)
    assert not explained_by_glare(glared[:10], pile[:10], where[:10])


def test_a_patch_that_changed_as_the_whole_picture_jumped_with_no_hand_near_is_light():
    import numpy as np

    from vision.arms import Arm
    from vision.pile_watcher import LIGHT_STEP_WINDOW_S, PileWatcher

    watcher = PileWatcher((0, 0, 40, 40), 15.0, lambda crop, t: None)  # the card: 15 x 10
    pile = np.full((40, 40, 3), 120.0, np.float32)
    pile[10:25, 10:20] = (200.0, 60.0, 40.0)  # the top card
    watcher.reference = pile.copy()
    after = pile * 1.1
    after[10:25, 10:20] = (150.0, 90.0, 45.0)  # the camera's response: not a common factor
    watcher.history.extend([(0.9, pile.copy()), (1.0, after)])
    watcher.arm_history.extend([(0.9, []), (1.0, [])])
    watcher.light_step_t = 1.0  # an exposure step in the frame at 1.0 s
    hull = np.zeros((40, 40), bool)
    hull[10:25, 10:20] = True
    assert watcher._after_light_step(1.3, hull)
    assert not watcher._after_light_step(1.0 + LIGHT_STEP_WINDOW_S + 0.1, hull)  # long after
    # A hand over the pile since the jump may have laid a card there.
    hand = Arm(entry=(20.0, 39.0), tip=(15.0, 17.0), area_px=300.0, entry_angle_deg=90.0, seat=0)
    watcher.arm_history.append((1.1, [hand]))
    assert not watcher._after_light_step(1.3, hull)
    watcher.arm_history.pop()
    # A sliver that differed, at rest, just before (the rest of a pair's twin, a fifth of a
    # card: rendered webcam game 455, 41.6 s) is no card the jump could have brought.
    sliver = pile.copy()
    sliver[10:25, 18:20] = (60.0, 60.0, 200.0)
    watcher.history[0] = (0.9, sliver)
    assert watcher._after_light_step(1.3, hull)
    # Nor did the jump change it when it already differed just before (a card on its way).
    watcher.history[0] = (0.9, after)
    assert not watcher._after_light_step(1.3, hull)


def test_the_part_of_a_card_its_hand_still_covered_is_that_card_not_a_next_one():
    # Webcam game 396, 38.8 s: a green 5 confirmed with the hand over its top half, its place
    # taken with the hand (more than one card's area). The hand, lost by the arm tracker,
    # went and uncovered that half, which changed again: a patch inside the card's place,
    # by the same seat, that looked like a next card laid beside it (a phantom green 6, and
    # the green 5 read as a wild draw four).
    import numpy as np

    from vision.pile_cards import PlayedCard
    from vision.pile_watcher import PileWatcher

    watcher = PileWatcher((0, 0, 40, 40), 10.0, lambda crop, t: None)  # a card: 10 x 6.7
    place = np.zeros((40, 40), bool)
    place[10:22, 10:20] = True  # the card and the hand beside it: 1.8 cards
    last = PlayedCard(None, 2, 38.33, place, np.zeros((40, 40, 3), np.float32))
    uncovered = np.zeros((40, 40), bool)
    uncovered[10:15, 10:18] = True  # 0.6 of a card, inside its place
    assert watcher._part_of_last(last, uncovered)
    beside = np.zeros((40, 40), bool)
    beside[14:24, 12:19] = True  # a card's area, half of it beyond the place: a next card?
    assert not watcher._part_of_last(last, beside)
    whole = np.zeros((40, 40), bool)
    whole[11:21, 11:19] = True  # a whole card inside the place: laid squarely on it?
    assert not watcher._part_of_last(last, whole)


def test_the_part_of_a_card_another_arm_covered_is_that_card_not_the_arms_seats():
    # Webcam games 391, 6.4 s, and 471, 53.0 s: a bystander's arm over the last card; as it
    # left, the part it uncovered changed and came to rest, and was written as that seat's
    # card (read 0.38 and 0.18). Another seat's card laid on the last one is a whole card.
    import numpy as np

    from vision.pile_cards import PlayedCard
    from vision.pile_watcher import PileWatcher

    watcher = PileWatcher((0, 0, 40, 40), 10.0, lambda crop, t: None)
    watcher.hand_left = True
    place = np.zeros((40, 40), bool)
    place[10:22, 10:20] = True
    last = PlayedCard(None, 2, 52.47, place, np.zeros((40, 40, 3), np.float32))
    crop = np.zeros((40, 40, 3), np.float32)
    uncovered = np.zeros((40, 40), bool)
    uncovered[10:15, 10:18] = True
    assert watcher._adjusts(last, uncovered, 0, 53.0, crop)
    jump_in = np.zeros((40, 40), bool)
    jump_in[14:24, 12:19] = True  # a card's area, part of it beyond the place
    assert not watcher._adjusts(last, jump_in, 0, 53.0, crop)


def test_a_change_apart_from_a_fan_is_none_of_its_cards():
    # Webcam game 496, 15.7 s: a shadow that left the table beside the pile as a blue 9 was
    # laid; what differed from the pile before took it in, and the fan splitter found a second
    # card there, read as the blue 9 (its place mostly the top card's): written twice.
    import numpy as np

    from vision.pile_fan import TOUCH_GAP_PX, _touching

    differs = np.zeros((40, 40), bool)
    differs[5:20, 5:15] = True  # the card
    differs[20 + TOUCH_GAP_PX:25, 5:15] = True  # a strip of one under it, a gap of pixels
    differs[30:38, 30:38] = True  # the shadow, apart
    hull = np.zeros((40, 40), bool)
    hull[5:20, 5:15] = True
    kept = _touching(differs, hull)
    assert kept[5:25, 5:15].sum() == differs[5:25, 5:15].sum()
    assert not kept[30:38, 30:38].any()


def test_the_waiting_card_seen_again_after_the_light_jumped_is_that_card():
    # Webcam game 491, 5.5 s: a green 6 confirmed with its hand still over it; the camera's
    # exposure stepped as the hand left, and the card, scaled back to the first frame's light,
    # differed from how it was taken in: confirmed again, it was written twice.
    import numpy as np

    from vision.pile_cards import PlayedCard
    from vision.pile_same_hand import RELIT_WINDOW_S
    from vision.pile_watcher import PileWatcher, _WaitingRead

    watcher = PileWatcher((0, 0, 40, 40), 10.0, lambda crop, t: None)  # a card: 10 x 6.7
    place = np.zeros((40, 40), bool)
    place[10:24, 10:20] = True  # the card and the hand over it: 2.1 cards
    last = PlayedCard(None, 0, 4.7, place, np.zeros((40, 40, 3), np.float32))
    watcher.played.append(last)
    watcher.waiting = _WaitingRead(last, 5.13, [])
    watcher.history.append((5.63, np.zeros((40, 40, 3), np.float32)))
    card = np.zeros((40, 40), bool)
    card[11:21, 11:18] = True  # the card alone, inside its place
    watcher.light_step_t = 5.5
    assert watcher._relit_waiting(last, card, 0)
    assert watcher._relit_waiting(last, card, None)  # the arm tracker lost the hand
    assert not watcher._relit_waiting(last, card, 2)  # another seat's card
    elsewhere = np.zeros((40, 40), bool)
    elsewhere[20:30, 20:27] = True
    assert not watcher._relit_waiting(last, elsewhere, 0)  # beside it: a next card
    watcher.light_step_t = 5.0  # the jump came before the card was confirmed
    assert not watcher._relit_waiting(last, card, 0)
    watcher.light_step_t = 5.63 - RELIT_WINDOW_S - 0.1  # long ago
    assert not watcher._relit_waiting(last, card, 0)
    watcher.light_step_t = 5.5
    watcher.waiting = None  # the card was read and written already
    assert not watcher._relit_waiting(last, card, 0)


def test_a_stop_followed_by_the_pile_in_full_view_laid_no_hidden_card():
    # Webcam game 492, 25.6 s: a bystander's hand stopped beside the player's over the pile
    # for a quarter second; then the pile lay in view, still, for a second before the next
    # card came, and the stop was written as a card that card had hidden. (A frame counts
    # only when the pile shows nothing new: a pair put down at once can lie in view a second,
    # never confirmed, and is found as that stop's card: webcam game 471, 38.0 s.)
    from vision.pile_watcher import QUIET_VIEW_S, PileWatcher

    watcher = PileWatcher((0, 0, 40, 40), 10.0, lambda crop, t: None)
    frame = 1 / 30
    watcher.pile_record.extend((25.5 + i * frame, 300, False) for i in range(15))  # a hand
    watcher.pile_record.extend((26.0 + i * frame, 0, True) for i in range(30))  # 26.0-27.0 s
    assert watcher._quiet_after(25.57, 27.97)
    assert not watcher._quiet_after(25.57, 26.0 + QUIET_VIEW_S - frame)  # too short a view
    assert not watcher._quiet_after(27.0, 27.97)  # none after the stop
    watcher.pile_record.clear()
    # Quiet frames with hands coming and going between them are no view of the pile at rest.
    watcher.pile_record.extend((26.0 + i * frame, 0, i % 3 == 0) for i in range(30))
    assert not watcher._quiet_after(25.57, 27.97)


def test_a_card_a_bystanders_arm_uncovered_is_the_players_not_the_bystanders():
    # Webcam game 505, 70.7 s: a yellow 2 confirmed from the part of it a bystander's arm
    # left in view (0.63 of a card); as that arm left, the whole card came to rest, was
    # written as the bystander's card, and the first as a hidden card under it.
    import numpy as np

    from vision.arms import Arm
    from vision.pile_cards import PlayedCard
    from vision.pile_watcher import PileWatcher, _WaitingRead

    watcher = PileWatcher((0, 0, 40, 40), 10.0, lambda crop, t: None)  # a card: 10 x 6.7
    part = np.zeros((40, 40), bool)
    part[10:17, 10:16] = True  # 0.63 of a card
    last = PlayedCard(None, 1, 70.43, part, np.zeros((40, 40, 3), np.float32))
    watcher.played.append(last)
    watcher.waiting = _WaitingRead(last, 70.63, [])
    frames = [round(70.4 + i / 30, 3) for i in range(23)]  # 70.40-71.13 s
    bystander = Arm(entry=(39.0, 20.0), tip=(20.0, 14.0), area_px=200.0, entry_angle_deg=0.0,
                    seat=5)
    leaving = Arm(entry=(39.0, 20.0), tip=(39.5, 18.0), area_px=50.0, entry_angle_deg=0.0, seat=5)
    watcher.arm_history.extend((t, [bystander]) for t in frames[:-1])
    watcher.arm_history.append((frames[-1], [leaving]))
    watcher.history.append((frames[-1], np.zeros((40, 40, 3), np.float32)))
    whole = np.zeros((40, 40), bool)
    whole[9:21, 9:17] = True  # the card, all of it now
    assert watcher._uncovered_by_bystander(last, whole, 5)
    assert watcher._adjusts(last, whole, 5, 70.73, np.zeros((40, 40, 3), np.float32))
    beside = np.zeros((40, 40), bool)
    beside[14:26, 14:22] = True  # not over all of the part: another card
    assert not watcher._uncovered_by_bystander(last, beside, 5)
    # An arm that came after the card landed laid a card on it: a jump-in.
    watcher.arm_history[0] = (frames[0], [])
    watcher.arm_history[1] = (frames[1], [])
    assert not watcher._uncovered_by_bystander(last, whole, 5)
    watcher.arm_history[0] = (frames[0], [bystander])
    watcher.arm_history[1] = (frames[1], [bystander])
    # A card seen whole when it was confirmed is no part.
    last.hull = whole.copy()
    assert not watcher._uncovered_by_bystander(last, whole, 5)


def test_a_stop_that_changed_the_pile_by_less_than_a_card_laid_no_hidden_card():
    # Webcam game 503, 36.9 s: a bystander's fingertip at the pile's edge, a tenth of a card
    # of the pile changed under it, stopped there; written as a card the next one had hidden.
    from vision.pile_watcher import PileWatcher

    watcher = PileWatcher((0, 0, 40, 40), 10.0, lambda crop, t: None)  # a card: 66.7 pixels
    card = watcher.card_area
    frames = [36.8 + i / 30 for i in range(10)]
    watcher.pile_record.extend((t, round(0.1 * card), False) for t in frames)
    assert not watcher._stop_laid(36.87)
    # A hand that holds a card there changes a card's area or more.
    watcher.pile_record[4] = (frames[4], round(1.2 * card), False)
    assert watcher._stop_laid(36.87)
    assert not watcher._stop_laid(frames[4] + 0.01)  # after it: too little again
    # With no record of the pile then (the record is the last 3 s) it may have.
    assert watcher._stop_laid(30.0)


def test_a_patch_over_the_waiting_cards_place_sooner_than_anyone_reacts_is_that_card():
    # Webcam game 462, 51.7 s: a red 6 confirmed at 51.57 s while still coming to rest, then
    # again 0.16 s later over all of its place, named for an arm beside it: written twice.
    import numpy as np

    from vision.pile_cards import PlayedCard
    from vision.pile_same_hand import REACTION_S
    from vision.pile_watcher import PileWatcher, _WaitingRead

    watcher = PileWatcher((0, 0, 40, 40), 10.0, lambda crop, t: None)  # a card: 10 x 6.7
    place = np.zeros((40, 40), bool)
    place[10:20, 10:17] = True
    last = PlayedCard(None, 0, 51.57, place, np.zeros((40, 40, 3), np.float32))
    watcher.played.append(last)
    watcher.waiting = _WaitingRead(last, 51.7, [])
    watcher.history.append((51.87, np.zeros((40, 40, 3), np.float32)))
    whole = np.zeros((40, 40), bool)
    whole[9:21, 9:18] = True  # all of its place, and a little more
    crop = np.zeros((40, 40, 3), np.float32)
    assert watcher._adjusts(last, whole, 2, 51.73, crop)
    # Another seat's card laid on it after a reaction's time is a jump-in.
    assert not watcher._adjusts(last, whole, 2, 51.57 + REACTION_S + 0.1, crop)
    # So is one that leaves part of its place showing.
    beside = np.zeros((40, 40), bool)
    beside[13:25, 12:20] = True
    assert not watcher._adjusts(last, beside, 2, 51.73, crop)
