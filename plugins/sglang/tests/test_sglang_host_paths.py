"""SGLang options whose value is read as a host path, fetched, or loaded from another host.

Each is refused in every spelling SGLang's argparse takes (``--flag=value``, unique
prefixes, aliases), with a message naming the profile, the option, why, and the
``allow_args`` entry that opens it, and never the value. Legitimate values pass.
"""

from __future__ import annotations

import pytest
from enginekit import Profile
from enginekit.testing import engine_for
from enginekit_sglang import SglangConfig, SglangEngine
from enginekit_sglang.flags import ALLOWABLE, HOST_ACCESS, MODEL_SOURCES, SYNTAX, TEMPLATES, VALUE_CHECKED

MODEL = "/models/m"
ALLOW = 'refused unless the site allows it (engines.sglang.allow_args = ["{}"])'


def problems(*args: str, **config: object) -> list[str]:
    prof = Profile(name="p", engine="sglang", tp=4, model_path=MODEL, args=args)
    engine = engine_for(SglangEngine(SglangConfig(**config)), "sglang")  # type: ignore[arg-type]
    return engine.validate(prof, [])


def message(token: str, option: str, why: str) -> str:
    return f"profile 'p': args: {token!r} ({option}) {why}; {ALLOW.format(option)}"


# --- another repository for the tokenizer or the draft model ---------------------------------


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("--tokenizer-path", "org/other"), "--tokenizer-path"),
        (("--tokenizer-path=/etc",), "--tokenizer-path"),
        (("--tokenizer-p", "org/other"), "--tokenizer-path"),
        (("--speculative-draft-model-path", "org/draft"), "--speculative-draft-model-path"),
        (("--speculative-draft-model", "org/draft"), "--speculative-draft-model-path"),  # its alias
        (("--speculative-draft-model-p=/srv/draft",), "--speculative-draft-model-path"),
    ],
)
def test_another_repository_is_refused(args: tuple[str, ...], option: str) -> None:
    token = args[0].split("=")[0]
    assert problems(*args) == [
        message(token, option, f"{MODEL_SOURCES[option]}, not the profile's model_path")
    ]
    assert problems(*args, allow_args=(option,)) == []


@pytest.mark.parametrize(
    "args",
    [
        ("--tokenizer-path", MODEL),
        (f"--tokenizer-path={MODEL}",),
        ("--speculative-draft-model-path", MODEL),
        ("--speculative-draft-model-revision", "main", "--tokenizer-mode", "slow"),
    ],
)
def test_the_models_own_path_passes(args: tuple[str, ...]) -> None:
    assert problems(*args) == []


# --- templates: a built-in name, or a host path ------------------------------------------------


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("--chat-template", "/etc/shadow"), "--chat-template"),
        (("--chat-template=/srv/t.jinja",), "--chat-template"),
        (("--chat-template", "../../etc/shadow"), "--chat-template"),
        (("--completion-template", "/etc/shadow"), "--completion-template"),
        (("--completion-t=/root/c.json",), "--completion-template"),
    ],
)
def test_a_template_path_is_refused(args: tuple[str, ...], option: str) -> None:
    token = args[0].split("=")[0]
    why = f"{TEMPLATES[option]} (a value with '/' is a path; built-in names pass)"
    assert problems(*args) == [message(token, option, why)]
    assert problems(*args, allow_args=(option,)) == []


@pytest.mark.parametrize(
    "args",
    [
        ("--chat-template", "chatml"),
        ("--chat-template=llama-3-instruct",),
        ("--completion-template", "deepseek_coder"),
    ],
)
def test_built_in_template_names_pass(args: tuple[str, ...]) -> None:
    assert problems(*args) == []


def test_a_template_path_is_never_echoed() -> None:
    (problem,) = problems("--chat-template", "/home/alice/notes")
    assert "alice" not in problem


# --- load formats -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "option", "why"),
    [
        (("--load-format", "remote"), "--load-format", "remote: loads the weights through a remote connector (S3, Redis, another server)"),
        (("--load-format=remote_instance",), "--load-format", "remote_instance: copies the weights from another SGLang instance over the network"),
        (("--load-f", "runai_streamer"), "--load-format", "runai_streamer: streams the weights from object storage with the Run:ai streamer"),
        (("--load-format", "presharded"), "--load-format", "presharded: writes a resharded checkpoint under the model directory or where its extra config says"),
        (("--load-format", "flash_rl"), "--load-format", "flash_rl: reads a FlashRL quantization profile from a host path"),
        (("--load-format", "private"), "--load-format", "a load format this plugin does not know to read only the model's files"),
        (("--speculative-draft-load-format", "remote"), "--speculative-draft-load-format", "remote: loads the weights through a remote connector (S3, Redis, another server)"),
    ],
)  # fmt: skip
def test_remote_and_unknown_load_formats_are_refused(args: tuple[str, ...], option: str, why: str) -> None:
    token = args[0].split("=")[0]
    assert problems(*args) == [
        message(token, option, f"selects a weight loader that reaches beyond the model's own files ({why})")
    ]
    assert problems(*args, allow_args=(option,)) == []


@pytest.mark.parametrize("fmt", ["auto", "safetensors", "pt", "layered", "dummy", "sharded_state"])
def test_local_load_formats_pass(fmt: str) -> None:
    assert problems("--load-format", fmt) == []
    assert problems(f"--speculative-draft-load-format={fmt}") == []


# --- files read as root -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("--ssl-keyfile", "/etc/ssl/private/other.key"), "--ssl-keyfile"),
        (("--ssl-keyfile=/etc/ssl/private/other.key",), "--ssl-keyfile"),
        (("--ssl-certfile", "/etc/ssl/other.pem"), "--ssl-certfile"),
        (("--ssl-ca", "/etc/ssl/ca.pem"), "--ssl-ca-certs"),
        (("--quantization-param-path", "/models/m/kv.json"), "--quantization-param-path"),
        (("--speculative-token-map", "/etc/shadow"), "--speculative-token-map"),
        (("--rl-quant-profile", "/x"), "--rl-quant-profile"),
        (("--decrypted-config-file", "/x"), "--decrypted-config-file"),
        (("--decrypted-draft-config-file=/x",), "--decrypted-draft-config-file"),
    ],
)
def test_host_files_are_refused_unless_allowed(args: tuple[str, ...], option: str) -> None:
    token = args[0].split("=")[0]
    assert problems(*args) == [message(token, option, HOST_ACCESS[option])]
    assert problems(*args, allow_args=(option,)) == []


def test_the_key_file_is_not_mistaken_for_its_password() -> None:
    (problem,) = problems("--ssl-keyfile", "/k")
    assert "(--ssl-keyfile) loads the TLS private key" in problem
    assert "secret" not in problem


@pytest.mark.parametrize(
    ("args", "refused"),
    [
        (("--model-checksum",), False),
        (("--model-checksum", "--enable-metrics-for-all-schedulers"), False),
        (("--model-checksum", "/srv/sums.json"), True),
        (("--model-checksum=org/repo",), True),
        (("--init-expert-location", "trivial"), False),
        (("--init-expert-location", '{"physical_to_logical_map": [[0]]}'), False),
        (("--init-expert-location", "/srv/placement.pt"), True),
        (("--init-expert-location=/srv/placement.JSON",), True),
    ],
)
def test_options_refused_only_with_a_path(args: tuple[str, ...], refused: bool) -> None:
    assert bool(problems(*args)) is refused


def test_every_new_option_is_known_and_allowable() -> None:
    for option in (*VALUE_CHECKED, *HOST_ACCESS):
        assert option in SYNTAX.known, option
        assert option in ALLOWABLE, option
