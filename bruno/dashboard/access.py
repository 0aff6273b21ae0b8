"""Who may use the dashboard: anyone on this machine, or whoever holds the token.

Bound to a loopback address the dashboard is private to this machine and the token is optional.
Bound to any other address it is reachable by the whole network, so a token is required and
every request must carry it (`?token=...` in the URL or the `X-Bruno-Token` header);
`bruno live` makes one (`token_for`) when none is given.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets

from bruno.errors import UserError

TOKEN_HEADER = "X-Bruno-Token"
TOKEN_PARAM = "token"
MIN_TOKEN_CHARS = 8
"""A shorter token is guessable by anyone on the network who tries for a minute."""


def is_loopback(host: str) -> bool:
    """Whether `host` only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything, so treat it as public


def check_bind(host: str, token: str | None) -> None:
    """Refuse to listen beyond this machine without a token (UserError, one line)."""
    _check_length(token)
    if token is None and not is_loopback(host):
        raise UserError(f"the dashboard on {host} would be open to the whole network; "
                        "give it a token, or listen on 127.0.0.1")


def token_for(host: str, token: str | None) -> str | None:
    """The token a dashboard on `host` uses: `token` when given (UserError when it is too
    short), else a new one when `host` reaches beyond this machine, else None."""
    _check_length(token)
    if token is None and not is_loopback(host):
        return new_token()
    return token


def _check_length(token: str | None) -> None:
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        raise UserError(f"the dashboard token must be at least {MIN_TOKEN_CHARS} characters; "
                        "leave --token out to have one made for you")


def new_token() -> str:
    """A fresh random token (URL-safe, 128 bits)."""
    return secrets.token_urlsafe(16)


def token_matches(offered: str | None, token: str | None) -> bool:
    """Whether a request offering `offered` may pass (always, when there is no token)."""
    if token is None:
        return True
    if offered is None:
        return False
    # Constant time: the token must not leak one character at a time through response times.
    return hmac.compare_digest(offered.encode(), token.encode())
