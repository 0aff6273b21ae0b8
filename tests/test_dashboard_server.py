"""The dashboard's HTTP side: its JSON API over a refereed table, the token, bad requests."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from test_dashboard_table import RefereeTable

from bruno.dashboard import start_dashboard
from bruno.errors import UserError

TOKEN = "s3cret-table-token"


class Reply:
    def __init__(self, status: int, headers: Any, body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body

    def json(self) -> Any:
        return json.loads(self.body)


def call(base: str, path: str, body: Any = None, method: str | None = None,
         headers: dict[str, str] | None = None, raw: bytes | None = None) -> Reply:
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    all_headers = {"Content-Type": "application/json"} if data is not None else {}
    all_headers.update(headers or {})
    request = urllib.request.Request(base + path, data=data, headers=all_headers,
                                     method=method or ("POST" if data is not None else "GET"))
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return Reply(response.status, response.headers, response.read())
    except urllib.error.HTTPError as error:
        with error:
            return Reply(error.code, error.headers, error.read())


@pytest.fixture
def table(tmp_path: Path) -> RefereeTable:
    return RefereeTable(players=4, profile=tmp_path / "room.toml")


@pytest.fixture
def base(table: RefereeTable):
    with start_dashboard(table) as dashboard:
        yield f"http://127.0.0.1:{dashboard.port}"


def test_the_page_is_one_self_contained_file_that_loads_nothing_from_elsewhere(base):
    reply = call(base, "/")
    assert reply.status == 200 and reply.headers["Content-Type"].startswith("text/html")
    page = reply.body.decode()
    assert "<script>" in page and "<style>" in page
    assert "http://" not in page and "https://" not in page and 'src="//' not in page
    assert "default-src 'none'" in reply.headers["Content-Security-Policy"]


def test_state_is_the_tables_snapshot(base, table):
    table.play("y_3", 0)
    state = call(base, "/api/state").json()
    assert state == table.snapshot()
    assert (state["top"], state["turn"], state["color"]) == ("y_3", 1, "y")


def test_a_waiting_rulings_request_answers_as_soon_as_the_referee_rules(base, table):
    table.play("r_5", 0)
    start_index = call(base, "/api/rulings?since=0").json()["next"]
    answers: list[Reply] = []
    waiting = threading.Thread(target=lambda: answers.append(
        call(base, f"/api/rulings?since={start_index}&wait=10")))
    waiting.start()
    time.sleep(0.3)
    assert not answers, "the request should wait for a ruling"
    began = time.monotonic()
    table.play("g_7", 1)  # illegal on the red 5
    waiting.join(timeout=10)
    assert time.monotonic() - began < 2
    reply = answers[0].json()
    assert [r["rule"] for r in reply["rulings"] if r["kind"] == "ruling"] == ["illegal_card"]
    assert reply["next"] == start_index + len(reply["rulings"])


def test_a_rulings_request_with_no_news_returns_empty_after_its_wait(base):
    start = time.monotonic()
    reply = call(base, "/api/rulings?since=0&wait=0.6").json()
    assert reply == {"next": 0, "rulings": []}
    assert 0.5 <= time.monotonic() - start < 3


def test_the_camera_frame_is_a_jpeg_annotated_or_plain(base, table):
    annotated = call(base, "/api/frame.jpg")
    plain = call(base, "/api/frame.jpg?annotated=0")
    assert annotated.status == plain.status == 200
    assert annotated.headers["Content-Type"] == "image/jpeg"
    assert annotated.body[:2] == plain.body[:2] == b"\xff\xd8"
    assert annotated.body != plain.body


def test_no_frame_yet_is_204(tmp_path):
    with start_dashboard(RefereeTable(with_camera=False)) as dashboard:
        assert call(f"http://127.0.0.1:{dashboard.port}", "/api/frame.jpg").status == 204


def test_a_submitted_colour_reaches_the_referee_and_its_rulings_come_back(base, table):
    table.play("r_5", 0)
    table.play("wild", 1)
    reply = call(base, "/api/submit", {"kind": "color", "color": "g"})
    assert reply.status == 200
    assert [r["color"] for r in reply.json()["rulings"] if r["rule"] == "color"] == ["g"]
    assert table.snapshot()["color"] == "g"
    assert table.journal[-1]["kind"] == "color" and "t" in table.journal[-1]


def test_undo_withdraws_the_latest_penalty(base, table):
    table.play("r_5", 0)
    table.play("g_7", 1)
    assert table.session.standing
    reply = call(base, "/api/undo", method="POST")
    assert reply.status == 200
    assert [r["rule"] for r in reply.json()["rulings"]] == ["withdrawn"]
    assert not table.session.standing
    assert table.journal[-1]["kind"] == "undo"


def test_a_check_is_confirmed_or_dismissed_with_one_event_each_journaled(base, table):
    table.play("r_5", 0)
    table.play("r_6", 2)  # the next seat, before seat 1 was seen drawing: unsure
    table.play("r_7", 3)
    _, rulings = table.rulings_since(0)
    (check,) = [r for r in rulings if r["kind"] == "ruling"]
    assert check["confidence"] < table.snapshot()["announce_min_confidence"]
    picture = call(base, f"/api/check.jpg?t={check['t']}")
    assert picture.status == 200 and picture.body[:2] == b"\xff\xd8"  # a JPEG
    reply = call(base, "/api/submit", {"kind": "confirm", "ruling_t": check["t"]})
    assert reply.status == 200
    (confirmed,) = reply.json()["rulings"]
    assert confirmed["kind"] == "ruling" and confirmed["confidence"] == 1.0
    assert (confirmed["rule"], confirmed["seat"]) == ("out_of_turn", 2)
    assert table.journal[-1] == {"t": table.journal[-1]["t"], "kind": "confirm",
                                 "ruling_t": check["t"]}
    reply = call(base, "/api/submit", {"kind": "undo", "ruling_t": check["t"]})
    assert [r["rule"] for r in reply.json()["rulings"]] == ["withdrawn"]
    assert table.journal[-1]["kind"] == "undo" and not table.session.standing


@pytest.mark.parametrize(
    ("raw", "complaint"),
    [
        (b"{not json", "not JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b'{"kind": "card", "card": "r_5", "seat": 0}', "unknown kind 'card'"),
        (b'{"kind": "color", "color": "g", "t": 3}', "leave 't' out"),
        (b'{"kind": "color", "color": "purple"}', "colour"),  # the referee's own reason
        (b'{"kind": "round_end", "hands": {"0": ["r_11"]}}', "unknown card 'r_11'"),
        (b"", "no body"),
    ],
)
def test_a_bad_event_is_400_with_a_one_line_reason(base, table, raw, complaint):
    before = len(table.journal)
    reply = call(base, "/api/submit", raw=raw, method="POST")
    assert reply.status == 400
    error = reply.json()["error"]
    assert complaint in error and "\n" not in error
    assert len(table.journal) == before


def test_an_event_not_sent_as_json_is_refused(base, table):
    # A page on another site can POST text/plain to 127.0.0.1 without the browser asking.
    reply = call(base, "/api/submit", raw=b'{"kind": "undo"}', method="POST",
                 headers={"Content-Type": "text/plain"})
    assert reply.status == 400 and "application/json" in reply.json()["error"]
    assert table.journal == []


def test_calibration_reads_the_layout_and_saves_clicks_into_the_profile(base, table):
    layout = call(base, "/api/calibration").json()
    assert layout == table.layout
    clicks = {"width": 640, "height": 360, "pile": [320, 200, 60],
              "draw_piles": [[190, 110, 40], [450, 110, 40]],
              "seats": [[320, 340], [40, 200], [320, 20], [600, 200]]}
    reply = call(base, "/api/calibration", clicks)
    assert reply.status == 200 and reply.json() == {"saved": str(table.profile)}
    assert table.saved == [{**clicks, "pile": [320.0, 200.0, 60.0]} | {
        "draw_piles": [[190.0, 110.0, 40.0], [450.0, 110.0, 40.0]],
        "seats": [[320.0, 340.0], [40.0, 200.0], [320.0, 20.0], [600.0, 200.0]]}]
    assert json.loads(table.profile.read_text())["camera_clicks"]["pile"] == [320, 200, 60]


@pytest.mark.parametrize(
    ("clicks", "complaint"),
    [
        ({"pile": [1, 2], "draw_piles": [[1, 1, 1]] * 2, "seats": [[1, 1]] * 2}, "'pile' must be"),
        ({"pile": [1, 2, 3], "draw_piles": [[1, 1, 1]], "seats": [[1, 1]] * 2}, "'draw_piles'"),
        ({"pile": [1, 2, 3], "draw_piles": [[1, 1, 1]] * 2, "seats": [[1, 1]]}, "'seats'"),
        ({"pile": [1, 2, 0], "draw_piles": [[1, 1, 1]] * 2, "seats": [[1, 1]] * 2}, "radius"),
        ({"width": 640, "height": 360, "pile": [700, 2, 3], "draw_piles": [[1, 1, 1]] * 2,
          "seats": [[1, 1]] * 2}, "outside the frame"),
        ({"pile": [1, 2, 3], "draw_piles": [[1, 1, 1]] * 2, "seats": [[1, 1]] * 2, "zoom": 2},
         "unknown calibration field 'zoom'"),
    ],
)
def test_bad_calibration_clicks_are_400_and_nothing_is_saved(base, table, clicks, complaint):
    reply = call(base, "/api/calibration", clicks)
    assert reply.status == 400 and complaint in reply.json()["error"]
    assert table.saved == [] and not table.profile.exists()


def test_unknown_pages_and_wrong_methods_are_named(base):
    assert call(base, "/nothing").status == 404
    reply = call(base, "/api/state", {"kind": "undo"})
    assert reply.status == 405 and "GET" in reply.json()["error"]
    assert call(base, "/api/rulings?since=x").status == 400
    for method in ("PUT", "DELETE", "PATCH", "OPTIONS"):  # JSON answers, not http.server's HTML
        reply = call(base, "/api/state", method=method)
        assert reply.status == 405 and "GET" in reply.json()["error"]


@pytest.mark.parametrize(("path", "raw"), [
    ("/api/rulings?since=" + "9" * 400, None),
    ("/api/submit", b'{"kind": "undo", "ruling_t": ' + b"9" * 400 + b"}"),
    ("/api/submit", b"[" * 60_000),
])
def test_numbers_too_large_and_bodies_nested_too_deep_are_400(base, table, path, raw):
    reply = call(base, path, raw=raw, method="POST" if raw is not None else "GET")
    assert reply.status == 400 and "\n" not in reply.json()["error"]
    assert call(base, "/api/state").status == 200


def test_a_swap_is_sent_like_any_manual_event(base, table):
    reply = call(base, "/api/submit", {"kind": "swap", "seat": 0, "with": 2})
    assert reply.status == 200
    assert table.journal[-1]["kind"] == "swap" and table.journal[-1]["with"] == 2


def test_a_failing_backend_gives_500_with_one_line_and_the_server_keeps_serving(base, table):
    def broken(annotated: bool = True) -> bytes:
        raise RuntimeError("camera thread died\nwith a long story")

    table.frame_jpeg = broken
    reply = call(base, "/api/frame.jpg")
    assert reply.status == 500
    assert reply.json()["error"] == "the live session failed: RuntimeError: camera thread died"
    assert call(base, "/api/state").status == 200


def test_a_backend_answer_that_is_not_json_is_the_backends_fault(base, table):
    table.snapshot = lambda: {"clock": float("nan")}
    reply = call(base, "/api/state")
    assert reply.status == 500 and "not JSON" in reply.json()["error"]


def test_an_oversized_body_is_refused_unread(base, table):
    reply = call(base, "/api/submit", raw=b"{" + b" " * 70_000 + b"}", method="POST")
    assert reply.status == 400 and "at most" in reply.json()["error"]
    assert table.journal == []


def test_a_request_naming_another_host_is_refused_on_loopback(base):
    # DNS rebinding: a page on evil.example resolves its own name to 127.0.0.1.
    reply = call(base, "/api/state", headers={"Host": "evil.example"})
    assert reply.status == 403
    assert call(base, "/api/state", headers={"Host": "localhost"}).status == 200


# --- listening beyond this machine --------------------------------------------------------

def test_listening_on_another_address_without_a_token_is_refused(table):
    with pytest.raises(UserError, match="token"):
        start_dashboard(table, host="0.0.0.0")


def test_a_short_token_is_refused(table):
    with pytest.raises(UserError, match="at least 8 characters"):
        start_dashboard(table, host="0.0.0.0", token="1234")


def test_on_another_address_every_request_needs_the_token(table):
    with start_dashboard(table, host="0.0.0.0", token=TOKEN) as dashboard:
        assert dashboard.url.endswith(f":{dashboard.port}/?token={TOKEN}")
        base = f"http://127.0.0.1:{dashboard.port}"
        for path in ("/", "/api/state", "/api/rulings", "/api/frame.jpg", "/api/calibration"):
            refused = call(base, path)
            assert refused.status == 403, path
            assert "token" in refused.json()["error"]
        assert call(base, "/api/submit", {"kind": "undo"}).status == 403
        assert call(base, "/api/state?token=wrong-token-guess").status == 403
        assert table.journal == []
        assert call(base, f"/?token={TOKEN}").status == 200
        assert call(base, "/api/state", headers={"X-Bruno-Token": TOKEN}).status == 200
        assert call(base, "/api/undo", method="POST",
                    headers={"X-Bruno-Token": TOKEN}).status == 200


def test_stop_closes_the_port_even_while_a_request_waits(table):
    dashboard = start_dashboard(table)
    base = f"http://127.0.0.1:{dashboard.port}"
    waiting = threading.Thread(target=lambda: call(base, "/api/rulings?since=0&wait=20"),
                               daemon=True)
    waiting.start()
    time.sleep(0.2)
    began = time.monotonic()
    dashboard.stop()
    waiting.join(timeout=3)
    assert not waiting.is_alive() and time.monotonic() - began < 3
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(base + "/api/state", timeout=2)


def test_a_chunked_body_is_refused_in_json(base, table):
    import http.client

    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.request("POST", "/api/submit", body=iter([b'{"kind": "undo"}']),
                       headers={"Content-Type": "application/json",
                                "Transfer-Encoding": "chunked"})
    reply = connection.getresponse()
    assert reply.status == 400 and "not chunked" in json.loads(reply.read())["error"]
    assert table.journal == []
