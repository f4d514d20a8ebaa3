"""The fetch guard: GET one http(s) page, talking only to public addresses.

Every address a host resolves to must pass :data:`address_policy` (by default
:func:`is_public_address`), redirects are followed by hand and re-checked at every hop, and
the connection goes to the very address that was checked (see :func:`fetch_url`), so DNS
rebinding cannot slip a private address in between the check and the connection. Bodies
must be text, HTML or JSON and are read in bounded pieces up to a size limit.

``httpx`` is imported only when a fetch runs.
"""

from __future__ import annotations

import codecs
import ipaddress
import re
import socket
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from benchsmith.errors import InputRejectedError, ToolTimeoutError, ToolUnavailableError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

FETCH_TIMEOUT_S = 10.0
MAX_REDIRECTS = 5


# -- address policy -------------------------------------------------------------------------
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def address_problem(ip: IPAddress) -> str | None:
    """Why ``ip`` is not a public address, or None if it is one.

    IPv4-mapped IPv6 addresses (``::ffff:a.b.c.d``) are always refused (a socket would reach
    the IPv4 address behind them); 6to4, Teredo and NAT64 addresses are judged by the IPv4
    address they embed as well.

    Args:
        ip: The address.

    Returns:
        A short description of what is wrong with it (``"a loopback address"``, ...), or
        None for a public address.
    """
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return f"an IPv4-mapped IPv6 address (of {ip.ipv4_mapped})"
        embedded = _embedded_ipv4(ip)
        if embedded is not None and (inner := address_problem(embedded)):
            return f"an IPv6 address embedding {embedded}, {inner}"
    for flag, what in (
        ("is_unspecified", "an unspecified address"),
        ("is_loopback", "a loopback address"),
        ("is_link_local", "a link-local address"),
        ("is_multicast", "a multicast address"),
        ("is_private", "a private address"),
        ("is_reserved", "a reserved address"),
    ):
        if getattr(ip, flag):
            return what
    if not ip.is_global:
        return "not a globally routable address"
    return None


def is_public_address(ip: IPAddress) -> bool:
    """The default address policy: True only for public, globally routable unicast addresses.

    Args:
        ip: The address.

    Returns:
        Whether :func:`address_problem` finds nothing wrong with it.
    """
    return address_problem(ip) is None


AddressPolicy = Callable[[IPAddress], bool]

#: The policy :func:`fetch_url` applies when given none; tests replace it (monkeypatch) to
#: allow exactly one local test server.
address_policy: AddressPolicy = is_public_address


# -- fetch ----------------------------------------------------------------------------------
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_HEADERS = {
    "User-Agent": "benchsmith/0.1 (+web_fetch)",
    "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,"
    "text/*;q=0.8",
    "Accept-Encoding": "gzip, deflate, identity",
}


@dataclass(frozen=True)
class FetchedPage:
    """A fetched page: where it ended up, what it is, and its (capped) body."""

    url: str
    final_url: str
    status: int
    content_type: str
    charset: str | None
    body: bytes
    redirects: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Target:
    scheme: str
    host: str  # as in the URL (IDNA-encoded), for the Host header, SNI and certificates
    port: int
    addresses: list[IPAddress]
    path: str
    query: str
    literal: bool

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"

    def url_for(self, ip: IPAddress) -> str:
        netloc = f"[{ip}]:{self.port}" if ip.version == 6 else f"{ip}:{self.port}"
        return urlunsplit((self.scheme, netloc, self.path or "/", self.query, ""))


class _Refused(Exception):
    """A URL failed a check; becomes an InputRejectedError naming the URL and the hop."""


