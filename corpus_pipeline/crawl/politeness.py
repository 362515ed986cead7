"""Politeness towards each host: robots.txt rules and private addresses (the pace is in throttle.py)."""

from __future__ import annotations

import ipaddress
import socket

from protego import Protego


class RobotsRules:
    """robots.txt of one host (RFC 9309): a missing file (4xx) allows everything; an unreachable
    one (5xx, network error) disallows everything for this run."""

    def __init__(self, text: str | None, user_agent: str, disallow_reason: str | None = None) -> None:
        self._parser = Protego.parse(text) if text else None
        self._agent = user_agent.split("/", 1)[0]
        self.disallow_reason = disallow_reason  # set when the whole host is off limits

    @classmethod
    def unreachable(cls, user_agent: str, cause: str) -> RobotsRules:
        """Complete disallow (RFC 9309 2.3.1.4), with the cause for the rows it refuses."""
        return cls(None, user_agent, f"robots.txt {cause}: complete disallow (RFC 9309)")

    def allows(self, url: str) -> bool:
        return self.disallow_reason is None and (self._parser is None or self._parser.can_fetch(url, self._agent))

    @property
    def crawl_delay(self) -> float | None:
        if self._parser is None:
            return None
        delay = self._parser.crawl_delay(self._agent)
        if delay is None:
            rate = self._parser.request_rate(self._agent)
            if rate is not None and rate.requests:
                delay = rate.seconds / rate.requests
        return float(delay) if delay is not None else None

    @property
    def sitemaps(self) -> list[str]:
        return list(self._parser.sitemaps) if self._parser is not None else []


def is_private_host(host: str) -> bool:
    """Whether ``host`` is or resolves to a loopback, private, link-local, reserved or unspecified address (an
    address literal without any lookup)."""
    if _address_literal(host) is not None:
        return is_private_address(host)
    try:
        infos = socket.getaddrinfo(host, None)
    except (OSError, UnicodeError):
        return False  # unresolvable: the request will fail on its own, with its own error
    return any(is_private_address(str(info[4][0])) for info in infos)


def is_private_address(address: str) -> bool:
    """Whether an IP address literal (as a socket reports it) is loopback, private, link-local, reserved..."""
    literal = _address_literal(address)
    if literal is None:
        return False
    if isinstance(literal, ipaddress.IPv6Address) and literal.ipv4_mapped is not None:
        literal = literal.ipv4_mapped
    return (
        literal.is_private or literal.is_loopback or literal.is_link_local or literal.is_reserved
        or literal.is_unspecified or literal.is_multicast
    )


def _address_literal(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None
