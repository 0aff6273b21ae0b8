"""The dashboard's web server: the standard library's threading HTTP server on a background
thread, answering the page and a small JSON API over a `DashboardBackend`.

    GET  /                       the page (one self-contained HTML file)
    GET  /api/state              backend.snapshot()
    GET  /api/rulings?since=N&wait=S
                                 rulings from position N on, waiting up to S seconds for one
                                 (long poll): {"next": M, "rulings": [...]}
    GET  /api/frame.jpg?annotated=1|0
    GET  /api/check.jpg?t=RULING_T       the frame kept when that unsure penalty was decided
                                 the newest camera frame (204 before the first)
    POST /api/submit             a manual event (JSON) -> {"rulings": [...]}
    POST /api/undo               withdraw the latest penalty -> {"rulings": [...]}
    GET  /api/calibration        backend.camera_calibration()
    POST /api/calibration        clicks on the still frame -> {"saved": "PATH"}

Errors are JSON `{"error": "one line"}`: 400 for a bad request, 403 without the token.
"""

from __future__ import annotations

import json
import logging
import math
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from bruno.dashboard.access import (
    TOKEN_HEADER,
    TOKEN_PARAM,
    check_bind,
    is_loopback,
    token_matches,
)
from bruno.dashboard.bodies import (
    MAX_BODY_BYTES,
    BadRequest,
    calibration_clicks,
    decode_json,
    manual_event,
)
from bruno.errors import UserError
from bruno.live.backend import DashboardBackend

log = logging.getLogger(__name__)

LONG_POLL_MAX_S = 20.0
"""The longest a rulings request waits: well under the 30-60 s after which proxies and
browsers give up on a quiet request."""
POLL_SLICE_S = 0.5
"""A waiting request asks the backend in slices this long, so `stop()` never waits longer."""
PAGE_FILE = "page.html"

# Content-Security-Policy: the page may talk to this server only, and loads nothing from
# elsewhere (it must work at a table with no internet).
_PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; img-src 'self' blob: data:; "
                               "style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
                               "connect-src 'self'; base-uri 'none'; form-action 'none'",
    "Referrer-Policy": "no-referrer",  # the URL may hold the token
    "X-Frame-Options": "DENY",
}


@dataclass
class Dashboard:
    """A running dashboard. `url` opens the page (with `?token=` when there is one)."""

    url: str
    host: str
    port: int
    token: str | None
    _server: _Server = field(repr=False)
    _thread: threading.Thread = field(repr=False)

    def stop(self) -> None:
        """Stop serving and close the socket; requests still waiting end within a slice."""
        self._server.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Dashboard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_dashboard(backend: DashboardBackend, host: str = "127.0.0.1", port: int = 0,
                    token: str | None = None) -> Dashboard:
    """Serve the dashboard for `backend` on `host`:`port` (0: any free port) from a background
    thread. Anywhere but a loopback address needs a `token` (UserError without one)."""
    return bind_dashboard(host, port, token).serve(backend)


def bind_dashboard(host: str = "127.0.0.1", port: int = 0,
                   token: str | None = None) -> BoundDashboard:
    """The dashboard's socket, bound and listening but not yet answering (`serve` starts it):
    `bruno live` binds it before it writes anything, so a port in use or a bad address is
    refused before a journal exists. Raises UserError, as `start_dashboard`."""
    check_bind(host, token)
    try:
        page = resources.files(__package__).joinpath(PAGE_FILE).read_bytes()
    except OSError:
        raise UserError(f"the dashboard's page ({__package__}/{PAGE_FILE}) is missing from "
                        "this installation; reinstall bruno-referee") from None
    server_class = _Server6 if ":" in host else _Server
    try:
        server = server_class((host.strip("[]"), port), _Handler)
    except OSError as error:
        reason = error.strerror or error
        raise UserError(f"the dashboard cannot listen on {host}:{port} ({reason}); "
                        "choose another port or address") from None
    server.token, server.page = token, page
    server.loopback_only = is_loopback(host)
    return BoundDashboard(host, token, server)


