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


# --- the sweep of every 0.5.23 option that names a path, a service or a store -----------------


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("--kt-weight-path", "/etc"), "--kt-weight-path"),
        (("--kt-weight-path=/etc",), "--kt-weight-path"),
        (("--kt-weight", "/etc"), "--kt-weight-path"),
        (("--speculative-ngram-external-corpus-path", "/etc/shadow"), "--speculative-ngram-external-corpus-path"),
        (("--speculative-ngram-external-corpus-p=/etc/shadow",), "--speculative-ngram-external-corpus-path"),
        (("--spec-trace-dir", "/etc"), "--spec-trace-dir"),
        (("--spec-trace=/etc",), "--spec-trace-dir"),
        (("--uno-lora-path", "/srv/other"), "--uno-lora-path"),
        (("--speculative-dspark-sps-table-path", "/x.json"), "--speculative-dspark-sps-table-path"),
        (("--speculative-dspark-confidence-sts-path", "/x.json"), "--speculative-dspark-confidence-sts-path"),
        (("--speculative-adaptive-config", "/x.json"), "--speculative-adaptive-config"),
        (("--speculative-adaptive-c", "/x.json"), "--speculative-adaptive-config"),
        (("--pdmux-config-path", "/x.yaml"), "--pdmux-config-path"),
        (("--dllm-algorithm-config", "/x.yaml"), "--dllm-algorithm-config"),
        (("--lmcache-config-file", "/x.yaml"), "--lmcache-config-file"),
        (("--flexkv-config-file", "/x.json"), "--flexkv-config-file"),
        (("--ple-offload-dir", "/etc"), "--ple-offload-dir"),
        (("--delete-ckpt-after-loading",), "--delete-ckpt-after-loading"),
        (("--delete-ckpt",), "--delete-ckpt-after-loading"),
        (("--weight-cache-socket", "/tmp/evil.sock"), "--weight-cache-socket"),
        (("--forward-pass-metrics-ipc-name", "ipc:///etc/x"), "--forward-pass-metrics-ipc-name"),
        (("--decoupled-spec-bind-endpoint", "ipc:///etc/x"), "--decoupled-spec-bind-endpoint"),
        (("--decoupled-spec-connect-endpoints", '["tcp://10.0.0.9:5000", "tcp://10.0.0.8:5000"]'), "--decoupled-spec-connect-endpoints"),
        (("--encoder-urls", "http://10.0.0.9:8000"), "--encoder-urls"),
        (("--encoder-register-urls=http://10.0.0.9:8997",), "--encoder-register-urls"),
        (("--hicache-storage-backend", "file"), "--hicache-storage-backend"),
        (("--hicache-storage-backend=mooncake",), "--hicache-storage-backend"),
        (("--enable-unified-cache-external-linker",), "--enable-unified-cache-external-linker"),
        (("--enable-mm-global-cache",), "--enable-mm-global-cache"),
        (("--use-ray",), "--use-ray"),
    ],
)  # fmt: skip
def test_swept_options_that_reach_paths_services_or_stores_are_refused(
    args: tuple[str, ...], option: str
) -> None:
    token = args[0].split("=")[0]
    assert problems(*args) == [message(token, option, HOST_ACCESS[option])]
    assert problems(*args, allow_args=(option,)) == []


def test_a_refused_flag_before_a_value_option_keeps_the_args_readable() -> None:
    # A flag takes no value and a list option takes every word after it: neither leaves
    # a stray positional, and each is refused once.
    found = problems(
        "--use-ray", "--encoder-urls", "http://a:1", "http://b:2", "--mem-fraction-static", "0.8"
    )
    assert [p.split(") ")[0] for p in found] == [
        "profile 'p': args: '--use-ray' (--use-ray",
        "profile 'p': args: '--encoder-urls' (--encoder-urls",
    ]


DEEPEP_WHY = "reads the DeepEP config from the host file it names, as root (inline JSON passes)"
IB_WHY = (
    "reads the per-GPU device mapping from the host file it names, as root (a value ending in "
    ".json is a file; device names and inline JSON pass)"
)
WEIGHT_CACHE_WHY = (
    "shares the model weights through a Unix socket under /tmp: 'client' loads them from "
    "whatever process listens there, which any local user can start, and 'daemon' serves them "
    "there ('off' passes)"
)


