"""Flags whose value vLLM reads as a host path, fetches, or imports: refused in every spelling.

Each refusal names the profile, the option as spelled, what vLLM would do, and the
``allow_args`` entry that opens it; none echoes the value. Legitimate values of the
same flags (inline templates, the model's own path, local load formats) still pass.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from enginekit.spec.convert import structure
from enginekit.testing import engine_for
from enginekit_vllm import VllmConfig, VllmEngine
from enginekit_vllm.argpolicy import SYNTAX, chat_template_is_path
from enginekit_vllm.flags import ALLOWABLE, HOST_ACCESS, MODEL_SOURCES, PATH_KEYS
from vllm_specs import profile

P = "profile 'llama70b-h100x8': "
MODEL = "/models/meta-llama/Llama-3.1-70B-Instruct"
ALLOW = 'refused unless the site allows it (engines.vllm.allow_args = ["{}"])'
TEMPLATE_WHY = (
    "reads the chat template from the host path it names, as root, and /tokenize shows it to "
    "anyone (a value is a path when it has a '/' before its first '{{', '{%' or '{#', or "
    "anywhere when it has none; inline templates pass)"
)
LLAMA2 = "{% for m in messages %}[INST] {{ m['content'] }} [/INST]{% endfor %}"


def problems(args: Sequence[str], **config: object) -> list[str]:
    engine = engine_for(VllmEngine(VllmConfig(**config)), "vllm")  # type: ignore[arg-type]
    return engine.validate(profile(tp=1, args=tuple(args)), ())


# --- --chat-template: a path, or an inline template ------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--chat-template", "/etc/shadow"],
        ["--chat-template=/etc/shadow"],
        ["--chat_template", "/etc/shadow"],
        ["--chat_template=/root/.ssh/id_rsa"],
        ["--chat-template", "/srv/templates/llama.jinja"],
        ["--chat-template", "../../etc/shadow"],
        ["--chat-template", "https://example.com/t.jinja"],
        # A directory a local user named after Jinja, holding a link to /etc/shadow.
        ["--chat-template", "/tmp/{{x}}"],
        ["--chat-template", "/tmp/{% x %}/shadow"],
    ],
)
def test_a_chat_template_path_is_refused_in_every_spelling(args: list[str]) -> None:
    token = args[0].split("=")[0]
    assert problems(args) == [
        f"{P}args: {token!r} (--chat-template) {TEMPLATE_WHY}; {ALLOW.format('--chat-template')}"
    ]
    assert problems(args, allow_args=("--chat-template",)) == []


@pytest.mark.parametrize(
    "template",
    [
        LLAMA2,
        "{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}",
        "{#- comment -#}{{ messages[0]['content'] }}",
        "<|im_start|>{{ messages[-1].content }}<|im_end|>",
        "template_chatml.jinja",  # a built-in template's file name: no directory
    ],
)
def test_inline_templates_and_bare_names_pass(template: str) -> None:
    assert problems(["--chat-template", template]) == []
    assert problems([f"--chat-template={template}"]) == []


def test_the_template_value_is_never_echoed() -> None:
    (problem,) = problems(["--chat-template", "/home/alice/secret-notes.txt"])
    assert "alice" not in problem


@pytest.mark.parametrize(
    ("value", "is_path"),
    [
        ("/etc/shadow", True),
        ("relative/dir/t.jinja", True),
        ("t.jinja", False),
        ("{{ x }}", False),
        ("{% if a %}[/INST]{% endif %}", False),
        ("prefix/{{ x }}", True),
        ("{# c #}/etc", False),
        ("", False),
    ],
)
def test_which_chat_template_values_are_paths(value: str, is_path: bool) -> None:
    assert chat_template_is_path(value) is is_path


# --- another model's tokenizer or config ------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--tokenizer", "org/other-repo"], "--tokenizer"),
        (["--tokenizer=/etc"], "--tokenizer"),
        (["--hf-config-path", "org/other-repo"], "--hf-config-path"),
        (["--hf_config_path=/srv/other"], "--hf-config-path"),
        (["--hf-config", "org/other-repo"], "--hf-config-path"),
        (["--generation-config", "/srv/other"], "--generation-config"),
        (["--generation_config=org/repo"], "--generation-config"),
    ],
)
def test_another_repository_or_path_for_part_of_the_model_is_refused(args: list[str], option: str) -> None:
    token = args[0].split("=")[0]
    assert problems(args) == [
        f"{P}args: {token!r} ({option}) {MODEL_SOURCES[option]}, not the profile's model_path; {ALLOW.format(option)}"
    ]
    assert problems(args, allow_args=(option,)) == []


@pytest.mark.parametrize(
    "args",
    [
        ["--tokenizer", MODEL],
        [f"--tokenizer={MODEL}"],
        ["--hf-config-path", MODEL],
        ["--generation-config", "auto"],
        ["--generation-config", "vllm"],
        ["--generation-config", MODEL],
        ["--tokenizer-mode", "auto", "--tokenizer-revision", "main"],
    ],
)
def test_the_models_own_path_and_keywords_pass(args: list[str]) -> None:
    assert problems(args) == []


def test_allowing_one_value_checked_flag_leaves_the_next_one_checked() -> None:
    args = ["--tokenizer", "org/other-repo", "--chat-template", "/etc/passwd"]
    assert problems(args, allow_args=("--tokenizer",)) == [
        f"{P}args: '--chat-template' (--chat-template) {TEMPLATE_WHY}; {ALLOW.format('--chat-template')}"
    ]


# --- load formats -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["--load-format", "runai_streamer"], "runai_streamer: streams the weights from object storage with the Run:ai streamer"),
        (["--load_format=runai_streamer_sharded"], "runai_streamer_sharded: streams pre-sharded weights from object storage with the Run:ai streamer"),
        (["--load-format", "RUNAI_STREAMER"], "runai_streamer: streams the weights from object storage with the Run:ai streamer"),
        (["--load-f", "tensorizer"], "tensorizer: streams the weights with tensorizer from the URI its extra config names (S3, HTTP)"),
        (["--load-format", "modelexpress"], "modelexpress: loads the weights from a peer-to-peer weight service"),
        (["--load-format", "my_plugin_loader"], "a load format this plugin does not know to read only the model's files"),
    ],
)  # fmt: skip
def test_load_formats_that_reach_beyond_the_models_files_are_refused(args: list[str], why: str) -> None:
    token = args[0].split("=")[0]
    assert problems(args) == [
        f"{P}args: {token!r} (--load-format) selects a weight loader that reaches beyond the model's "
        f"own files ({why}); {ALLOW.format('--load-format')}"
    ]
    assert problems(args, allow_args=("--load-format",)) == []


def test_an_unknown_load_format_is_not_echoed() -> None:
    (problem,) = problems(["--load-format", "s3://bucket/creds"])
    assert "bucket" not in problem


@pytest.mark.parametrize(
    "fmt",
    ["auto", "safetensors", "pt", "fastsafetensors", "dummy", "sharded_state", "mistral", "Safetensors"],
)
def test_load_formats_that_read_only_the_model_pass(fmt: str) -> None:
    assert problems(["--load-format", fmt]) == []
    assert problems([f"--load-format={fmt}"]) == []


# --- JSON keys that import code, run programs or fetch models ---------------------------------

COMPILE = "--compilation-config"
SPEC = "--speculative-config"
IMPORTS = "which imports the code it names"


@pytest.mark.parametrize(
    "args",
    [
        [COMPILE, '{"inductor_passes": {"x": "mod.f"}}'],
        ['--compilation_config={"mode": 3, "inductor_passes": {"x": "mod.f"}}'],
        ["--compilation-config.inductor_passes", '{"x": "mod.f"}'],
        ["--compilation-config.inductor_passes.x", "mod.f"],
        ["-cc.inductor_passes.x", "mod.f"],
        ["-cc", '{"inductor-passes": {"x": "mod.f"}}'],
        ["-O", '{"inductor_passes": {"x": "mod.f"}}'],
        [COMPILE, '{"inductor_pass\\u0065s": {"x": "mod.f"}}'],
    ],
)
def test_inductor_passes_are_imports_and_refused_in_every_spelling(args: list[str]) -> None:
    token = args[0].split("=")[0]
    assert problems(args) == [
        f"{P}args: {token!r} ({COMPILE}) sets inductor_passes, {IMPORTS}; {ALLOW.format(COMPILE)}"
    ]
    assert problems(args, allow_args=(COMPILE,)) == []


INDUCTOR = (
    "inductor_compile_config, TorchInductor's own options, which name programs it runs and places "
    "it writes, as root"
)


@pytest.mark.parametrize(
    "args",
    [
        [COMPILE, '{"inductor_compile_config": {"cpp.cxx": "/tmp/evil"}}'],
        [COMPILE, '{"inductor_compile_config": {"post_grad_custom_post_pass": "m.f"}}'],
        ["--compilation-config.inductor_compile_config.max_autotune", "true"],
        ["-cc.inductor_compile_config", '{"trace.debug_dir": "/etc"}'],
    ],
)
def test_inductor_options_are_refused(args: list[str]) -> None:
    assert problems(args) == [f"{P}args: {args[0]!r} ({COMPILE}) sets {INDUCTOR}; {ALLOW.format(COMPILE)}"]
    assert problems(args, allow_args=(COMPILE,)) == []


@pytest.mark.parametrize(
    "args",
    [
        [COMPILE, '{"pass_config": {"fuse_norm_quant": true}, "custom_ops": ["+rms_norm"]}'],
        [COMPILE, '{"splitting_ops": [], "cudagraph_mode": "FULL"}'],
        ["--compilation-config.pass_config.enable_sp", "true"],
        ["-cc.custom_ops+", "-quant_fp8"],
        ["-O3"],
    ],
)
def test_compilation_keys_that_name_no_code_pass(args: list[str]) -> None:
    assert problems(args) == []


DRAFT = "model, the draft model it downloads or reads (or the class it imports), as root"


@pytest.mark.parametrize(
    "args",
    [
        [SPEC, '{"model": "org/draft", "num_speculative_tokens": 5}'],
        ["-sc", '{"method": "custom_class", "model": "evil.Proposer"}'],
        ["--speculative-config.model", "org/draft"],
        ["--speculative_config.model=org/draft"],
    ],
)
def test_a_draft_model_is_refused(args: list[str]) -> None:
    token = args[0].split("=")[0]
    assert problems(args) == [f"{P}args: {token!r} ({SPEC}) sets {DRAFT}; {ALLOW.format(SPEC)}"]
    assert problems(args, allow_args=(SPEC,)) == []


def test_a_draft_load_config_is_refused() -> None:
    (problem,) = problems([SPEC, '{"method": "eagle", "draft_load_config": {"load_format": "tensorizer"}}'])
    assert "sets draft_load_config, how the draft model is loaded" in problem


@pytest.mark.parametrize(
    "args",
    [
        [SPEC, '{"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 4}'],
        ["--speculative-config.method", "mtp"],
        ["--spec-method", "ngram", "--spec-tokens", "3"],
    ],
)
def test_speculation_without_another_model_passes(args: list[str]) -> None:
    assert problems(args) == []


def test_spec_model_and_the_loader_extra_keys_are_refused() -> None:
    assert problems(["--spec-model", "org/draft"]) == [
        f"{P}args: '--spec-model' (--spec-model) {HOST_ACCESS['--spec-model']}; {ALLOW.format('--spec-model')}"
    ]
    (problem,) = problems(["--model-loader-extra-config", '{"tensorizer_uri": "s3://b/m"}'])
    assert "sets tensorizer_uri, the URI tensorizer streams the weights from" in problem
    assert (
        problems(["--model-loader-extra-config", '{"enable_multithread_load": true, "num_threads": 8}']) == []
    )


# --- KV and encoder-cache connectors: their extra config, addresses and names ------------------

KV = "--kv-transfer-config"
EC = "--ec-transfer-config"
KV_EXTRA = (
    "kv_connector_extra_config, the connector's own settings, which name directories it writes "
    "caches to, services it connects to and modules it imports, as root"
)
EC_EXTRA = KV_EXTRA.replace("kv_connector_extra_config", "ec_connector_extra_config")
STORAGE = "which writes caches as root under a host directory (/tmp by default)"
NOT_JUDGED = (
    "a connector this plugin has not judged to keep to the node: other names are imported from "
    "a module path or registered by plugins, and vLLM's other connectors connect to services or "
    "read files of their own (only these pass: DecodeBenchConnector, NixlConnector, OffloadingConnector)"
)
SHARED_STORAGE = (
    '{"kv_connector": "NixlConnector", "kv_role": "kv_both", '
    '"kv_connector_extra_config": {"shared_storage_path": "/etc/cron.d"}}'
)


@pytest.mark.parametrize(
    "args",
    [
        [KV, SHARED_STORAGE],
        [f"{KV}={SHARED_STORAGE}"],
        ["--kv_transfer_config", SHARED_STORAGE],
        ["--kv-transfer", SHARED_STORAGE],
        [f"{KV}.kv_connector_extra_config.shared_storage_path", "/etc/cron.d"],
        [f"{KV}.kv_connector_extra_config.shared_storage_path=/etc/cron.d"],
        ["--kv_transfer_config.kv-connector-extra-config.shared_storage_path", "/x"],
        [f"{KV}.kv_connector_extra_config", '{"shared_storage_path": "/x"}'],
        [f"{KV}.kv_connector_extra_config.connectors+", '{"kv_connector": "ExampleConnector"}'],
        # Any content: a module OffloadingConnector imports, a proxy P2pNccl connects to.
        [
            KV,
            '{"kv_connector": "OffloadingConnector", "kv_connector_extra_config": {"spec_module_path": "m"}}',
        ],
        [KV, '{"kv_connector": "NixlConnector", "kv_connector_extra_config": {}}'],
        [KV, '{"kv_connector": "NixlConnector", "kv_connector_extra_\\u0063onfig": {"a": 1}}'],
        [KV, '{"kv_connector": "NixlConnector", "kv_buffer_size": 80m, "kv_connector_extra_config": {}}'],
        [KV, '{"kv-connector-extra-config": {"proxy_ip": "10.0.0.9"}}'],
    ],
)
def test_a_connectors_extra_config_is_refused_whatever_it_holds(args: list[str]) -> None:
    token = args[0].split("=")[0]
    assert problems(args) == [f"{P}args: {token!r} ({KV}) sets {KV_EXTRA}; {ALLOW.format(KV)}"]
    assert problems(args, allow_args=(KV,)) == []


@pytest.mark.parametrize(
    "args",
    [
        [EC, '{"ec_connector_extra_config": {"shared_storage_path": "/etc"}}'],
        ["--ec_transfer_config.ec_connector_extra_config.shared_storage_path", "/etc"],
        [f"{EC}.ec-connector-extra-config", "{}"],
    ],
)
def test_an_encoder_cache_connectors_extra_config_is_refused(args: list[str]) -> None:
    assert problems(args) == [f"{P}args: {args[0]!r} ({EC}) sets {EC_EXTRA}; {ALLOW.format(EC)}"]
    assert problems(args, allow_args=(EC,)) == []


@pytest.mark.parametrize(
    ("args", "option", "key"),
    [
        ([f"{KV}.kv_ip", "10.0.0.9"], KV, "kv_ip"),
        ([KV, '{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_ip": "10.0.0.9"}'], KV, "kv_ip"),
        ([f"{EC}.ec_ip=10.0.0.9"], EC, "ec_ip"),
        # A dotted key's value is that key's alone: a backslash in it hides no other key,
        # so the whole-value escape check does not take the refusal over.
        ([f"{KV}.kv_ip", "10.0.0.9\\x"], KV, "kv_ip"),
    ],
)
def test_a_connector_address_is_refused(args: list[str], option: str, key: str) -> None:
    token = args[0].split("=")[0]
    assert problems(args) == [
        f"{P}args: {token!r} ({option}) sets {key}, the address the connector binds or connects to, "
        f"as root; {ALLOW.format(option)}"
    ]
    assert problems(args, allow_args=(option,)) == []


@pytest.mark.parametrize(
    "args",
    [
        [KV, '{"kv_connector": "SharedStorageConnector", "kv_role": "kv_both"}'],
        [KV, '{"kv_connector": "ExampleConnector", "kv_role": "kv_both"}'],
        [f"{KV}.kv_connector", "ExampleConnector"],
        [f"{KV}.kv_connector", '"ExampleConnector"'],
        ["--kv_transfer.kv-connector=ExampleConnector"],
        # A key given twice: whichever vLLM keeps, ExampleConnector is one of them.
        [KV, '{"kv_connector": "ExampleConnector", "kv_connector": "NixlConnector", "kv_role": "kv_both"}'],
        [KV, '{"kv_connector": "NixlConnector", "kv_connector": "ExampleConnector", "kv_role": "kv_both"}'],
        # Wherever the key stands, after other keys or after a null vLLM would not keep.
        [KV, '{"kv_role": "kv_both", "kv_connector": "ExampleConnector"}'],
        [KV, '{"kv_connector": null, "kv_connector": "ExampleConnector"}'],
        # In a value JSON cannot read, under the dashed spelling of the key too.
        [KV, '{"kv-connector": "ExampleConnector", "kv_role": kv_both}'],
    ],
)
def test_a_connector_that_writes_under_tmp_is_refused(args: list[str]) -> None:
    (problem,) = problems(args)
    assert problem.startswith(f"{P}args: {args[0].split('=')[0]!r} ({KV}) sets kv_connector to ")
    assert problem.endswith(f", {STORAGE}; {ALLOW.format(KV)}")
    assert problems(args, allow_args=(KV,)) == []


@pytest.mark.parametrize(
    "args",
    [
        [KV, '{"kv_connector": "P2pNcclConnector", "kv_role": "kv_both"}'],
        [KV, '{"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}'],
        [KV, '{"kv_connector": "MyPluginConnector", "kv_role": "kv_both", "kv_buffer_size": 80m}'],
        [KV, '{"kv_connector": "nixlconnector", "kv_role": "kv_both"}'],  # the registry is exact
        [f"{KV}.kv_connector", "EvilConnector"],
        [f"{KV}.kv_connector=/etc/x"],
        # A size-suffixed number (vLLM expands it before reading the JSON) before, between
        # or after the strings does not stop the name from being read and judged.
        [KV, '{"kv_buffer_size": 80m, "kv_connector": "my.module.Connector", "kv_role": "kv_both"}'],
        [KV, '{"kv_role": "kv_both", "kv_connector": "my.module.Connector", "kv_buffer_size": 1.5Gi}'],
    ],
)
def test_a_connector_not_judged_safe_is_refused_without_echoing_it(args: list[str]) -> None:
    token = args[0].split("=")[0]
    assert problems(args) == [
        f"{P}args: {token!r} ({KV}) sets kv_connector to {NOT_JUDGED}; {ALLOW.format(KV)}"
    ]
    assert problems(args, allow_args=(KV,)) == []


@pytest.mark.parametrize(
    "args",
    [
        [KV, '{"kv_connector": Evil, "kv_role": "kv_both"}'],
        [KV, '{"kv_connector": ["NixlConnector"]}'],
        # A dotted value that is JSON but not a string names no connector vLLM registers.
        [f"{KV}.kv_connector", '["NixlConnector"]'],
        [f"{KV}.kv_connector", "5"],
    ],
)
def test_a_connector_name_that_cannot_be_read_is_refused(args: list[str]) -> None:
    (problem,) = problems(args)
    assert "sets kv_connector to a connector this plugin cannot read from the value" in problem


@pytest.mark.parametrize(
    "args",
    [
        [EC, '{"ec_connector": "ECExampleConnector", "ec_role": "ec_both"}'],
        [f"{EC}.ec_connector", "ECCPUConnector"],
    ],
)
def test_every_encoder_cache_connector_needs_the_site(args: list[str]) -> None:
    (problem,) = problems(args)
    assert f"({EC}) sets ec_connector to " in problem
    assert problems(args, allow_args=(EC,)) == []


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        ([KV, '{"kv_connector": "ExampleConnector"}'], "ExampleConnector"),
        ([f"{KV}.kv_connector", "SharedStorageConnector"], "SharedStorageConnector"),
        (
            [KV, '{"kv_connector": "SharedStorageConnector", "kv_connector": "ExampleConnector"}'],
            "ExampleConnector, SharedStorageConnector",
        ),
    ],
)
def test_a_storage_connector_is_named_as_vllm_spells_it(args: list[str], shown: str) -> None:
    # Only vLLM's own names are repeated, each once, and only the ones the value selects.
    assert problems(args) == [
        f"{P}args: {args[0]!r} ({KV}) sets kv_connector to {shown}, {STORAGE}; {ALLOW.format(KV)}"
    ]


def test_an_encoder_cache_connector_says_that_none_passes_without_the_site() -> None:
    assert problems([EC, '{"ec_connector": "ECCPUConnector"}']) == [
        f"{P}args: {EC!r} ({EC}) sets ec_connector to {NOT_JUDGED.split(' (only')[0]} (only these "
        f"pass: none does); {ALLOW.format(EC)}"
    ]


def test_allowing_one_connector_flag_leaves_the_other_checked() -> None:
    args = [KV, '{"kv_connector": "ExampleConnector"}', EC, '{"ec_connector": "ECExampleConnector"}']
    assert problems(args, allow_args=(KV,)) == [
        f"{P}args: {EC!r} ({EC}) sets ec_connector to ECExampleConnector, {STORAGE}; {ALLOW.format(EC)}"
    ]


def test_a_key_is_matched_whole_only_a_list_append_plus_is_dropped() -> None:
    # "kv_ipX" is another key (vLLM refuses it at start); "kv_ip+" appends to kv_ip.
    assert problems([KV, '{"kv_connector": "NixlConnector", "kv_ipX": "10.0.0.9"}']) == []
    assert problems([f"{KV}.kv_ipX", "10.0.0.9"]) == []
    assert len(problems([f"{KV}.kv_ip+", "10.0.0.9"])) == 1


@pytest.mark.parametrize(
    "args",
    [
        [KV, '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'],
        [f'{KV}={{"kv_connector": "NixlConnector", "kv_role": "kv_producer"}}'],
        [KV, '{"kv_connector": "OffloadingConnector", "kv_role": "kv_both", "kv_buffer_size": 80m}'],
        [KV, '{"kv_connector": "DecodeBenchConnector", "kv_role": "kv_both", "kv_port": 14579}'],
        [f"{KV}.kv_connector", "NixlConnector", f"{KV}.kv_role", "kv_both"],
        [f"{KV}.kv_connector", '"NixlConnector"'],
        [KV, '{"kv_role": "kv_both", "kv_rank": 0, "kv_parallel_size": 2}'],
        [EC, '{"ec_role": "ec_both", "ec_buffer_size": 1e9}'],
    ],
)
def test_a_built_in_connector_without_extra_config_passes(args: list[str]) -> None:
    assert problems(args) == []


# --- host files read as root ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--ssl-keyfile", "/etc/ssl/private/other.key"], "--ssl-keyfile"),
        (["--ssl_keyfile=/etc/ssl/private/other.key"], "--ssl-keyfile"),
        (["--ssl-certfile", "/etc/ssl/certs/other.pem"], "--ssl-certfile"),
        (["--ssl-ca-certs", "/etc/ssl/ca.pem"], "--ssl-ca-certs"),
        (["--ssl-ca", "/etc/ssl/ca.pem"], "--ssl-ca-certs"),
        (["--mm-encoder-fp8-scale-path", "/etc/shadow"], "--mm-encoder-fp8-scale-path"),
        (["--default-mm-loras", '{"image": "/srv/other-lora"}'], "--default-mm-loras"),
        (["--default_mm_loras={}"], "--default-mm-loras"),
    ],
)
def test_host_files_read_as_root_are_refused_unless_allowed(args: list[str], option: str) -> None:
    token = args[0].split("=")[0]
    assert problems(args) == [f"{P}args: {token!r} ({option}) {HOST_ACCESS[option]}; {ALLOW.format(option)}"]
    assert problems(args, allow_args=(option,)) == []


def test_tls_needs_every_file_allowed() -> None:
    args = ["--ssl-keyfile", "/k", "--ssl-certfile", "/c"]
    assert len(problems(args)) == 2
    assert problems(args, allow_args=("--ssl-keyfile", "--ssl-certfile")) == []


# --- what stays accepted ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--enforce-eager"],
        ["--max-model-len", "4096"],
        ["--gpu-memory-utilization=0.9"],
        ["--load-format", "safetensors"],
        ["--chat-template", LLAMA2],
        [
            "--max-model-len",
            "4096",
            "--enforce-eager",
            "--gpu-memory-utilization=0.9",
            "--load-format",
            "auto",
        ],
        ["--chat-template-content-format", "openai"],
        ["--ssl-cert-reqs", "0"],
    ],
)
def test_legitimate_arguments_still_pass(args: list[str]) -> None:
    assert problems(args) == []


def test_the_new_flags_can_be_allowed_and_are_known_options() -> None:
    flags = ("--chat-template", "--tokenizer", "--load-format", "--ssl-keyfile", "--speculative-config")
    config, _ = structure({"allow_args": list(flags)}, VllmConfig, path="engines.vllm")
    assert config.allow_args == flags
    for flag in (*HOST_ACCESS, *PATH_KEYS, *MODEL_SOURCES, "--chat-template", "--load-format"):
        assert flag in SYNTAX.known, flag
        assert flag in ALLOWABLE, flag
