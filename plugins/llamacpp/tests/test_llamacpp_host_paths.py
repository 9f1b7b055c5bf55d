"""llama-server flags that read or write host files, or run programs from a directory.

Each is refused in every spelling llama-server's parser takes (long name, short alias,
``_`` for ``-``, ``--flag=value``), naming the profile, the flag, why and the
``allow_args`` entry; the value is never echoed. Inline values (``--chat-template``,
``--grammar``, ``--json-schema``) and tuning flags still pass.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from enginekit import Profile
from enginekit.testing import engine_for
from enginekit_llamacpp import LlamaCppConfig, LlamaCppEngine, flags
from enginekit_llamacpp.flags import ALLOWABLE, RISKY
from enginekit_llamacpp.syntax import SYNTAX

ALLOW = 'refused unless the site allows it (engines.llamacpp.allow_args = ["{}"])'


def newest_with(flag: str) -> int:
    """The newest build read that has ``flag``; 0 (unset) when none has it."""
    table = flags.table()
    where = table.option_in.get(flag)
    return int(table.releases[max(where)]) if where else 0


def problems(args: Sequence[str], **config: object) -> list[str]:
    prof = Profile(name="p", engine="llamacpp", tp=1, model_path="/models/m.gguf", args=tuple(args))
    engine = engine_for(LlamaCppEngine(LlamaCppConfig(**config)), "llamacpp")  # type: ignore[arg-type]
    return engine.validate(prof, [])


#: (canonical flag, every spelling llama-server takes for it)
SPELLINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("--chat-template-file", ("--chat-template-file", "--chat_template_file")),
    ("--file", ("--file", "-f")),
    ("--system-prompt-file", ("--system-prompt-file", "-sysf")),
    ("--binary-file", ("--binary-file", "-bf")),
    ("--grammar-file", ("--grammar-file", "--grammar_file")),
    ("--json-schema-file", ("--json-schema-file", "-jf")),
    ("--control-vector", ("--control-vector",)),
    ("--control-vector-scaled", ("--control-vector-scaled",)),
    ("--lookup-cache-static", ("--lookup-cache-static", "-lcs")),
    ("--lookup-cache-dynamic", ("--lookup-cache-dynamic", "-lcd")),
    ("--mmproj", ("--mmproj", "-mm")),
    ("--model-draft", ("--model-draft", "-md", "--spec-draft-model")),
    ("--model-vocoder", ("--model-vocoder", "-mv")),
    ("--ui-config-file", ("--ui-config-file", "--webui-config-file")),
    ("--log-prompts-dir", ("--log-prompts-dir",)),
    ("--video-ffmpeg-dir", ("--video-ffmpeg-dir",)),
    ("--tools-runtime", ("--tools-runtime",)),
    ("--ssl-key-file", ("--ssl-key-file", "--ssl_key_file")),
    ("--ssl-cert-file", ("--ssl-cert-file",)),
)
CASES = [(flag, spelling) for flag, spellings in SPELLINGS for spelling in spellings]


@pytest.mark.parametrize(("flag", "spelling"), CASES, ids=[f"{s}" for _, s in CASES])
def test_host_file_flags_are_refused_in_every_spelling(flag: str, spelling: str) -> None:
    expected = [f"profile 'p': args: {spelling!r} ({flag}) {RISKY[flag]}; {ALLOW.format(flag)}"]
    assert problems([spelling, "/etc/shadow"]) == expected
    assert problems([f"{spelling}=/etc/shadow"]) == expected
    # Allowed, it passes on a build that has it (some are gone from the newest).
    assert problems([spelling, "/etc/shadow"], allow_args=(flag,), build=newest_with(flag)) == []


def test_the_path_is_never_echoed() -> None:
    (problem,) = problems(["--chat-template-file", "/home/alice/t.jinja"])
    assert "alice" not in problem


@pytest.mark.parametrize(
    "args",
    [
        ["-c", "4096"],
        ["--chat-template", "chatml"],
        ["--chat-template", "{% for m in messages %}{{ m.content }}{% endfor %}"],
        ["--grammar", 'root ::= "yes" | "no"'],
        ["-j", '{"type": "object"}'],
        ["--json-schema", '{"type": "object"}'],
        ["-fa", "on", "-ctk", "q8_0"],  # -fa is not -f with a glued value
        ["--jinja", "--reasoning-format", "deepseek"],
    ],
)
def test_inline_values_and_tuning_flags_pass(args: list[str]) -> None:
    assert problems(args) == []


def test_every_gated_flag_is_known_and_allowable() -> None:
    for flag, _ in SPELLINGS:
        assert flag in SYNTAX.known, flag
        assert flag in ALLOWABLE, flag
