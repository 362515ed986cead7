"""Page-level robots directives: ``<meta name="robots">`` and the ``X-Robots-Tag`` header, read as search engines do.

A page may say ``noindex`` (keep me out of the index: here, out of the corpus), ``nofollow`` (do not follow my
links), ``none`` (both), or ``all`` / ``index`` / ``follow`` (no restriction). Directives are case-insensitive and
comma-separated; a meta tag binds us when its name is ``robots`` or our user agent's product token, a header value
when it has no ``agent:`` prefix or our token's. When several apply, the most restrictive wins (a ``noindex`` is
never undone by an ``index`` elsewhere). Other directives (``noarchive``, ``max-snippet: 20``...) concern snippets
and caches, not a crawl, and are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

GENERIC_NAME = "robots"
# Directives written "name: value", whose colon does not start a user-agent prefix.
_VALUED = frozenset({"max-snippet", "max-image-preview", "max-video-preview", "unavailable_after"})
# A user agent's product token as robots.txt and X-Robots-Tag prefixes name it.
_AGENT = re.compile(r"[a-z0-9_.-]+")


@dataclass(frozen=True)
class RobotsDirectives:
    """What a page asks of this crawler."""

    noindex: bool = False
    nofollow: bool = False

    @property
    def value(self) -> str | None:
        """The raw_pages ``robots`` column: ``noindex``, ``nofollow``, ``noindex, nofollow``, or None."""
        said = [name for name, on in (("noindex", self.noindex), ("nofollow", self.nofollow)) if on]
        return ", ".join(said) or None

    def __or__(self, other: RobotsDirectives) -> RobotsDirectives:
        return RobotsDirectives(self.noindex or other.noindex, self.nofollow or other.nofollow)


NO_DIRECTIVES = RobotsDirectives()


def agent_token(user_agent: str) -> str:
    """The product token of a User-Agent header (``corpus_pipeline/0.1 (+url)`` -> ``corpus_pipeline``), lower-case."""
    return user_agent.split("/", 1)[0].strip().lower()


def meta_names(user_agent: str) -> frozenset[str]:
    """The ``<meta name>`` values that address this crawler: ``robots`` and its own token."""
    return frozenset({GENERIC_NAME, agent_token(user_agent)} - {""})


def from_meta(contents: Iterable[str]) -> RobotsDirectives:
    """Directives of the ``content`` attributes of the meta tags that address us."""
    found = NO_DIRECTIVES
    for content in contents:
        for part in content.split(","):
            found |= _directive(part)
    return found


def from_headers(values: Iterable[str], user_agent: str) -> RobotsDirectives:
    """Directives of the ``X-Robots-Tag`` header fields (each as sent) that address this crawler: an agent prefix
    (``googlebot: noindex, nofollow``) holds until the end of its field or the next prefix."""
    ours = agent_token(user_agent)
    found = NO_DIRECTIVES
    for value in values:
        agent: str | None = None
        for part in value.split(","):
            name, colon, rest = part.partition(":")
            name = name.strip().lower()
            if colon and name not in _VALUED and _AGENT.fullmatch(name):
                agent, part = name, rest
            if agent is None or agent == ours:
                found |= _directive(part)
    return found


def _directive(word: str) -> RobotsDirectives:
    word = word.strip().lower()
    if word == "none":
        return RobotsDirectives(noindex=True, nofollow=True)
    return RobotsDirectives(noindex=word == "noindex", nofollow=word == "nofollow")
