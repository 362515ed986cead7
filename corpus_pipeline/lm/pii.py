"""E-mail and IP addresses replaced by placeholders, with datatrove's patterns (its PIIFormatter's)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from datatrove.pipeline.formatters.pii import PIIFormatter, public_ip_validator

EMAIL_PLACEHOLDER = "<EMAIL_ADDRESS>"
IP_PLACEHOLDER = "<IP_ADDRESS>"


@dataclass(frozen=True)
class PiiResult:
    """A text with its PII replaced, and how many of each kind were found."""

    text: str
    emails: int
    ips: int


class PiiScrubber:
    """Finds e-mail addresses and public IP addresses (127.0.0.1 or 10.0.0.1 name nobody)."""

    def __init__(self) -> None:
        patterns = PIIFormatter()
        self._email: re.Pattern[str] = patterns.emails_replacer.regex
        self._ip: re.Pattern[str] = patterns.ip_replacer.regex

    def scrub(self, text: str) -> PiiResult:
        """``text`` with every e-mail and IP address replaced by a placeholder, and the counts."""
        text, emails = self._email.subn(EMAIL_PLACEHOLDER, text)
        ips = 0

        def replace_ip(match: re.Match[str]) -> str:
            nonlocal ips
            if not public_ip_validator(match.group(0), public_only=True):
                return match.group(0)
            ips += 1
            return IP_PLACEHOLDER

        text = self._ip.sub(replace_ip, text)
        return PiiResult(text, emails, ips)
