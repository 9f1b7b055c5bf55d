"""A key is recognised in every form that gives it away (issue 30, item 5).

Whole keys were masked and refused; a key cut short (a command named after its first 20
characters), re-cased, base64- or URL-encoded passed. Now any run of twelve or more of its
characters, in any case, and its encoded forms are masked in output and refused in argv.
"""

from __future__ import annotations

import base64
import urllib.parse

import pytest
from enginekit import Command, EngineError, Registry, ShardSpec, hookimpl
from enginekit.base.secrets import MASK, MIN_RUN, leaks, masked
from enginekit.placement.builder import CommandBuilder
from enginekit.testing.factories import make_shard
from hypothesis import given, settings
from hypothesis import strategies as st

KEY = "ekt.Q7vXr2Lm9ZpK4wTb8NcYs3Hd"
#: The alphabet the spec rules allow a key (base64 and JWT characters).
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+/=:-"


def runs_of(key: str, text: str) -> list[str]:
    """Every run of MIN_RUN characters of ``key`` in ``text``, ignoring case: the reference, by brute force."""
    low, key_low = text.lower(), key.lower()
    return [
        key_low[i : i + MIN_RUN] for i in range(len(key) - MIN_RUN + 1) if key_low[i : i + MIN_RUN] in low
    ]


@pytest.mark.parametrize(
    "text",
    [
        KEY,
        KEY[:20],  # the command name
        KEY[-12:],
        KEY.upper(),
        KEY.lower(),
        KEY.swapcase()[3:19],
        f"--name={KEY[:14]}",
        urllib.parse.quote(KEY + "/", safe=""),
        base64.b64encode(KEY.encode()).decode(),
        base64.b64encode(b"user:" + KEY.encode()).decode(),  # HTTP basic auth
        base64.urlsafe_b64encode(b"xy" + KEY.encode()).decode(),
        repr(KEY),
    ],
)
def test_each_form_is_masked_and_counts_as_a_leak(text: str) -> None:
    assert leaks(text, KEY)
    out = masked(text, KEY)
    assert MASK in out
    assert runs_of(KEY, out) == []


@pytest.mark.parametrize("text", ["serve on 8000", KEY[:11], f"model {KEY[:6]}-{KEY[6:12]}", "", "x" * 100])
def test_what_is_not_most_of_the_key_is_left_alone(text: str) -> None:
    assert not leaks(text, KEY)
    assert masked(text, KEY) == text


def test_a_short_secret_is_never_masked_and_one_under_the_run_only_whole() -> None:
    assert masked("abc1234 here", "abc1234") == "abc1234 here"  # under MIN_MASKED: unreadable otherwise
    nine = "Zq8Lm2Xp9"
    assert masked(f"a {nine} b", nine) == f"a {MASK} b"
    assert masked(f"a {nine[:8]} b", nine) == f"a {nine[:8]} b"


def test_what_surrounds_a_run_is_kept() -> None:
    assert masked(f"before {KEY[2:16].upper()} after", KEY) == f"before {MASK} after"
    assert masked(f"{KEY} and {KEY.lower()}", KEY) == f"{MASK} and {MASK}"


def test_non_ascii_text_around_a_key_keeps_its_place() -> None:
    # Lower-casing "İ" gives two code points: masking must not shift what it cuts.
    text = f"İİ {KEY} ß İ"
    assert masked(text, KEY) == f"İİ {MASK} ß İ"


keys = st.text(alphabet=ALPHABET, min_size=16, max_size=64).filter(lambda k: not k.startswith("-"))
padding = st.text(alphabet=ALPHABET + " \n\t\u0130é", max_size=30)


@st.composite
def holding(draw: st.DrawFn) -> tuple[str, str, str]:
    """A key, and a text holding a form of a run of it, with the form's name."""
    key = draw(keys)
    start = draw(st.integers(min_value=0, max_value=len(key) - MIN_RUN))
    end = draw(st.integers(min_value=start + MIN_RUN, max_value=len(key)))
    part = key[start:end]
    form = draw(st.sampled_from(["as is", "upper", "lower", "swapcase", "url", "base64", "urlsafe64"]))
    if form == "url":
        shown = urllib.parse.quote(key, safe="")
    elif form in ("base64", "urlsafe64"):
        encode = base64.b64encode if form == "base64" else base64.urlsafe_b64encode
        shown = encode(draw(st.binary(max_size=5)) + key.encode() + draw(st.binary(max_size=5))).decode()
    else:
        shown = part if form == "as is" else getattr(part, form.replace(" ", ""))()
    return key, draw(padding) + shown + draw(padding), form


