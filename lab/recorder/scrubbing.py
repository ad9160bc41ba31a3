"""What a recording keeps of each exchange: no header that could hold a key or identify the
account, the public base URL instead of the loopback one, and no answer the client retries."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from vcr.request import Request as VcrRequest

from lab.recorder.providers import ProviderSpec

__all__ = [
    "FILTERED_QUERY_PARAMETERS",
    "FILTERED_REQUEST_HEADERS",
    "KEPT_REQUEST_HEADERS",
    "KEPT_RESPONSE_HEADERS",
    "RETRIED_STATUSES",
    "public_uri",
    "request_scrubber",
    "scrub_response",
]

FILTERED_REQUEST_HEADERS = (
    "authorization",
    "cookie",
    "set-cookie",
    "host",
    "x-api-key",
    "api-key",
    "openai-organization",
)
"""Request headers never written to a cassette."""
KEPT_REQUEST_HEADERS = frozenset({"content-type"})
"""The only request headers written to a cassette (the rest is noise or identifies the client)."""
KEPT_RESPONSE_HEADERS = frozenset({"content-type"})
"""The only response headers written to a cassette (the others can identify the account)."""
FILTERED_QUERY_PARAMETERS = ("api_key", "key", "token")
RETRIED_STATUSES = frozenset({408, 409, 429})
"""Besides 5xx: answers the client retries, so they are left out of the recording."""


def request_scrubber(provider: ProviderSpec, key: str) -> Callable[[VcrRequest], VcrRequest]:
    """Keeps only the content type (never a header holding the key); points the URI at the
    public base URL."""
    base, public = provider.base_url.rstrip("/"), provider.public_base_url.rstrip("/")

    def scrub(request: VcrRequest) -> VcrRequest:
        request.headers = {
            name: value
            for name, value in request.headers.items()
            if name.lower() in KEPT_REQUEST_HEADERS and key not in str(value)
        }
        request.uri = public_uri(request.uri, base, public)
        return request

    return scrub


def public_uri(uri: str, base: str, public: str) -> str:
    if uri.startswith(base):
        return public + uri[len(base) :]
    target = urlsplit(public)
    return urlunsplit(urlsplit(uri)._replace(scheme=target.scheme, netloc=target.netloc))


def scrub_response(response: dict[str, Any]) -> dict[str, Any] | None:
    """Keeps only the content type; drops answers the client retries (never replayed)."""
    status = int(response["status"]["code"])
    if status in RETRIED_STATUSES or status >= 500:
        return None
    headers = response.get("headers") or {}
    response["headers"] = {k: v for k, v in headers.items() if k.lower() in KEPT_RESPONSE_HEADERS}
    return response
