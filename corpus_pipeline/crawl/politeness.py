"""Politeness towards each host: robots.txt rules and private addresses (the pace is in throttle.py)."""

from __future__ import annotations

import ipaddress
import socket

from protego import Protego


class RobotsRules:
    """robots.txt of one host; an unreachable or broken file allows everything (as crawlers agree)."""

    def __init__(self, text: str | None, user_agent: str) -> None:
        self._parser = Protego.parse(text) if text else None
        self._agent = user_agent.split("/", 1)[0]

    def allows(self, url: str) -> bool:
        return self._parser is None or self._parser.can_fetch(url, self._agent)

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
    """Whether ``host`` resolves to a loopback, private, link-local or reserved address."""
    try:
        infos = socket.getaddrinfo(host, None)
    except (socket.gaierror, UnicodeError):
        return False  # unresolvable: the request will fail on its own, with its own error
    for info in infos:
        address = ipaddress.ip_address(info[4][0].split("%", 1)[0])
        if address.is_private or address.is_loopback or address.is_link_local or address.is_reserved:
            return True
    return False
