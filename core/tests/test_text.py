"""The unsafe-character rule, and its fast path for printable ASCII."""

from __future__ import annotations

from enginekit.base.text import UNSAFE_CHARACTERS, has_unsafe, unsafe_text
from hypothesis import given
from hypothesis import strategies as st


def test_in_ascii_the_unsafe_characters_are_exactly_the_unprintable_ones() -> None:
    # The fast path answers printable ASCII without the pattern: it must agree on every one.
    for code in range(128):
        char = chr(code)
        assert (UNSAFE_CHARACTERS.search(char) is not None) == (not char.isprintable()), repr(char)


@given(st.text())
def test_the_fast_path_agrees_with_the_pattern(text: str) -> None:
    assert has_unsafe(text) == (UNSAFE_CHARACTERS.search(text) is not None)
    assert (unsafe_text(text) is None) == (UNSAFE_CHARACTERS.search(text) is None)


def test_a_control_character_after_printable_ascii_is_still_found() -> None:
    assert has_unsafe("--model /m\x1b[2J")
    assert unsafe_text("--model /m\x00") == "contains a NUL byte (U+0000)"