def _check_url(url: str, policy: AddressPolicy) -> _Target:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise _Refused(f"it is not a valid URL ({exc})") from exc
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise _Refused(f"scheme {scheme or '(none)'!r} is not allowed (only http and https)")
    if parts.username is not None or parts.password is not None:
        raise _Refused("URLs with credentials are not fetched")
    host = parts.hostname
    if not host:
        raise _Refused("it has no host")
    port = port or (443 if scheme == "https" else 80)
    literal = _ip_literal(host)
    if literal is not None:
        addresses: list[IPAddress] = [literal]
    else:
        host, addresses = _resolve(host, port, url)
    for ip in addresses:
        if not policy(ip):
            what = address_problem(ip) or "refused by the address policy"
            where = f"address {ip}" if literal else f"host {host!r} resolves to {ip}"
            raise _Refused(f"{where}, which is {what}; only public addresses are fetched")
    return _Target(scheme, host, port, addresses, parts.path, parts.query, literal is not None)


def _ip_literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _resolve(host: str, port: int, url: str) -> tuple[str, list[IPAddress]]:
    """The IDNA host name and every address it resolves to (one DNS lookup)."""
    try:
        host = host.encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise _Refused(f"host {host!r} is not a valid host name") from exc
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise ToolUnavailableError(
            f"web_fetch: cannot resolve host {host!r} of {url!r} ({exc}); offline?"
        ) from exc
    addresses: list[IPAddress] = []
    for info in infos:
        ip = _ip_literal(str(info[4][0]).split("%")[0])
        if ip is None:
            raise _Refused(f"host {host!r} resolves to an odd address {info[4][0]!r}")
        if ip not in addresses:
            addresses.append(ip)
    if not addresses:
        raise _Refused(f"host {host!r} resolves to no address")
    return host, addresses


def _media_type(content_type: str) -> tuple[str, str | None]:
    media = content_type.split(";", 1)[0].strip().lower()
    match = re.search(r"charset\s*=\s*\"?([\w.:-]+)", content_type, flags=re.IGNORECASE)
    charset = match.group(1) if match else None
    if charset:
        try:
            codecs.lookup(charset)
        except LookupError:
            charset = None
    return media, charset


def _is_textual(media: str) -> bool:
    return (
        media.startswith("text/")
        or media in ("application/json", "application/xhtml+xml")
        or media.endswith("+json")
    )


def _decoded(raw: Iterable[bytes], encoding: str, step: int) -> Iterator[bytes]:
    """Decode a content-encoding in bounded pieces (a small gzip bomb stays small)."""
    if encoding in ("", "identity"):
        yield from raw
        return
    if encoding not in ("gzip", "x-gzip", "deflate"):
        raise _Refused(f"content-encoding {encoding!r} is not supported")
    inflater = zlib.decompressobj(47 if "gzip" in encoding else 15)
    try:
        for data in raw:
            while data:
                yield inflater.decompress(data, step)
                data = inflater.unconsumed_tail
        yield inflater.flush()
    except zlib.error as exc:
        raise _Refused(f"its {encoding} body does not decode ({exc})") from exc


