from hypothesis import given
from hypothesis import strategies as st

from corpus_pipeline.lm.pii import EMAIL_PLACEHOLDER, IP_PLACEHOLDER, PiiScrubber


def test_emails_and_public_ips_are_replaced_and_counted():
    result = PiiScrubber().scrub("Mail jane.doe@example.org or ops@mail.test; server 8.8.4.4 and 93.184.216.34.")
    assert result.emails == 2 and result.ips == 2
    assert "jane.doe" not in result.text and "8.8.4.4" not in result.text
    assert result.text.count(EMAIL_PLACEHOLDER) == 2 and result.text.count(IP_PLACEHOLDER) == 2


def test_private_and_loopback_addresses_stay():
    text = "the demo serves on 127.0.0.1 and the router is 192.168.1.1"
    assert PiiScrubber().scrub(text).text == text


@given(st.text(alphabet=st.characters(blacklist_characters="@."), max_size=200))
def test_text_without_at_signs_or_dots_is_untouched(text):
    assert PiiScrubber().scrub(text).text == text
