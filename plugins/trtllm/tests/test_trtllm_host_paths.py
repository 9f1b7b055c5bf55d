"""trtllm-serve options refused for some values: a chat template path, another model's tokenizer.

Click matches long options exactly and takes ``--flag=value``; both spellings are tried.
Messages name the profile, the option, why and the ``allow_args`` entry, never the value.
"""

from __future__ import annotations

import pytest
from enginekit.model import Profile
from enginekit.testing import engine_for
from enginekit_trtllm import TrtllmConfig, TrtllmEngine
from enginekit_trtllm.validation import chat_template_is_path

MODEL = "/models/llama-3.1-8b"
ALLOW = 'refused unless the site allows it ([engines.trtllm] allow_args = ["{}"])'
TEMPLATE_WHY = (
    "reads the chat template from the host path it names, as root (a value is a path when it has "
    "a '/' before its first '{{', '{%' or '{#', or anywhere when it has none; inline templates pass)"
)


def problems(*args: str, **config: object) -> list[str]:
    prof = Profile(name="p", engine="trtllm", tp=2, model_path=MODEL, args=args)
    plugin = TrtllmEngine(TrtllmConfig(python="/opt/trt/bin/python", **config))  # type: ignore[arg-type]
    return engine_for(plugin, "trtllm").validate(prof, ())


@pytest.mark.parametrize(
    "args",
    [("--chat_template", "/etc/shadow"), ("--chat_template=/etc/shadow",), ("--chat_template", "/tmp/{{x}}")],
)
def test_a_chat_template_path_is_refused(args: tuple[str, ...]) -> None:
    assert problems(*args) == [
        f"profile 'p': args: '--chat_template' (--chat_template) {TEMPLATE_WHY}; {ALLOW.format('--chat_template')}"
    ]
    assert problems(*args, allow_args=("--chat_template",)) == []


@pytest.mark.parametrize(
    "template",
    ["{% for m in messages %}[INST] {{ m.content }} [/INST]{% endfor %}", "{{ messages[0].content }}"],
)
def test_an_inline_template_passes(template: str) -> None:
    assert problems("--chat_template", template) == []
    assert problems(f"--chat_template={template}") == []


@pytest.mark.parametrize("args", [("--tokenizer", "org/other"), ("--tokenizer=/srv/other",)])
def test_another_tokenizer_is_refused(args: tuple[str, ...]) -> None:
    assert problems(*args) == [
        "profile 'p': args: '--tokenizer' (--tokenizer) loads the tokenizer from the Hugging Face "
        f"repository or host path it names, not the profile's model_path; {ALLOW.format('--tokenizer')}"
    ]
    assert problems(*args, allow_args=("--tokenizer",)) == []


def test_the_models_own_tokenizer_passes_and_values_are_not_echoed() -> None:
    assert problems("--tokenizer", MODEL) == []
    (problem,) = problems("--tokenizer", "/home/alice/tok")
    assert "alice" not in problem


@pytest.mark.parametrize(
    ("value", "is_path"),
    [
        ("/etc/shadow", True),
        ("t.jinja", False),
        ("{{ x }}", False),
        ("a/{{ x }}", True),
        ("{% x %}[/INST]", False),
    ],
)
def test_which_chat_template_values_are_paths(value: str, is_path: bool) -> None:
    assert chat_template_is_path(value) is is_path