def fetch_url(
    url: str,
    *,
    max_bytes: int,
    timeout: float = FETCH_TIMEOUT_S,
    max_redirects: int = MAX_REDIRECTS,
    is_allowed: AddressPolicy | None = None,
) -> FetchedPage:
    """GET an http(s) URL safely: public addresses only, manual redirects, capped body.

    At every hop (the URL and each redirect target): the scheme must be http or https, the
    URL carries no credentials, and every address the host resolves to must pass
    ``is_allowed``. The connection is then pinned to a checked address: the request goes to
    ``scheme://IP:port/path`` with the ``Host`` header (and, for https, the TLS SNI and
    certificate check, through httpcore's ``sni_hostname``) set to the host name, so no
    second DNS lookup happens between check and connect (DNS rebinding). Proxies from the
    environment are ignored for the same reason. The body must be text, HTML or JSON and is
    read in pieces, stopping as soon as it passes ``max_bytes`` (decoded size).

    Args:
        url: The page.
        max_bytes: Largest body accepted.
        timeout: Seconds for the whole fetch, redirects included.
        max_redirects: Most redirects followed.
        is_allowed: The address policy; default: the module's :data:`address_policy`.

    Returns:
        The page (body not yet decoded to text).

    Raises:
        InputRejectedError: The URL or a redirect is refused, the answer is an HTTP error,
            not text, or too large. The message names the URL and the reason.
        ToolUnavailableError: The host cannot be resolved or reached, or answered 5xx.
        ToolTimeoutError: The fetch took longer than ``timeout``.
    """
    import httpx

    policy = is_allowed or address_policy
    deadline = time.monotonic() + timeout
    current = url
    redirects: list[str] = []

    def refused(reason: str) -> InputRejectedError:
        hop = f" (redirect {len(redirects)} to {current!r})" if redirects else ""
        return InputRejectedError(f"web_fetch refused {url!r}{hop}: {reason}")

    with httpx.Client(
        trust_env=False,  # no proxy: the connection must go to the address we checked
        follow_redirects=False,
        timeout=httpx.Timeout(timeout),
        headers=_HEADERS,
    ) as client:
        while True:
            try:
                target = _check_url(current, policy)
            except _Refused as exc:
                raise refused(str(exc)) from None
            response = _connect(client, target, current, deadline)
            try:
                status = response.status_code
                location = response.headers.get("location")
                if status in _REDIRECTS and location:
                    if len(redirects) >= max_redirects:
                        raise refused(f"more than {max_redirects} redirects")
                    current = urljoin(current, location.strip())
                    redirects.append(current)
                    continue
                if 500 <= status < 600:
                    raise ToolUnavailableError(f"web_fetch: {current!r} answered HTTP {status}")
                if not 200 <= status < 300:
                    raise refused(f"the server answered HTTP {status}")
                media, charset = _media_type(response.headers.get("content-type", ""))
                if not _is_textual(media):
                    raise refused(f"content type {media or '(none)'!r} is not text, HTML or JSON")
                length = response.headers.get("content-length", "")
                if length.isdigit() and int(length) > max_bytes:
                    raise refused(f"it is {length} bytes, over the {max_bytes}-byte limit")
                body = bytearray()
                encoding = response.headers.get("content-encoding", "").strip().lower()
                for piece in _decoded(response.iter_raw(), encoding, 65536):
                    body += piece
                    if len(body) > max_bytes:
                        raise refused(f"its body passed the {max_bytes}-byte limit (stopped)")
                    if time.monotonic() > deadline:
                        raise ToolTimeoutError(f"web_fetch: {url!r} took over {timeout:g} s")
                return FetchedPage(
                    url=url,
                    final_url=current,
                    status=status,
                    content_type=media,
                    charset=charset,
                    body=bytes(body),
                    redirects=redirects,
                )
            except _Refused as exc:
                raise refused(str(exc)) from None
            except httpx.TimeoutException as exc:
                raise ToolTimeoutError(f"web_fetch: {url!r} took over {timeout:g} s") from exc
            except httpx.HTTPError as exc:
                raise ToolUnavailableError(f"web_fetch: reading {current!r} failed: {exc}") from exc
            finally:
                response.close()


def _connect(client: Any, target: _Target, url: str, deadline: float) -> Any:
    """Send the request to the first checked address that accepts a connection."""
    import httpx

    errors = []
    for ip in target.addresses:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ToolTimeoutError(f"web_fetch: {url!r} timed out")
        extensions: dict[str, Any] = {"timeout": httpx.Timeout(remaining).as_dict()}
        if target.scheme == "https" and not target.literal:
            extensions["sni_hostname"] = target.host
        request = client.build_request(
            "GET",
            target.url_for(ip),
            headers={"Host": target.host_header},
            extensions=extensions,
        )
        try:
            return client.send(request, stream=True)
        except httpx.ConnectError as exc:
            errors.append(f"{ip}: {exc}")
        except httpx.TimeoutException as exc:
            raise ToolTimeoutError(f"web_fetch: {url!r} timed out ({exc})") from exc
        except httpx.HTTPError as exc:
            raise ToolUnavailableError(f"web_fetch: {url!r} failed: {exc}") from exc
    raise ToolUnavailableError(f"web_fetch: cannot connect to {url!r} ({'; '.join(errors)})")