@settings(max_examples=300, deadline=None)
@given(holding())
def test_property_every_form_of_a_run_is_found_and_none_survives_masking(case: tuple[str, str, str]) -> None:
    key, text, form = case
    assert leaks(text, key), form
    out = masked(text, key)
    assert runs_of(key, out) == [], form
    if form in ("base64", "urlsafe64"):
        whole = base64.b64encode(key.encode()).decode()
        assert whole[4:-4] not in out


@settings(max_examples=200, deadline=None)
@given(key=keys, text=st.text(max_size=80))
def test_property_masking_leaves_no_run_and_text_without_one_unchanged(key: str, text: str) -> None:
    out = masked(text, key)
    assert runs_of(key, out) == []
    if not leaks(text, key) and "…" not in text:
        assert out == text


class Leaky:
    """An engine that puts a form of the key on its command line."""

    def __init__(self, form: str) -> None:
        self.form = form

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        forms = {
            "shortened": shard.api_key[:20],
            "lowered": shard.api_key.lower(),
            "base64": base64.b64encode(shard.api_key.encode()).decode(),
            "url": urllib.parse.quote(shard.api_key + "/", safe=""),
            "split": "",
        }
        args = ["--name", forms[self.form]]
        if self.form == "split":
            args = ["--a", shard.api_key[:10], shard.api_key[10:]]
        return [CommandBuilder(shard).command("/usr/bin/leaky", args)]


@pytest.mark.parametrize("form", ["shortened", "lowered", "base64", "url", "split"])
def test_an_engine_putting_a_form_of_the_key_in_argv_is_refused(form: str) -> None:
    registry = Registry()
    registry.add(Leaky(form), name="leaky")
    shard = make_shard(engine="leaky")
    with pytest.raises(EngineError, match="API key on a command line") as caught:
        registry.engine("leaky").plan(shard)
    assert runs_of(shard.api_key, str(caught.value)) == []


@pytest.mark.parametrize("form", [KEY[:20], KEY.upper(), base64.b64encode(KEY.encode()).decode()])
def test_an_engines_output_line_is_masked_in_every_form(form: str) -> None:
    from enginekit.run.logs import LineSplitter

    splitter = LineSplitter(b"[e] ", [KEY])
    raw = f"token {form} café ".encode() + b"\xff\n"
    (line,) = splitter.feed(raw)
    assert line.startswith(b"[e] token <secret>")
    assert line.endswith(" café ".encode() + b"\xff\n"), "bytes around the key pass unchanged"
    assert runs_of(KEY, line.decode("latin-1")) == []
    assert base64.b64encode(KEY.encode())[4:-4] not in line


class Unmarked:
    """An engine that copies the key into a variable it does not mark secret."""

    def __init__(self, value: str) -> None:
        self.value = value

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        builder = CommandBuilder(shard).put("TOKEN_FOR_LOGS", self.value.format(key=shard.api_key), "copied")
        return [builder.command("/usr/bin/unmarked", [])]


@pytest.mark.parametrize("value", ["{key}", "Bearer {key}", "x{key}x"])
def test_a_key_in_an_unmarked_variable_is_the_plugins_leak_named(value: str) -> None:
    registry = Registry()
    registry.add(Unmarked(value), name="unmarked")
    shard = make_shard(engine="unmarked")
    with pytest.raises(
        EngineError, match="with the API key in TOKEN_FOR_LOGS, which it does not mark secret"
    ):
        registry.engine("unmarked").plan(shard)


def test_an_unmarked_variable_without_the_key_is_fine() -> None:
    registry = Registry()
    registry.add(Unmarked("no key here"), name="unmarked")
    plan = registry.engine("unmarked").plan(make_shard(engine="unmarked"))
    assert plan.commands[0].env["TOKEN_FOR_LOGS"] == "no key here"


def test_a_form_of_the_key_pasted_into_a_spec_field_names_the_field() -> None:
    from enginekit import Profile

    class Passing(Unmarked):
        @hookimpl
        def commands(self, shard: ShardSpec) -> list[Command]:
            return [CommandBuilder(shard).command("/usr/bin/passing", ["--model", shard.profile.model_path])]

    registry = Registry()
    registry.add(Passing(""), name="passing")
    profile = Profile(name="p", engine="passing", model_path=f"/models/{KEY[:16].lower()}")
    with pytest.raises(EngineError, match=r"^profile\.model_path holds the API key") as caught:
        registry.engine("passing").plan(make_shard(profile, api_key=KEY))
    assert runs_of(KEY, str(caught.value)) == []


