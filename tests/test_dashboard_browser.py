"""The dashboard in a real headless browser (Debian's chromium driven by its chromedriver), in
front of the real referee: what a person at the table sees and what their clicks change.

One browser serves the whole module; every test gets a fresh table and dashboard. Run as a
script to take the README's screenshot:

    .venv/bin/python tests/test_dashboard_browser.py docs/dashboard.png
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from test_dashboard_table import FRAME_SIZE, RefereeTable, default_layout, draw_table

from bruno.dashboard import start_dashboard
from referee.eventlog import GameSetup
from referee.events import parse_event
from vision.frames import frame_from_image

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
WAIT_S = 8.0
CHROME_FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--window-size=1400,1050")


def open_browser(profile_dir: str) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*CHROME_FLAGS, f"--user-data-dir={profile_dir}"):
        options.add_argument(flag)
    # The driver's path is given, so selenium never tries to download one.
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        pytest.skip(f"no headless browser for the dashboard tests: {', '.join(missing)} missing "
                    "(apt-get install chromium chromium-driver)")
    pytest.importorskip("selenium", reason="selenium is in the dev extra: pip install -e .[dev]")
    profile_dir = tempfile.mkdtemp(prefix="bruno-dashboard-chromium-")
    driver = open_browser(profile_dir)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile_dir, ignore_errors=True)


@pytest.fixture
def table(tmp_path: Path) -> RefereeTable:
    return RefereeTable(players=4, profile=tmp_path / "room.toml")


@contextmanager
def dashboard_open(browser: Any, backend: Any) -> Iterator[Any]:
    """The dashboard of `backend`, open in the browser and connected."""
    with start_dashboard(backend) as dashboard:
        browser.get(dashboard.url)
        wait_for(browser, lambda: text(browser, "connection") == "live")
        yield browser


@pytest.fixture
def page(browser, table) -> Iterator[Any]:
    with dashboard_open(browser, table) as opened:
        yield opened


def wait_for(driver: Any, condition: Callable[[], Any], timeout_s: float = WAIT_S) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout_s, poll_frequency=0.05).until(lambda _: condition())


def element(driver: Any, element_id: str) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, element_id)


def text(driver: Any, element_id: str) -> str:
    return element(driver, element_id).text


def click(driver: Any, element_id: str) -> None:
    element(driver, element_id).click()


def shown_rulings(driver: Any) -> list[dict[str, str]]:
    """The rulings list as shown, top (newest) first."""
    return driver.execute_script("""
        return [...document.querySelectorAll('#rulings .ruling')].map(li => ({
            rule: li.dataset.rule, kind: li.dataset.kind, seat: li.dataset.seat || '',
            classes: li.className, message: li.querySelector('.message').textContent}));""")


# --- what the page shows ------------------------------------------------------------------

def test_the_page_shows_the_camera_whose_turn_it_is_and_the_colour(page, table):
    table.play("r_5", 0)
    table.play("r_8", 1)
    wait_for(page, lambda: text(page, "turn") == "Seat 2")
    assert element(page, "active-color").get_attribute("data-color") == "r"
    assert text(page, "active-color") == "red"
    assert text(page, "top-card") == "red 8 · seat 1"
    current = page.execute_script(
        "return [...document.querySelectorAll('#seat-chips .seat.current')]"
        ".map(s => s.dataset.seat)")
    assert current == ["2"]
    wait_for(page, lambda: page.execute_script(
        "const img = document.getElementById('camera-view');"
        "return !img.hidden && img.complete && img.naturalWidth") == FRAME_SIZE[1])
    assert text(page, "source-camera") == "camera: ok"
    assert text(page, "source-mic") == "mic: off" and text(page, "voice") == "voice: on"
    assert text(page, "no-scores") == "No round scored yet."


def test_the_page_is_headed_with_the_game_played(browser, tmp_path):
    from referee.variants import SnabbUno

    snabb = RefereeTable(players=4, profile=tmp_path / "room.toml", variant=SnabbUno)
    with dashboard_open(browser, snabb) as page:
        wait_for(page, lambda: text(page, "game-name") == "Snabb-UNO referee")
        assert page.title == "Snabb-UNO referee"
        assert page.execute_script(  # Snabb-UNO keeps no tally
            "return document.getElementById('tally-panel').hidden")


def test_a_drukuno_table_sees_each_seats_sips_and_no_score(browser, tmp_path):
    from referee.druk import DrukUno

    druk = RefereeTable(players=4, profile=tmp_path / "room.toml", variant=DrukUno)
    with dashboard_open(browser, druk) as page:
        wait_for(page, lambda: page.execute_script(
            "const p = document.getElementById('tally-panel');"
            "return !p.hidden && p.querySelector('h2').textContent === 'Sips'"))
        assert page.execute_script(  # DrukUNO keeps no points
            "return document.getElementById('scores-heading').hidden")
        druk.play("r_5", 0)  # the turned card
        druk.play("r_skip", 1)  # seat 2 is skipped: a sip
        druk._feed({"kind": "draw", "seat": 3, "count": 1})  # one card drawn: a sip
        wait_for(page, lambda: page.execute_script(
            "return document.querySelectorAll('#tally tbody tr').length === 2"))
        rows = page.execute_script(
            "return [...document.querySelectorAll('#tally tbody tr')]"
            ".map(tr => [...tr.cells].map(td => td.textContent))")
        assert rows == [["Seat 2", "1"], ["Seat 3", "1"]]
    assert druk.snapshot()["tally"] == {"name": "Sips", "seats": {"2": 1, "3": 1}}


def test_a_swap_of_hands_is_entered_on_the_page_only_where_the_game_takes_one(browser, tmp_path,
                                                                             table):
    from referee.druk import DrukUno
    from referee.rules import RuleSet

    warszawa = RuleSet(helsinki=True, warszawa=True)
    druk = RefereeTable(players=4, profile=tmp_path / "room.toml", variant=DrukUno,
                        rules=warszawa)
    with dashboard_open(browser, druk) as page:
        wait_for(page, lambda: not page.execute_script(
            "return document.getElementById('swap-group').hidden"))
        page.execute_script("document.getElementById('swap-seat').value = '2';"
                            "document.getElementById('swap-with').value = '0';")
        click(page, "swap-btn")
        wait_for(page, lambda: any(e["kind"] == "swap" for e in druk.journal))
    assert [(e["seat"], e["with"]) for e in druk.journal if e["kind"] == "swap"] == [(2, 0)]
    with dashboard_open(browser, table) as page:  # Bruno: no swaps
        wait_for(page, lambda: text(page, "game-name") != "")
        assert page.execute_script("return document.getElementById('swap-group').hidden")


def test_a_ruling_the_referee_gives_appears_on_the_page_newest_first(page, table):
    table.play("r_5", 0)
    said = table.play("g_7", 1)  # neither red nor a 5
    penalty = next(r for r in said if r["kind"] == "ruling")
    wait_for(page, lambda: any(r["kind"] == "ruling" for r in shown_rulings(page)))
    shown = shown_rulings(page)
    first_penalty = next(r for r in shown if r["kind"] == "ruling")
    assert first_penalty["rule"] == "illegal_card" and first_penalty["seat"] == "1"
    assert first_penalty["message"] == penalty["message"]
    assert "penalty" in first_penalty["classes"].split()
    assert all(r["rule"] != "turn" for r in shown)  # the turn box says that

    table.play("b_7", 0)  # out of turn: a second penalty, shown above the first
    wait_for(page, lambda: sum(r["kind"] == "ruling" for r in shown_rulings(page)) == 2)
    penalties = [r for r in shown_rulings(page) if r["kind"] == "ruling"]
    assert [p["seat"] for p in penalties] == ["0", "1"]


# --- manual controls ----------------------------------------------------------------------

def test_undo_on_the_page_withdraws_the_referees_latest_penalty(page, table):
    table.play("r_5", 0)
    table.play("g_7", 1)
    wait_for(page, lambda: any(r["kind"] == "ruling" for r in shown_rulings(page)))
    assert len(table.session.standing) == 1
    click(page, "undo-btn")
    wait_for(page, lambda: shown_rulings(page)[0]["rule"] == "withdrawn")
    assert table.session.standing == {}
    assert table.journal[-1]["kind"] == "undo"
    penalty = next(r for r in shown_rulings(page) if r["kind"] == "ruling")
    assert "withdrawn" in penalty["classes"].split()
    assert "seat 1 takes no penalty cards" in shown_rulings(page)[0]["message"]


def click_on_check(driver: Any, button: str) -> None:
    import time

    from selenium.webdriver.common.by import By

    # Newest first: a ruling still arriving moves the list down under a click on its way, so
    # the click waits until the list has stood still for a moment (as a person's would).
    seen = None
    while (now := len(shown_rulings(driver))) != seen:
        seen = now
        time.sleep(0.3)
    driver.find_element(By.CSS_SELECTOR,
                        f'#rulings .ruling.check [data-test="{button}"]').click()


def test_an_unsure_penalty_is_shown_as_a_check_and_confirmed_in_one_click(page, table):
    table.play("r_5", 0)
    table.play("r_6", 2)  # the next seat, before seat 1 was seen drawing: 0.5 sure
    wait_for(page, lambda: any(r["kind"] == "ruling" for r in shown_rulings(page)))
    check = next(r for r in shown_rulings(page) if r["kind"] == "ruling")
    assert "check" in check["classes"].split() and "penalty" not in check["classes"].split()
    click_on_check(page, "confirm")
    wait_for(page, lambda: table.journal[-1]["kind"] == "confirm")
    wait_for(page, lambda: shown_rulings(page)[0]["message"].startswith("Confirmed by the table"))
    confirmed, check = shown_rulings(page)[0], shown_rulings(page)[1]
    assert "penalty" in confirmed["classes"].split()
    assert "resolved" in check["classes"].split()


def test_an_unsure_penalty_dismissed_in_one_click_is_withdrawn(page, table):
    table.play("r_5", 0)
    table.play("r_6", 2)
    wait_for(page, lambda: any(r["kind"] == "ruling" for r in shown_rulings(page)))
    click_on_check(page, "dismiss")
    wait_for(page, lambda: shown_rulings(page)[0]["rule"] == "withdrawn")
    assert table.journal[-1]["kind"] == "undo" and table.session.standing == {}
    check = next(r for r in shown_rulings(page) if r["kind"] == "ruling")
    assert "withdrawn" in check["classes"].split()


def test_naming_a_wilds_colour_on_the_page_sets_the_referees_colour(page, table):
    table.play("r_5", 0)
    table.play("wild", 1)
    wait_for(page, lambda: text(page, "top-card").startswith("wild"))
    assert table.snapshot()["color"] is None and text(page, "active-color") == "none yet"
    click(page, "name-color-g")
    wait_for(page, lambda: element(page, "active-color").get_attribute("data-color") == "g")
    assert table.snapshot()["color"] == "g"
    assert table.journal[-1] == {"t": table.t, "kind": "color", "color": "g"}
    assert "green" in text(page, "feedback")
    table.play("g_2", 2)  # the referee now takes green on the wild: no penalty
    assert table.session.standing == {}


def test_correcting_the_card_on_the_page_changes_the_referees_state(page, table):
    table.play("r_5", 0)
    table.play("g_7", 1)  # the camera saw green, but it was the red 7
    wait_for(page, lambda: any(r["kind"] == "ruling" for r in shown_rulings(page)))
    click(page, "pick-color-r")
    click(page, "pick-value-7")
    assert text(page, "picked-card") == "red 7"
    click(page, "correct-card-btn")
    wait_for(page, lambda: element(page, "top-card").get_attribute("data-card") == "r_7")
    state = table.snapshot()
    assert (state["top"], state["color"]) == ("r_7", "r")
    assert table.journal[-1]["kind"] == "correct" and table.journal[-1]["card"] == "r_7"
    assert table.session.standing == {}  # the illegal-card penalty no longer applies
    wait_for(page, lambda: "withdrawn" in [r["rule"] for r in shown_rulings(page)])
    assert text(page, "active-color") == "red"


def test_setting_who_played_on_the_page_moves_the_turn(page, table):
    table.play("r_5", 0)
    table.play("r_6", 2)  # seat 1's turn: out of turn, unless the camera mistook the seat
    wait_for(page, lambda: any(r["rule"] == "out_of_turn" for r in shown_rulings(page)))
    click(page, "played-by-1")
    wait_for(page, lambda: text(page, "turn") == "Seat 2")
    assert table.snapshot()["top_seat"] == 1 and table.session.standing == {}
    assert table.journal[-1]["kind"] == "correct" and table.journal[-1]["seat"] == 1


def test_stop_and_go_on_the_page_pause_the_referee(page, table):
    table.play("r_5", 0)
    click(page, "stop-btn")
    wait_for(page, lambda: element(page, "paused-banner").is_displayed())
    assert table.snapshot()["paused"] is True
    assert table.journal[-1] == {"t": table.t, "kind": "call", "seat": None, "word": "stop"}
    click(page, "go-btn")
    wait_for(page, lambda: not element(page, "paused-banner").is_displayed())
    assert table.snapshot()["paused"] is False


def test_ending_the_round_on_the_page_scores_the_hands(page, table):
    table.play("r_5", 0)
    click(page, "end-round-btn")
    wait_for(page, lambda: element(page, "hand-1").is_displayed())
    element(page, "hand-1").send_keys("r_9, g_skip")
    element(page, "hand-2").send_keys("b_3")
    click(page, "pick-color-black")
    click(page, "pick-value-wild")
    click(page, "hand-add-2")  # picked with the card picker instead of typed
    assert element(page, "hand-2").get_attribute("value") == "b_3 wild"
    click(page, "submit-round-end")
    wait_for(page, lambda: element(page, "scores").is_displayed())
    assert table.journal[-1]["hands"] == {"0": [], "1": ["r_9", "g_skip"], "2": ["b_3", "wild"],
                                          "3": []}
    scores = page.execute_script(
        "return [...document.querySelectorAll('#scores tbody tr')]"
        ".map(r => [...r.cells].map(c => c.textContent))")
    assert scores == [["Seat 0", "0"], ["Seat 1", "30"], ["Seat 2", "60"], ["Seat 3", "0"]]
    assert table.snapshot()["scores"] == {"0": 0, "1": 30, "2": 60, "3": 0}
    assert not element(page, "round-end-panel").is_displayed()


def test_a_bad_hand_is_explained_on_the_page_and_changes_nothing(page, table):
    table.play("r_5", 0)
    before = list(table.journal)
    click(page, "end-round-btn")
    element(page, "hand-3").send_keys("r_11")
    click(page, "submit-round-end")
    wait_for(page, lambda: element(page, "feedback").get_attribute("data-state") == "error")
    assert "unknown card 'r_11'" in text(page, "feedback")
    assert table.journal == before and element(page, "round-end-panel").is_displayed()


# --- calibration --------------------------------------------------------------------------

def canvas_clicker(driver: Any) -> Callable[[float, float], None]:
    """Clicks on the calibration canvas where frame pixel (x, y) is shown."""
    from selenium.webdriver.common.action_chains import ActionChains

    canvas = element(driver, "calib-canvas")
    shown_w, shown_h, frame_w, frame_h = driver.execute_script(
        "const c = arguments[0], r = c.getBoundingClientRect();"
        "return [r.width, r.height, c.width, c.height];", canvas)

    def click_at(x: float, y: float) -> None:
        # Selenium's offsets are from the element's centre.
        dx = x * shown_w / frame_w - shown_w / 2
        dy = y * shown_h / frame_h - shown_h / 2
        ActionChains(driver, duration=0).move_to_element_with_offset(
            canvas, round(dx), round(dy)).click().perform()

    return click_at


def calibration_step(driver: Any) -> tuple[str, bool]:
    """The step the page prompts for, and whether Save can be pressed."""
    return tuple(driver.execute_script(
        "return [document.getElementById('calib-prompt').dataset.step,"
        " !document.getElementById('calib-save').disabled];"))


def test_the_calibration_clicks_are_saved_into_the_profile(page, table):
    click(page, "open-calibration")
    wait_for(page, lambda: element(page, "calib-prompt").get_attribute("data-step") == "pile")
    assert not element(page, "dashboard").is_displayed()
    canvas = element(page, "calib-canvas")
    assert (int(canvas.get_attribute("width")), int(canvas.get_attribute("height"))) == \
        (FRAME_SIZE[1], FRAME_SIZE[0])
    click_at = canvas_clicker(page)
    clicks = {"pile": (330, 190), "pile_edge": (330, 250), "draw_0": (180, 100),
              "draw_1": (470, 100), "seat_0": (320, 345), "seat_1": (30, 190),
              "seat_2": (320, 15), "seat_3": (610, 190)}
    for step, (x, y) in clicks.items():
        # One prompt at a time, in this order.
        assert calibration_step(page) == (step, False)
        click_at(x, y)
    assert calibration_step(page) == ("done", True)
    click(page, "calib-save")
    wait_for(page, lambda: element(page, "calib-status").get_attribute("data-state") == "saved")
    assert str(table.profile) in text(page, "calib-status")

    saved = json.loads(table.profile.read_text())["camera_clicks"]
    assert (saved["width"], saved["height"]) == (FRAME_SIZE[1], FRAME_SIZE[0])
    near = lambda got, want: all(abs(g - w) <= 2 for g, w in zip(got, want, strict=True))  # noqa: E731
    assert near(saved["pile"], (330, 190, 60))  # the radius is the distance to the edge click
    layout_radii = [p[2] for p in default_layout(4)["draw_piles"]]
    assert near(saved["draw_piles"][0], (180, 100, layout_radii[0]))  # keeps its radius
    assert near(saved["draw_piles"][1], (470, 100, layout_radii[1]))
    assert len(saved["seats"]) == 4
    for seat, (x, y) in enumerate([clicks[f"seat_{k}"] for k in range(4)]):
        assert near(saved["seats"][seat], (x, y))


def test_calibration_can_step_back_and_leave(page, table):
    click(page, "open-calibration")
    wait_for(page, lambda: element(page, "calib-prompt").get_attribute("data-step") == "pile")
    canvas_clicker(page)(100, 100)
    assert calibration_step(page) == ("pile_edge", False)
    click(page, "calib-back-step")
    assert calibration_step(page) == ("pile", False)
    click(page, "calib-close")
    assert element(page, "dashboard").is_displayed() and table.saved == []


# --- the same on the live session ---------------------------------------------------------
# `bruno live`'s own session with no camera or microphone: events fed as its detectors would,
# the session clock running, the journal and the room profile written.

@pytest.fixture
def live(tmp_path: Path) -> Iterator[Any]:
    from bruno.live.session import LiveSession

    session = LiveSession(GameSetup(players=4, dealer=0), journal=tmp_path / "game.jsonl",
                          profile_path=tmp_path / "room.toml").start()
    still = draw_table("r_5", default_layout(4))
    session.show_frame(frame_from_image(still, session.clock.now()))
    try:
        yield session
    finally:
        session.close()


@pytest.fixture
def live_page(browser, live) -> Iterator[Any]:
    with dashboard_open(browser, live) as opened:
        yield opened


CAMERA_GAP_S = 0.05
"""The least time between two cards the camera reports (a hand must leave the pile first)."""


def play_live(live: Any, card: str, seat: int | None) -> None:
    """A card as the camera thread reports it: stamped now on the session clock, later than the
    card before. Two cards fed in the same millisecond would share a time stamp, and the
    referee orders events of one moment by their contents, not by arrival (a fast machine
    once released a green 7 before the red 5 it followed)."""
    t = round(live.clock.now(), 3)
    if live.last_event_t is not None:
        t = max(t, round(live.last_event_t + CAMERA_GAP_S, 3))
    live.feed(parse_event({"t": t, "kind": "card", "card": card, "seat": seat}))


def journal_kinds(live: Any) -> list[str]:
    return [json.loads(line)["kind"] for line in live.journal_path.read_text().splitlines()]


def test_on_the_live_session_a_ruling_appears_and_undo_withdraws_it(live_page, live):
    play_live(live, "r_5", 0)
    play_live(live, "g_7", 1)
    wait_for(live_page, lambda: any(r["rule"] == "illegal_card" for r in shown_rulings(live_page)))
    click(live_page, "undo-btn")
    wait_for(live_page, lambda: shown_rulings(live_page)[0]["rule"] == "withdrawn")
    assert [r["rule"] for r in live.rulings if r["rule"] in ("illegal_card", "withdrawn")] == \
        ["illegal_card", "withdrawn"]
    penalty = next(r for r in shown_rulings(live_page) if r["kind"] == "ruling")
    assert "withdrawn" in penalty["classes"].split()
    assert "undo" in journal_kinds(live)


def test_on_the_live_session_a_colour_correction_changes_the_referees_state(live_page, live):
    play_live(live, "r_5", 0)
    play_live(live, "wild", 1)
    wait_for(live_page, lambda: text(live_page, "top-card").startswith("wild"))
    assert live.snapshot()["color"] is None
    click(live_page, "name-color-b")
    wait_for(live_page, lambda: element(live_page, "active-color").get_attribute("data-color")
             == "b")
    assert live.snapshot()["color"] == "b" and "color" in journal_kinds(live)
    # The camera read the next card as a green 2; it was the blue 2.
    play_live(live, "g_2", 2)
    wait_for(live_page, lambda: any(r["rule"] == "illegal_card" for r in shown_rulings(live_page)))
    click(live_page, "pick-color-b")
    click(live_page, "pick-value-2")
    click(live_page, "correct-card-btn")
    wait_for(live_page, lambda: element(live_page, "top-card").get_attribute("data-card") == "b_2")
    assert (live.snapshot()["top"], live.snapshot()["color"]) == ("b_2", "b")
    assert any(r["rule"] == "withdrawn" and r["seat"] == 2 for r in live.rulings)


def test_on_the_live_session_the_calibration_clicks_are_saved_into_the_room_profile(
        live_page, live):
    from calibration.camera import load_camera_profile

    click(live_page, "open-calibration")
    wait_for(live_page, lambda: element(live_page, "calib-prompt").get_attribute("data-step")
             == "pile")
    click_at = canvas_clicker(live_page)
    pile, edge, draws = (300, 170), (300, 230), [(170, 90), (480, 95)]
    seats = [(300, 350), (20, 170), (300, 10), (620, 170)]  # below, left, above, right
    for x, y in [pile, edge, *draws, *seats]:
        click_at(x, y)
    click(live_page, "calib-save")
    wait_for(live_page, lambda: element(live_page, "calib-status").get_attribute("data-state")
             == "saved")

    camera = load_camera_profile(live.profile_path)
    h, w = FRAME_SIZE
    assert camera.image_size == (h, w)
    cx, cy = camera.pile.centre()
    assert abs(cx * w - pile[0]) <= 2 and abs(cy * h - pile[1]) <= 2
    assert abs(camera.pile.h * h / 2 - 60) <= 2  # radius: the distance to the edge click
    for region, (x, y) in zip(camera.draw_piles, draws, strict=True):
        assert abs(region.centre()[0] * w - x) <= 2 and abs(region.centre()[1] * h - y) <= 2
    assert [round(a) % 360 for a in camera.seat_angles_deg] == [90, 180, 270, 0]


# --- the token ----------------------------------------------------------------------------

def test_the_page_carries_its_token_and_is_refused_without_it(browser, table):
    with start_dashboard(table, token="table-token-for-tests") as dashboard:
        table.play("y_4", 0)
        browser.get(dashboard.url)
        wait_for(browser, lambda: text(browser, "turn") == "Seat 1")  # its API calls got in
        assert text(browser, "connection") == "live"
        browser.get(f"http://127.0.0.1:{dashboard.port}/")
        assert "needs its token" in browser.find_element("tag name", "body").text


# --- the README's screenshot --------------------------------------------------------------

def take_screenshot(out: Path) -> None:
    """The live session in the middle of a game: a round scored, an instick, a penalty
    withdrawn from the dashboard, a missed knock, a wild's colour named."""
    from bruno.live.clock import SessionClock
    from bruno.live.session import LiveSession

    now = [0.0]
    live = LiveSession(GameSetup(players=4, dealer=0),
                       clock=SessionClock(monotonic=lambda: now[0]))

    def at(t: float, **event: Any) -> None:
        now[0] = t
        if event["kind"] in ("card", "knock"):
            # As the camera and the microphone report them.
            live.feed(parse_event({"t": t, **event}))
        else:
            live.submit(event)  # as the dashboard sends them
        tick(t + 0.3)

    def tick(t: float) -> None:
        now[0] = t
        live.advance(t)

    at(1.0, kind="card", card="r_5", seat=0)
    at(3.0, kind="card", card="r_9", seat=1)
    at(5.0, kind="round_end", hands={"0": ["b_2", "wild"], "1": [], "2": ["g_skip", "y_7"],
                                     "3": ["r_3"]})
    at(8.0, kind="card", card="b_4", seat=1)
    at(10.0, kind="card", card="b_8", seat=2)
    at(11.0, kind="card", card="b_8", seat=0)
    at(11.2, kind="knock")
    at(13.0, kind="card", card="g_8", seat=1)
    at(15.0, kind="card", card="g_3", seat=3)
    at(17.0, kind="undo")
    at(19.0, kind="card", card="g_0", seat=2)
    tick(21.0)  # the zero's knock window closes unheard
    at(22.0, kind="card", card="wild", seat=3)
    at(22.4, kind="color", color="b")
    size = (720, 1280)
    still = draw_table("wild", default_layout(4, size))
    live.show_frame(frame_from_image(still, 22.6))
    live.sources = {"camera": "ok", "mic": "ok"}  # as at a real table
    live.speech = SimpleNamespace(speaking=True)
    profile_dir = tempfile.mkdtemp(prefix="bruno-dashboard-chromium-")
    driver = open_browser(profile_dir)
    try:
        with start_dashboard(live) as dashboard:
            driver.get(dashboard.url)
            wait_for(driver, lambda: driver.execute_script(
                "const img = document.getElementById('camera-view');"
                "return !img.hidden && img.complete && img.naturalWidth > 0"))
            wait_for(driver, lambda: len(shown_rulings(driver)) >= 8)
            for _ in range(3):  # the whole page, controls included
                missing = driver.execute_script(
                    "return document.documentElement.scrollHeight - window.innerHeight")
                if missing <= 0:
                    break
                driver.set_window_size(1400, driver.get_window_size()["height"] + missing)
            driver.save_screenshot(str(out))
    finally:
        driver.quit()
        shutil.rmtree(profile_dir, ignore_errors=True)
        live.close()


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/dashboard.png")
    target.parent.mkdir(parents=True, exist_ok=True)
    take_screenshot(target)
    print(f"wrote {target}")