@pytest.mark.parametrize(
    ("args", "option", "why"),
    [
        (("--deepep-config", "/etc/shadow"), "--deepep-config", DEEPEP_WHY),
        (("--deepep-config=/etc/shadow",), "--deepep-config", DEEPEP_WHY),
        (("--deepep-conf", "/etc/shadow"), "--deepep-config", DEEPEP_WHY),
        (("--deepep-config", "tuned.json"), "--deepep-config", DEEPEP_WHY),
        # Not an object, or what orjson refuses although Python's reader takes it: a file name.
        (("--deepep-config", '"/etc/shadow"'), "--deepep-config", DEEPEP_WHY),
        (("--deepep-config", '{"normal_dispatch": NaN}'), "--deepep-config", DEEPEP_WHY),
        (("--disaggregation-ib-device", "/etc/ib.json"), "--disaggregation-ib-device", IB_WHY),
        (("--disaggregation-ib-device=/srv/map.JSON",), "--disaggregation-ib-device", IB_WHY),
        (("--disaggregation-ib", " /etc/ib.json "), "--disaggregation-ib-device", IB_WHY),
        (("--weight-cache-mode", "client"), "--weight-cache-mode", WEIGHT_CACHE_WHY),
        (("--weight-cache-mode=daemon",), "--weight-cache-mode", WEIGHT_CACHE_WHY),
        (("--weight-cache-m", "client"), "--weight-cache-mode", WEIGHT_CACHE_WHY),
    ],
)
def test_options_that_read_a_file_for_some_values_are_refused(
    args: tuple[str, ...], option: str, why: str
) -> None:
    token = args[0].split("=")[0]
    (problem,) = problems(*args)
    assert problem == message(token, option, why)
    assert "shadow" not in problem
    assert "/srv" not in problem
    assert problems(*args, allow_args=(option,)) == []


@pytest.mark.parametrize(
    "args",
    [
        ("--deepep-config", '{"normal_dispatch": {"num_sms": 24}, "normal_combine": {"num_sms": 24}}'),
        ('--deepep-config={"normal_dispatch": {"num_sms": 24}}',),
        ("--disaggregation-ib-device", "mlx5_0,mlx5_1"),
        ("--disaggregation-ib-device", '{"0": "mlx5_0", "1": "mlx5_1"}'),
        ("--weight-cache-mode", "off"),
        ("--weight-cache-timeout", "30"),
        ("--dllm-algorithm", "LowConfidence"),
        ("--speculative-adaptive",),
        ("--speculative-ngram-external-sam-budget", "4"),
        ("--enable-hierarchical-cache", "--hicache-size", "16"),
        ("--disaggregation-mode", "prefill", "--disaggregation-transfer-backend", "nixl"),
        ("--enable-lmcache",),
        ("--kt-method", "AMXINT4", "--kt-cpuinfer", "8"),
        ("--encoder-transfer-backend", "zmq_to_scheduler"),
        ("--encoder-only",),
    ],
)
def test_the_neighbours_of_swept_options_pass(args: tuple[str, ...]) -> None:
    assert problems(*args) == []


def test_the_parser_knows_every_option_of_the_release() -> None:
    # An exact option wins in argparse: with all of them known, a prefix is read as the
    # release reads it, and a real option is never taken for an abbreviation.
    assert SYNTAX.meanings("--dllm-algorithm") == {"--dllm-algorithm"}
    assert SYNTAX.meanings("--speculative-adaptive") == {"--speculative-adaptive"}
    assert SYNTAX.meanings("--kt-weight") == {"--kt-weight-path"}
    # The draft model's alias reaches the path option's value check through its prefix.
    assert "--speculative-draft-model-path" in SYNTAX.meanings("--speculative-draft-model")


# --- reasons and order, pinned (mutation run of the rewritten policy) ------------------------


def test_a_checksum_source_is_refused_for_what_it_reads() -> None:
    assert problems("--model-checksum", "/srv/sums.json") == [
        message(
            "--model-checksum",
            "--model-checksum",
            "reads the checksums file or repository it names (given alone, it checks model_path)",
        )
    ]


def test_an_expert_placement_file_is_refused_for_what_it_reads() -> None:
    assert problems("--init-expert-location", "/srv/placement.pt") == [
        message(
            "--init-expert-location",
            "--init-expert-location",
            "reads the expert placement from the host file it names, as root ('trivial' and "
            "inline JSON pass)",
        )
    ]


def test_allowing_one_value_checked_option_leaves_the_next_one_checked() -> None:
    found = problems(
        "--tokenizer-path",
        "org/other",
        "--model-checksum",
        "/srv/sums.json",
        allow_args=("--tokenizer-path",),
    )
    assert found == [
        message(
            "--model-checksum",
            "--model-checksum",
            "reads the checksums file or repository it names (given alone, it checks model_path)",
        )
    ]