@dataclass
class BoundDashboard:
    """A dashboard bound to its address (`bind_dashboard`); `serve(backend)` starts it,
    `close()` gives the address back unused."""

    host: str
    token: str | None
    _server: _Server = field(repr=False)

    def serve(self, backend: DashboardBackend) -> Dashboard:
        server = self._server
        server.backend = backend
        bound_port = server.server_address[1]
        thread = threading.Thread(target=server.serve_forever,
                                  kwargs={"poll_interval": 0.05},
                                  name=f"dashboard:{bound_port}", daemon=True)
        thread.start()
        url = f"http://{_browsable_host(self.host)}:{bound_port}/"
        if self.token is not None:
            url += f"?{TOKEN_PARAM}={quote(self.token, safe='')}"
        return Dashboard(url, self.host, bound_port, self.token, server, thread)

    def close(self) -> None:
        self._server.server_close()


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a waiting request never keeps the program alive
    request_queue_size = 64  # several phones at a table connect at once (5 dropped some)
    backend: DashboardBackend
    token: str | None
    page: bytes
    loopback_only: bool

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        self.stopping = threading.Event()
        super().__init__(address, handler)


class _Server6(_Server):
    address_family = socket.AF_INET6


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"  # keep-alive: the page polls state and frames all the time
    server_version = "bruno-dashboard"
    timeout = 30  # a client that stops sending (a body shorter than it said) frees its thread

    def _dispatch_request(self) -> None:
        self._dispatch(self.command)

    # GET and POST are served; every other method gets the same JSON answer (405) as a wrong
    # method on a known page.
    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _dispatch_request

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)

    # --- dispatch ------------------------------------------------------------------------

    def _dispatch(self, method: str) -> None:
        url = urlsplit(self.path)
        self.query = parse_qs(url.query)
        refusal = self._refusal()
        if refusal is not None:
            self.close_connection = True
            self._send_json({"error": refusal}, HTTPStatus.FORBIDDEN)
            return
        routes = _ROUTES.get(url.path)
        if routes is None:
            self._send_error(HTTPStatus.NOT_FOUND, f"no such page: {url.path}")
            return
        route = routes.get(method)
        if route is None:
            self._send_error(HTTPStatus.METHOD_NOT_ALLOWED, f"{url.path} takes "
                             f"{' or '.join(routes)}, not {method}")
            return
        try:
            route(self)
        except BadRequest as error:
            self._send_error(HTTPStatus.BAD_REQUEST, str(error))
        except ValueError as error:  # the backend's one-line reason for a malformed event
            self._send_error(HTTPStatus.BAD_REQUEST, _one_line(error))
        except (OverflowError, RecursionError):  # a 400-digit number, [[[[... 60 kB deep
            self._send_error(HTTPStatus.BAD_REQUEST, "a number too large or a body nested too "
                             "deep; send the event as the page does")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the page went away mid-answer (reload, closed tab)
        except Exception as error:
            log.exception("dashboard: %s %s failed", method, url.path)
            self._send_error(HTTPStatus.INTERNAL_SERVER_ERROR,
                             f"the live session failed: {type(error).__name__}: "
                             f"{_one_line(error)}")

    def _refusal(self) -> str | None:
        """Why this request may not pass, or None."""
        offered = self.headers.get(TOKEN_HEADER) or _first(self.query, TOKEN_PARAM)
        if not token_matches(offered, self.server.token):
            return "this dashboard needs its token: open the full URL that bruno live printed"
        if self.server.loopback_only and not _is_local_host_header(self.headers.get("Host")):
            # A web page elsewhere could reach 127.0.0.1 through a DNS name it controls
            # (DNS rebinding); such requests name that host, not this machine.
            return "this dashboard answers only to 127.0.0.1 or localhost"
        return None

    # --- routes --------------------------------------------------------------------------

    def _page(self) -> None:
        self._send(HTTPStatus.OK, self.server.page, "text/html; charset=utf-8", _PAGE_HEADERS)

    def _state(self) -> None:
        self._send_json(self.server.backend.snapshot())

    def _rulings(self) -> None:
        since = _number_param(self.query, "since", 0, int, 0, math.inf)
        wait_s = _number_param(self.query, "wait", 0.0, float, 0.0, LONG_POLL_MAX_S)
        deadline = time.monotonic() + wait_s
        backend, stopping = self.server.backend, self.server.stopping
        while True:
            remaining = deadline - time.monotonic()
            next_index, rulings = backend.rulings_since(since, max(0.0, min(POLL_SLICE_S,
                                                                           remaining)))
            if rulings or remaining <= POLL_SLICE_S or stopping.is_set():
                break
        self._send_json({"next": next_index, "rulings": rulings})

    def _frame(self) -> None:
        annotated = _number_param(self.query, "annotated", 1, int, 0, 1) == 1
        jpeg = self.server.backend.frame_jpeg(annotated=annotated)
        if jpeg is None:
            self._send(HTTPStatus.NO_CONTENT, b"", None)
        else:
            self._send(HTTPStatus.OK, jpeg, "image/jpeg")

    def _check_frame(self) -> None:
        ruling_t = _number_param(self.query, "t", -1.0, float, -1.0, math.inf)
        jpeg = None if ruling_t < 0 else self.server.backend.check_jpeg(ruling_t)
        if jpeg is None:
            self._send(HTTPStatus.NO_CONTENT, b"", None)
        else:
            self._send(HTTPStatus.OK, jpeg, "image/jpeg")

    def _submit(self) -> None:
        event = manual_event(self._json_body())
        self._send_json({"rulings": self.server.backend.submit(event)})

    def _undo(self) -> None:
        self._json_body(optional=True)
        self._send_json({"rulings": self.server.backend.submit({"kind": "undo"})})

    def _calibration(self) -> None:
        self._send_json(self.server.backend.camera_calibration())

    def _save_calibration(self) -> None:
        clicks = calibration_clicks(self._json_body())
        path = self.server.backend.save_camera_calibration(clicks)
        self._send_json({"saved": str(path)})

    # --- reading and answering -----------------------------------------------------------

    def _json_body(self, optional: bool = False) -> Any:
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True  # its unread chunks would be taken for a request
            raise BadRequest("send the body whole, with a Content-Length (not chunked)")
        length_header = self.headers.get("Content-Length")
        try:
            length = int(length_header) if length_header is not None else 0
        except ValueError:
            self.close_connection = True
            raise BadRequest(f"Content-Length {length_header!r} is not a number") from None
        if length > MAX_BODY_BYTES or length < 0:
            self.close_connection = True  # the unread body would be taken for the next request
            raise BadRequest(f"the body is {length} bytes; the dashboard takes at most "
                             f"{MAX_BODY_BYTES}")
        raw = self.rfile.read(length) if length else b""
        if optional and not raw:
            return None
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if content_type != "application/json":
            # A page elsewhere can POST text/plain to localhost without asking; JSON it cannot.
            raise BadRequest(f"send the body as application/json, not {content_type or 'nothing'}")
        return decode_json(raw)

    def _send_json(self, value: Any, status: HTTPStatus = HTTPStatus.OK) -> None:
        try:
            body = json.dumps(value, allow_nan=False).encode("utf-8")
        except (TypeError, ValueError) as error:  # the backend's fault, not the request's
            raise RuntimeError(f"its answer is not JSON ({error})") from None
        self._send(status, body, "application/json")

    def _send_error(self, status: HTTPStatus, message: str) -> None:
        try:
            self._send_json({"error": message}, status)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client left before its answer

    def _send(self, status: HTTPStatus, body: bytes, content_type: str | None,
              headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        if content_type is not None:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if body:
            self.wfile.write(body)


_Route = Callable[[_Handler], None]
_ROUTES: dict[str, dict[str, _Route]] = {
    "/": {"GET": _Handler._page},
    "/api/state": {"GET": _Handler._state},
    "/api/rulings": {"GET": _Handler._rulings},
    "/api/frame.jpg": {"GET": _Handler._frame},
    "/api/check.jpg": {"GET": _Handler._check_frame},
    "/api/submit": {"POST": _Handler._submit},
    "/api/undo": {"POST": _Handler._undo},
    "/api/calibration": {"GET": _Handler._calibration, "POST": _Handler._save_calibration},
}


def _first(query: dict[str, list[str]], name: str) -> str | None:
    values = query.get(name)
    return values[0] if values else None


def _number_param(query: dict[str, list[str]], name: str, default: float, kind: type,
                  least: float, most: float) -> Any:
    """A numeric query parameter clamped to [least, most]; BadRequest when not a number."""
    raw = _first(query, name)
    if raw is None:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise BadRequest(f"'{name}' must be a number, got {raw!r}") from None
    if not math.isfinite(value):
        raise BadRequest(f"'{name}' must be a finite number, got {raw!r}")
    return kind(min(max(value, least), most))


def _is_local_host_header(host_header: str | None) -> bool:
    if not host_header:
        return False
    host = urlsplit(f"//{host_header}").hostname or ""
    return is_loopback(host)


def _one_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _browsable_host(host: str) -> str:
    """The address to print for people: a wildcard bind is reached through this machine's
    address on the network."""
    if host in ("", "0.0.0.0", "::", "[::]"):
        host = _network_address()
    return f"[{host.strip('[]')}]" if ":" in host else host


def _network_address() -> str:
    """This machine's address on its network (no packet is sent: connecting a UDP socket only
    picks the outgoing interface); its host name when there is no network."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))
            return probe.getsockname()[0]
    except OSError:
        return socket.gethostname()
