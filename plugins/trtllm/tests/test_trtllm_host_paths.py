"""trtllm-serve options refused for some values: a chat template path, another model's tokenizer.

Click matches long options exactly and takes ``--flag=value``; both spellings are tried.
Messages name the profile, the option, why and the ``allow_args`` entry, never the value.
"""

from __future__ import annotations

import pytest
from enginekit.spec.model import Profile
from enginekit.testing import engine_for
from enginekit_trtllm import TrtllmConfig, TrtllmEngine
from enginekit_trtllm.validation import chat_template_is_path

MODEL = "/models/llama-3.1-8b"
ALLOW = 'refused unless the site allows it (engines.trtllm.allow_args = ["{}"])'
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


# --- VisualGen options: a YAML file enginekit never sees ----------------------------------------

VISUAL_WHY = (
    "reads VisualGen options from a YAML file enginekit never sees, model paths and parallelism included"
)


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("--visual_gen_args", "/etc/shadow.yaml"), "--visual_gen_args"),
        (("--visual_gen_args=/etc/shadow.yaml",), "--visual_gen_args"),
        (("--visual_gen_args", "visual.yaml"), "--visual_gen_args"),
        (("--extra_visual_gen_options", "/etc/shadow.yaml"), "--extra_visual_gen_options"),
        (("--extra_visual_gen_options=/x.yaml",), "--extra_visual_gen_options"),
    ],
)
def test_a_visual_gen_options_file_is_refused_unless_allowed(args: tuple[str, ...], option: str) -> None:
    # 1.3.0rc17 is the one release read with both spellings of the option.
    token = args[0].split("=")[0]
    (problem,) = problems(*args, version="1.3.0rc17")
    assert problem == f"profile 'p': args: {token!r} ({option}) {VISUAL_WHY}; {ALLOW.format(option)}"
    assert "shadow" not in problem
    assert problems(*args, version="1.3.0rc17", allow_args=(option,)) == []


def test_the_old_visual_gen_spelling_is_still_judged_by_the_release_when_allowed() -> None:
    # Allowing a risky option vouches for its use, not for a release that no longer has it.
    assert problems("--extra_visual_gen_options", "v.yaml", allow_args=("--extra_visual_gen_options",)) == [
        "profile 'p': args: '--extra_visual_gen_options' is not an option of trtllm-serve serve "
        "1.3.0rc29 (assumed: no release is configured): renamed to --visual_gen_args in 1.3.0rc22; "
        "use --visual_gen_args instead"
    ]


def test_click_takes_no_other_spelling_of_it() -> None:
    # Click matches exactly: a dashed spelling is no option of serve, refused as such.
    (problem,) = problems("--visual-gen-args", "/etc/shadow.yaml")
    assert "'--visual-gen-args' is not an option of trtllm-serve serve" in problem


def test_visual_generation_without_an_options_file_passes() -> None:
    assert problems("--enable_visual_gen") == []


# --- values read as Click reads them ------------------------------------------------------------


def test_a_value_that_starts_with_dashes_is_the_options_value() -> None:
    # Click gives --tokenizer the next argument whatever it is: the tokenizer is
    # "--log_level", not the model's, and --log_level is set to nothing.
    assert problems("--tokenizer", "--log_level") == [
        "profile 'p': args: '--tokenizer' (--tokenizer) loads the tokenizer from the Hugging Face "
        f"repository or host path it names, not the profile's model_path; {ALLOW.format('--tokenizer')}"
    ]


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (("--chat_template", "--/etc/shadow"), TEMPLATE_WHY),
        (("--chat_template", "-/../etc/shadow"), TEMPLATE_WHY),
    ],
)
def test_a_path_that_looks_like_an_option_is_still_a_path(args: tuple[str, ...], why: str) -> None:
    assert problems(*args) == [
        f"profile 'p': args: '--chat_template' (--chat_template) {why}; {ALLOW.format('--chat_template')}"
    ]


@pytest.mark.parametrize(
    "args",
    [
        # Each second token is a value to Click, not the option it is spelled like.
        ("--log_level", "--trust_remote_code"),
        ("--reasoning_parser", "--host"),
        ("--tool_parser", "--api_key"),
        ("--chat_template", "--middleware"),
        ("--max_batch_size", "--extra_llm_api_options"),
    ],
)
def test_an_option_spelled_as_a_value_is_not_read_as_one(args: tuple[str, ...]) -> None:
    assert problems(*args) == []


def test_a_word_after_such_a_value_is_a_positional_argument() -> None:
    (problem,) = problems("--log_level", "--trust_remote_code", "x")
    assert problem.startswith("profile 'p': args[2]: not an option, and '--log_level' (args[0]) before it")


@pytest.mark.parametrize("option", ["--tokenizer", "--log_level", "--chat_template", "--max_batch_size"])
def test_an_option_left_without_its_value_is_refused(option: str) -> None:
    # enginekit puts its own options file's flag after the profile's args: Click would
    # take that as the value, and the file's path as a second model.
    assert problems("--enable_chunked_prefill", option) == [
        f"profile 'p': args[1]: {option!r} takes a value, but it is the last argument: trtllm-serve "
        "would take what enginekit puts after the profile's args (its own options file's flag) "
        "as that value; give it one"
    ]


def test_a_flag_at_the_end_passes() -> None:
    assert problems("--max_batch_size", "8", "--enable_chunked_prefill") == []


def test_an_allowed_option_of_another_release_cannot_hide_the_option_after_it() -> None:
    # Whether a newer option takes a value is unknown: a word after it is its value, and an
    # option after it is read as an option, so it is checked whichever it is.
    assert problems("--new_option", "8", allow_args=("--new_option",)) == []
    found = problems("--new_option", "--trust_remote_code", allow_args=("--new_option",))
    assert len(found) == 1
    assert "(--trust_remote_code) runs Python code" in found[0]


# --- each use judged on its own (mutation run of the rewritten policy) -----------------------

TOKENIZER_WHY = (
    "loads the tokenizer from the Hugging Face repository or host path it names, not the profile's model_path"
)


@pytest.mark.parametrize(
    ("args", "allow"),
    [
        (("--chat_template", "/etc/shadow", "--tokenizer", "org/other"), ("--chat_template",)),
        (("--chat_template", "{{ messages[0].content }}", "--tokenizer", "org/other"), ()),
    ],
)
def test_a_tokenizer_after_an_allowed_or_inline_template_is_still_checked(
    args: tuple[str, ...], allow: tuple[str, ...]
) -> None:
    assert problems(*args, allow_args=allow) == [
        f"profile 'p': args: '--tokenizer' (--tokenizer) {TOKENIZER_WHY}; {ALLOW.format('--tokenizer')}"
    ]


def test_a_template_path_after_the_models_own_tokenizer_is_still_refused() -> None:
    assert problems("--tokenizer", MODEL, "--chat_template", "/etc/shadow") == [
        f"profile 'p': args: '--chat_template' (--chat_template) {TEMPLATE_WHY}; {ALLOW.format('--chat_template')}"
    ]


def test_an_inline_template_is_judged_by_what_comes_before_its_first_delimiter() -> None:
    # '[/INST]' and later tags come after the first '{%': the value is a template, not a path.
    template = "{% for m in messages %}[INST] {{ m.content }} [/INST]{% endfor %}{{ eos_token }}"
    assert not chat_template_is_path(template)
    assert problems("--chat_template", template) == []