def test_an_engines_output_line_with_the_key_cut_before_an_ellipsis_is_masked() -> None:
    from enginekit.run.logs import LineSplitter

    (line,) = LineSplitter(b"", [KEY]).feed(f"key {KEY[:10]}…\n".encode())
    assert line == "key <secret>…\n".encode()


def test_the_boundaries_of_what_is_masked() -> None:
    eight = "Zq8Lm2Xp"
    assert masked(f"<{eight}>", eight) == f"<{MASK}>", "a secret of exactly MIN_MASKED characters is masked"
    assert leaks(eight, eight), "even in a text exactly its length"
    assert masked(eight, eight) == MASK
    # A key cut before an ellipsis: every cut of 8 to 11 characters; 12 and more are runs anyway.
    for cut in range(8, 12):
        assert masked(f"key {KEY[:cut]}…", KEY) == f"key {MASK}…", cut
    assert masked(f"key {KEY[:7]}…", KEY) == f"key {KEY[:7]}…"
    nine = "Zq8Lm2Xp9"
    assert masked(f"{nine[:8]}…", nine) == f"{MASK}…"
    # Two runs that touch are one span: one mask, not two side by side.
    assert masked(KEY[:12] + KEY[:12], KEY) == MASK
    assert masked("ab" + KEY + "cd", KEY) == f"ab{MASK}cd"


def test_a_run_at_the_very_start_or_end_of_a_long_text_is_found() -> None:
    for prefix, suffix in (("", "x" * 40), ("x" * 40, ""), ("x" * 5, "y" * 7), ("x" * 7, "")):
        text = prefix + KEY[3:15] + suffix
        assert masked(text, KEY) == prefix + MASK + suffix, (len(prefix), len(suffix))


def test_described_and_masked_error_mask_and_keep_the_kind() -> None:
    from enginekit.base.errors import EngineError, HookError, SpecError
    from enginekit.base.secrets import described, masked_error

    assert described(ValueError(f"bad {KEY.upper()}"), KEY) == f"ValueError: bad {MASK}"
    assert described(SpecError([f"a {KEY}", "b"]), KEY) == f"SpecError: a {MASK}; b"
    assert described(ValueError(""), KEY) == "ValueError"
    assert described(type("X" * 100, (Exception,), {})("m")) == "X" * 80 + "…: m"

    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError

    assert described(Unprintable()) == "Unprintable"
    refused = masked_error(SpecError([f"one {KEY}", "two"]), KEY)
    assert type(refused) is SpecError
    assert refused.problems == (f"one {MASK}", "two")
    hooked = masked_error(HookError(f"x {KEY}", hook="commands"), KEY)
    assert (type(hooked), str(hooked), hooked.hook) == (HookError, f"x {MASK}", "commands")
    plain = masked_error(EngineError(f"y {KEY}"), KEY)
    assert (type(plain), str(plain)) == (EngineError, f"y {MASK}")

    class Odd(EngineError):
        hook = 7

    odd = masked_error(Odd("z"), KEY)
    assert type(odd) is EngineError
    assert not hasattr(odd, "hook")

    class Broken(EngineError):
        def __str__(self) -> str:
            raise RuntimeError

    broken = masked_error(Broken(), KEY)
    assert (type(broken), str(broken)) == (EngineError, "a plugin raised an error that cannot be shown")


def test_refusals_keep_only_what_their_kind_carries() -> None:
    from enginekit.base.errors import EngineError
    from enginekit.base.secrets import described, masked_error

    class Hooked(EngineError):
        hook = "commands"  # a string, on a kind that carries no hook

    refused = masked_error(Hooked(f"h {KEY}"), KEY)
    assert type(refused) is EngineError
    assert not hasattr(refused, "hook")

    class Listing(EngineError):
        problems = ("one", "two")  # problems, on a kind that is no ProblemsError

    listed = masked_error(Listing(f"said {KEY}"), KEY)
    assert (type(listed), str(listed)) == (EngineError, f"said {MASK}")

    class Both(Exception):
        problems = (f"a {KEY}", "b")

        def __str__(self) -> str:
            return "its own words"

    assert described(Both(), KEY) == f"Both: a {MASK}; b", "the problems, not the message"
