"""Click's reading of the args, alone: values taken, and an option left without its value at the end."""

from __future__ import annotations

from enginekit_trtllm.clickargs import missing_value, read
from enginekit_trtllm.flags import ARITY, SYNTAX

ONE = {"--max_batch_size": 1, "--log_level": 1, "--flag": 0}


def test_an_option_at_the_end_without_its_value_is_missing_at_its_index() -> None:
    assert read(["--max_batch_size"], ONE).missing == (0,)
    assert read(["--flag", "--max_batch_size", "8", "--log_level"], ONE).missing == (3,)
    # An option whose arity is unknown may take nothing: not missing.
    assert read(["--newer_option"], ONE).missing == ()
    assert read(["--flag"], ONE).missing == ()
    assert read(["--max_batch_size=8"], ONE).missing == ()


def test_missing_value_finds_the_last_option_left_without_its_value() -> None:
    assert missing_value(SYNTAX.parse([]), ARITY) is None
    assert missing_value(SYNTAX.parse(["--max_batch_size"]), ARITY) == 0
    assert missing_value(SYNTAX.parse(["--max_batch_size", "8", "--log_level"]), ARITY) == 2
    assert missing_value(SYNTAX.parse(["--max_batch_size", "8"]), ARITY) is None
    assert missing_value(SYNTAX.parse(["--log_level=info"]), ARITY) is None
    # After a bare '--' Click reads everything as positional: nothing is an option left open.
    assert missing_value(SYNTAX.parse(["--", "--max_batch_size"]), ARITY) is None
