import re
import unicodedata

import pytest

from sanitize import strip_control_chars, strip_html_comments, normalise_whitespace


class TestStripHtmlComments:
    def test_simple(self):
        assert strip_html_comments("a<!-- b -->c") == "ac"

    def test_multiline(self):
        src = "<p>hi</p>\n<!--\n  TODO: remove\n-->\n<p>bye</p>"
        assert strip_html_comments(src) == "<p>hi</p>\n\n<p>bye</p>"

    def test_unterminated_comment_is_dropped_to_end(self):
        assert strip_html_comments("keep <!-- lost") == "keep "

    def test_conditional_comment(self):
        assert strip_html_comments("<!--[if IE]>x<![endif]-->y") == "y"


class TestControlChars:
    @pytest.mark.parametrize("ch", ["\u200b", "\u200e", "\u202e", "\ufeff"])
    def test_invisible_removed(self, ch):
        assert strip_control_chars(f"pass{ch}word") == "password"

    def test_newlines_kept(self):
        assert strip_control_chars("a\nb\tc") == "a\nb\tc"


def test_normalise_whitespace():
    assert normalise_whitespace("  a \u00a0 b\n\n\nc ") == "a b\n\nc"
