"""Which configured values are credentials: header values, and the forms a credential takes on
the wire, so that a provider's error text that echoes any of them is redacted like the key.

Layer: providers (private; :class:`~footprint_lab.providers._common.SDKProvider` reads it when
it is built). A header carries a credential when its name (case-insensitive) is one of
:data:`CREDENTIAL_HEADERS`, contains one of :data:`CREDENTIAL_WORDS`, or is one the caller
marked with ``secret_headers=``. Each such value is a secret as written, and so are the
credentials after an auth scheme (``Bearer <token>``), what a ``Basic`` token decodes to
(``user:password``, each part) and each cookie's value. The userinfo of a ``base_url`` is sent
as ``Authorization: Basic <base64 of user:password>``; that base64 is a secret too.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Collection, Iterable, Mapping
from typing import Any
from urllib.parse import unquote

from pydantic import SecretStr

SECRET_MIN_CHARS = 6
"""Derived parts of a credential (a URL's userinfo and query values, a header's token, a
cookie's value) at least this long are redacted from error messages; shorter ones, like
``?v=1``, would mangle ordinary words."""

CREDENTIAL_HEADERS: frozenset[str] = frozenset(
    {"authorization", "proxy-authorization", "api-key", "x-api-key", "cookie"}
)
"""Header names (lower case) whose values are always credentials."""

CREDENTIAL_WORDS: tuple[str, ...] = ("auth", "key", "token", "secret", "password", "cookie")
"""A header whose name contains one of these (``X-Auth-Token``,
``Ocp-Apim-Subscription-Key``, ``x-goog-api-key``) is a credential too."""


def marked_headers(secret_headers: Collection[str] | str | None) -> frozenset[str]:
    """The header names a caller marked secret, lower-cased (one name given as a string is
    one name, not its letters)."""
    if not secret_headers:
        return frozenset()
    names = [secret_headers] if isinstance(secret_headers, str) else list(secret_headers)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"secret_headers= takes header names (text), got {name!r}")
    return frozenset(name.strip().lower() for name in names)


def is_credential_header(name: str, marked: Collection[str] = ()) -> bool:
    """Whether the header ``name`` carries a credential (see the module docstring)."""
    lowered = name.strip().lower()
    return (
        lowered in CREDENTIAL_HEADERS
        or lowered in marked
        or any(word in lowered for word in CREDENTIAL_WORDS)
    )


def split_headers(
    headers: Mapping[str, Any] | None, secret_headers: Collection[str] | str | None = None
) -> tuple[dict[str, Any], dict[str, SecretStr]]:
    """``headers`` as (the ordinary ones, the credential ones as ``SecretStr``): a provider
    keeps the second kind the way it keeps its key, out of reprs and ``vars``."""
    marked = marked_headers(secret_headers)
    public: dict[str, Any] = {}
    secret: dict[str, SecretStr] = {}
    for name, value in (headers or {}).items():
        if isinstance(name, str) and isinstance(value, str) and is_credential_header(name, marked):
            secret[name] = SecretStr(value)
        else:
            public[name] = value
    return public, secret


def _long(values: Iterable[str]) -> list[str]:
    return [v for v in values if len(v) >= SECRET_MIN_CHARS]


def _decoded_basic(token: str) -> list[str]:
    try:
        decoded = base64.b64decode(token, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return []
    user, _, password = decoded.partition(":")
    return [decoded, user, password]


def header_secrets(value: str) -> list[str]:
    """The secrets in one credential header's value: the value as written; the credentials
    after its scheme (``Bearer``, ``Basic``, ``Token`` ...), and for ``Basic`` what they
    decode to and each part; each ``name=value`` pair's value (cookies)."""
    value = value.strip()
    found = [value]
    scheme, _, credentials = value.partition(" ")
    credentials = credentials.strip()
    if credentials:
        found.append(credentials)
        if scheme.lower() == "basic":
            found.extend(_decoded_basic(credentials))
    for pair in value.split(";"):
        found.append(pair.partition("=")[2].strip())
    return sorted(set(_long(found)), key=len, reverse=True)


def basic_auth_forms(user: str, password: str) -> list[str]:
    """How a URL's userinfo goes on the wire: the base64 of ``user:password`` in a ``Basic``
    header, as written and percent-decoded (httpx sends the decoded form)."""
    forms = {
        base64.b64encode(f"{u}:{p}".encode()).decode()
        for u, p in ((user, password), (unquote(user), unquote(password)))
    }
    return sorted(forms, key=len, reverse=True)
