"""vLLM launch and argument rules, each pinned with the reason it exists (issue 17's survivors).

The refused-flag tables hold their OWN copy of each code-loading flag, code-naming JSON
key and secret flag, with the reason: a test iterating ``flags.CODE_LOADING`` cannot
notice an entry disappearing from it.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from enginekit.plugin import EngineError, node_ip
from enginekit.testing import engine_for
from enginekit_vllm import VllmConfig, VllmEngine
from enginekit_vllm.argpolicy import SYNTAX
from enginekit_vllm.flags import CODE_KEYS, CODE_LOADING, SECRET_VALUES, SECRETS
from enginekit_vllm.launch import build
from vllm_specs import profile, single, two_node

GPU_UUIDS = tuple(f"GPU-8932f937-d72c-4106-c12f-20bd9faed9f{i}" for i in range(8))


def problems(args: Sequence[str], allowed: Sequence[str] = ()) -> list[str]:
    """What validating a profile named 'p' with ``args`` refuses: the core's checks and the plugin's."""
    engine = engine_for(VllmEngine(VllmConfig(allow_args=tuple(allowed))), "vllm")
    return engine.validate(profile(name="p", tp=1, args=tuple(args)))


# --- launch: which releases take GPU UUIDs -----------------------------------------------------


@pytest.mark.parametrize("version", ["0.24.0", "0.24.1", "0.25.0", "0.34.0", "1.0.0"])
def test_whole_gpus_by_uuid_run_from_0_24_0_on(version: str) -> None:
    # 0.24.0 is the first release that resolves a non-integer CUDA_VISIBLE_DEVICES entry.
    (command,) = build(VllmConfig(version=version), single(gpu_uuids=GPU_UUIDS), None)
    assert command.env["CUDA_VISIBLE_DEVICES"] == ",".join(GPU_UUIDS)


@pytest.mark.parametrize("version", ["0.23.0", "0.23.9", "0.23.9.9", "0.11.1"])
def test_whole_gpus_by_uuid_are_refused_before_0_24_0(version: str) -> None:
    # Those releases int() every entry and stop at start-up: refuse before launching.
    with pytest.raises(EngineError) as err:
        build(VllmConfig(version=version), single(gpu_uuids=GPU_UUIDS), None)
    assert str(err.value) == (
        f"shard r-7f3a-0: gpu_uuids: vLLM {version} reads every CUDA_VISIBLE_DEVICES entry with "
        "int() and stops at start-up on a UUID (fixed in 0.24.0); name the GPUs by gpu_indices alone"
    )


def test_gpu_indices_alone_run_on_any_release() -> None:
    (command,) = build(VllmConfig(version="0.11.1"), single(), None)
    assert command.env["CUDA_VISIBLE_DEVICES"] == "0,1,2,3,4,5,6,7"


# --- launch: CPU shards and their OpenMP pool ---------------------------------------------------


@pytest.mark.parametrize(
    ("threads", "per_node", "expected"),
    [(1, 2, "1"), (3, 2, "1"), (1, 4, "1"), (4, 2, "2"), (16, 1, "16"), (7, 2, "3")],
)
def test_a_cpu_shards_openmp_pool_is_its_share_of_the_reserved_cores_and_never_zero(
    threads: int, per_node: int, expected: str
) -> None:
    # OMP_NUM_THREADS=0 is not "automatic": OpenMP rejects it and falls back to every core
    # of the node, whoever else placement put there.
    cpu = profile(tp=per_node, gpus_per_node=per_node, args=())
    (command,) = build(
        VllmConfig(), single(gpu_indices=(), threads=threads, kv_cache_mib=1024, profile=cpu), None
    )
    assert command.env["OMP_NUM_THREADS"] == expected
    assert command.env["VLLM_CPU_OMP_THREADS_BIND"] == "nobind"


def test_a_cpu_shard_without_reserved_cores_leaves_openmp_to_vllm() -> None:
    (command,) = build(
        VllmConfig(),
        single(gpu_indices=(), threads=0, kv_cache_mib=1024, profile=profile(tp=1, args=())),
        None,
    )
    assert "OMP_NUM_THREADS" not in command.env
    assert "VLLM_CPU_OMP_THREADS_BIND" not in command.env
    assert command.env["VLLM_TARGET_DEVICE"] == "cpu"


# --- argpolicy: a code-naming JSON key, however it is spelled ------------------------------------

KV = "--kv-transfer-config"
KV_KEY = "kv_connector_module_path"


@pytest.mark.parametrize(
    "args",
    [
        # vLLM's reader takes 80m (not JSON), and decodes \u escapes in keys: the key is there.
        [KV, '{"cpu_bytes_to_use": 80m, "kv_connector_module\\u005fpath": "evil"}'],
        [KV, '{"kv_connector_module\\u005fpath": evil}'],
        [f'{KV}={{"kv_\\u0063onnector_module_path": evil.mod}}'],
    ],
)
def test_a_u_escaped_key_in_a_value_vllm_reads_but_json_does_not_is_refused(args: list[str]) -> None:
    (problem,) = problems(args)
    assert f"({KV}) sets {KV_KEY}, which imports the code it names" in problem
    assert problems(args, [KV]) == []


@pytest.mark.parametrize(
    "token",
    [
        f"{KV}.{KV_KEY}+",  # '+' appends to a list key: still the key
        f"{KV}.kv-connector-module-path",
        "--kv_transfer_config.kv_connector_module_path+",
        f"{KV}.{KV_KEY}+=evil",
    ],
)
def test_a_dotted_code_naming_key_is_refused_however_it_is_spelled(token: str) -> None:
    args = [token] if "=" in token else [token, "evil.Connector"]
    (problem,) = problems(args)
    assert f"({KV}) sets {KV_KEY}, which imports the code it names" in problem


@pytest.mark.parametrize(
    "args",
    [
        [f"{KV}.kv_connector", "NixlConnector"],
        [f"{KV}.kv_role+", "kv_both"],
        [KV, '{"kv_connector": "NixlConnector", "cpu_bytes_to_use": 80m}'],
        [KV, '{"kv_connector": "Nixl\\u0043onnector"}'],
    ],
)
def test_other_keys_of_a_code_naming_flag_pass(args: list[str]) -> None:
    # Only a non-JSON value with an escape is refused on suspicion; valid JSON is decoded.
    assert problems(args) == []


# --- the refused-flag tables, with reasons ---------------------------------------------------------

#: (flag, why a profile may not pass it unless the site allows it)
CODE_LOADING_ROWS: tuple[tuple[str, str], ...] = (
    ("--trust-remote-code", "runs the Python shipped in the model repository, as root"),
    ("--worker-cls", "imports the worker class its value names"),
    ("--worker-extension-cls", "imports the worker extension class its value names"),
    ("--scheduler-cls", "imports the scheduler class its value names"),
    ("--middleware", "imports the ASGI middleware its value names"),
    ("--tool-parser-plugin", "imports the Python file its value names"),
    ("--reasoning-parser-plugin", "imports the Python file its value names"),
    ("--logits-processors", "imports the logits processor classes its value names"),
    ("--model-class-overrides", "registers the module:class its value names as the model"),
    ("--log-config-file", "a logging dictConfig can import any callable"),
    ("--config", "reads options, refused ones included, from a YAML file enginekit never sees"),
    ("--trust-request-chat-template", "renders Jinja chat templates API clients send"),
    ("--allowed-local-media-path", "lets API clients read the server's files under that path"),
    ("--tool-server", "connects the model to tool servers; 'demo' runs model-generated code"),
)

#: (JSON flag, the key of it that names code to import)
CODE_KEY_ROWS: tuple[tuple[str, str, str], ...] = (
    ("--kv-transfer-config", "kv_connector_module_path", "imports the KV connector module it names"),
    (
        "--ec-transfer-config",
        "ec_connector_module_path",
        "imports the encoder-cache connector module it names",
    ),
    ("--ec-manager-config", "encoder_cache_manager_cls", "imports the encoder-cache manager class it names"),
    ("--compilation-config", "backend", "a dotted backend name is imported as the torch.compile backend"),
    ("--compilation-config", "inductor_passes", "each pass is a qualified function name, imported"),
    ("--logging-config", "pylogging_config_file", "a logging dictConfig file can import any callable"),
)

#: (flag, refused even bare?, why)
SECRET_ROWS: tuple[tuple[str, bool, str], ...] = (
    ("--api-key", True, "the key would be in argv, which every local user reads; it goes in VLLM_API_KEY"),
    ("--hf-token", False, "a token value in argv is published; a bare --hf-token uses the node's own"),
)


@pytest.mark.parametrize(("flag", "reason"), CODE_LOADING_ROWS, ids=[row[0] for row in CODE_LOADING_ROWS])
def test_every_code_loading_flag_is_refused_unless_the_site_allows_it(flag: str, reason: str) -> None:
    for token in (flag, "--" + flag[2:].replace("-", "_"), flag[:-1]):
        found = problems([token])
        assert any(f"({flag})" in p and "refused unless the site allows it" in p for p in found), (
            f"{token} is no longer refused: it {reason}"
        )
    assert problems([flag], [flag]) == [], f"allow_args = [{flag!r}] must open it"


@pytest.mark.parametrize(("flag", "key", "reason"), CODE_KEY_ROWS, ids=[row[0] for row in CODE_KEY_ROWS])
def test_every_code_naming_json_key_is_refused_unless_the_site_allows_its_flag(
    flag: str, key: str, reason: str
) -> None:
    for args in ([f"{flag}.{key}", "evil.x"], [flag, f'{{"{key}": "evil.x"}}']):
        found = problems(args)
        assert any(f"({flag}) sets {key}, which imports the code it names" in p for p in found), (
            f"{' '.join(args)} is no longer refused: {flag}'s {key} {reason}"
        )
        assert problems(args, [flag]) == []


@pytest.mark.parametrize(("flag", "bare", "reason"), SECRET_ROWS, ids=[row[0] for row in SECRET_ROWS])
def test_every_secret_flag_with_a_value_is_refused_and_its_value_never_echoed(
    flag: str, bare: bool, reason: str
) -> None:
    found = problems([f"{flag}=sk-not-shown-3f9c"])
    assert any(f"{flag} puts a secret on the command line" in p for p in found), (
        f"{flag}=… is accepted: {reason}"
    )
    assert not any("sk-not-shown" in p for p in found)
    assert bool(problems([flag])) is bare, f"bare {flag}: {reason}"


def test_every_refused_flag_has_a_row_with_its_reason_here() -> None:
    missing = (
        sorted(set(CODE_LOADING) - {row[0] for row in CODE_LOADING_ROWS})
        + sorted(
            f"{f}.{k}"
            for f, keys in CODE_KEYS.items()
            for k in keys
            if (f, k) not in {r[:2] for r in CODE_KEY_ROWS}
        )
        + sorted({*SECRETS, *SECRET_VALUES} - {row[0] for row in SECRET_ROWS})
    )
    assert not missing, f"refused flags without a row (and a reason) in this file: {missing}"


def test_every_refused_flag_is_a_known_option_so_its_prefixes_are_caught() -> None:
    for flag in (*CODE_LOADING, *CODE_KEYS, *SECRETS, *SECRET_VALUES):
        assert flag in SYNTAX.known, flag


def test_the_plugin_refuses_what_the_tables_refuse_through_validate() -> None:
    engine = engine_for(VllmEngine(), "vllm")
    found = engine.validate(profile(tp=1, args=("--trust-remote-code",)))
    assert any("(--trust-remote-code)" in p for p in found)


def test_a_dashed_code_naming_key_in_a_value_json_cannot_read_is_refused() -> None:
    (problem,) = problems([KV, '{"kv-connector-module-path": evil.Connector}'])
    assert f"({KV}) sets {KV_KEY}, which imports the code it names" in problem


# --- launch: what each generated variable is for (render --explain) -----------------------------

_HOST_IP_NATIVE = (
    "this node's management address: the leader binds the queue that feeds the other "
    "nodes there, and vLLM otherwise guesses from the default route"
)
_HOST_IP_RAY = (
    "this node's management address, the one Ray knows it by: Ray's workers inherit it, "
    "and vLLM matches workers to nodes by it"
)
_RAY_ADDRESS = (
    "the server joins this shard's own Ray head; left unset, Ray takes the cluster started "
    "last on this node, which may be another replica's"
)


def test_every_variable_vllm_adds_carries_its_reviewed_explanation() -> None:
    # What `render --explain` shows an operator: rewording one is a reviewed change.
    (server,) = build(VllmConfig(), single(), None)
    assert server.why["VLLM_API_KEY"] == "the API key: vLLM reads it from here, never from argv"
    assert server.secret_env == frozenset({"VLLM_API_KEY"})
    cpu = profile(tp=2, gpus_per_node=2, args=())
    (command,) = build(
        VllmConfig(), single(gpu_indices=(), threads=4, kv_cache_mib=4096, profile=cpu, api_key=""), None
    )
    assert {
        key: command.why[key]
        for key in (
            "VLLM_TARGET_DEVICE",
            "VLLM_CPU_KVCACHE_SPACE",
            "VLLM_CPU_OMP_THREADS_BIND",
            "OMP_NUM_THREADS",
        )
    } == {
        "VLLM_TARGET_DEVICE": "a CPU shard: vLLM picks its CPU platform only when told, or from a '+cpu' build",
        "VLLM_CPU_KVCACHE_SPACE": (
            "the memory placement reserved for the KV cache, in GiB: without it vLLM wants 92% "
            "of the NUMA node's memory free at start"
        ),
        "VLLM_CPU_OMP_THREADS_BIND": (
            "placement reserved a number of cores, not which: vLLM's auto binding would take "
            "every core of a NUMA node whoever else runs there"
        ),
        "OMP_NUM_THREADS": (
            "the cores placement reserved, shared among the shard's ranks: vLLM sizes the "
            "OpenMP pool itself only when it binds"
        ),
    }
    (native,) = build(VllmConfig(), two_node(0), None)
    assert native.why["VLLM_HOST_IP"] == _HOST_IP_NATIVE
    head, ray_server = build(VllmConfig(multinode="ray"), two_node(0), None)
    assert head.why["VLLM_HOST_IP"] == ray_server.why["VLLM_HOST_IP"] == _HOST_IP_RAY
    assert ray_server.why["RAY_ADDRESS"] == _RAY_ADDRESS
    for built in (server, command, native, head, ray_server):
        assert set(built.why) == set(built.env), "every generated variable is explained"


# --- launch: which address a node is known by ------------------------------------------------------


def test_the_leader_is_known_by_its_leader_address_when_bind_addr_is_no_ip() -> None:
    leader = two_node(0, bind_addr="node-0.cluster.local")
    assert node_ip(leader) == "10.0.0.11"
    worker = two_node(1, bind_addr="node-1.cluster.local")
    assert node_ip(worker) is None  # a worker's leader_addr is the leader's, not its own


def test_a_ray_worker_without_an_ip_is_told_to_set_bind_addr() -> None:
    with pytest.raises(EngineError) as err:
        build(VllmConfig(multinode="ray"), two_node(1, bind_addr="node-1"), None)
    assert str(err.value).startswith("shard r-405-1: bind_addr: Ray needs this node's IP address")
    with pytest.raises(EngineError) as leader:
        build(VllmConfig(multinode="ray"), two_node(0, leader_addr="head", bind_addr="node-0"), None)
    assert str(leader.value).startswith("shard r-405-0: leader_addr or bind_addr: Ray needs")


@pytest.mark.parametrize(("version", "ok"), [("0.11.0", False), ("0.11.1", True), ("0.12.0", True)])
def test_native_multi_node_runs_from_0_11_1_on(version: str, ok: bool) -> None:
    config = VllmConfig(version=version)
    if ok:
        assert build(config, two_node(0), None)
    else:
        with pytest.raises(EngineError, match=r"needs vLLM 0\.11\.1 or newer"):
            build(config, two_node(0), None)


def test_a_shard_without_an_id_is_named_unnamed_in_a_refusal() -> None:
    with pytest.raises(EngineError) as err:
        build(VllmConfig(version="0.23.0"), single(shard_id="", gpu_uuids=GPU_UUIDS), None)
    assert str(err.value).startswith("shard (unnamed): gpu_uuids: vLLM 0.23.0 reads every")


# --- how many values an option takes (known.option_arity), for the positional check -----------

from enginekit_vllm.known import option_arity, short_aliases  # noqa: E402


@pytest.mark.parametrize(
    ("args", "takes"),
    [
        # argparse's BooleanOptionalAction pair and vLLM's --enable-x/--disable-x pair: flags.
        (["--async-scheduling", "stray"], "takes no value"),
        (["--no-async-scheduling", "stray"], "takes no value"),
        (["--enable-cascade-attn", "stray"], "takes no value"),
        (["--disable-cascade-attn", "stray"], "takes no value"),
    ],
)
def test_a_word_after_a_boolean_flag_is_a_positional_argument(args: list[str], takes: str) -> None:
    (problem,) = problems(args)
    assert problem.startswith(
        f"profile 'p': args[1]: not an option, and {args[0]!r} (args[0]) before it {takes}"
    )


@pytest.mark.parametrize("option", ["--compilation-config", "--kv-transfer-config", "--attention-config"])
def test_a_json_config_option_takes_exactly_one_value(option: str) -> None:
    (problem,) = problems([option, "{}", "stray"])
    assert problem.startswith(
        f"profile 'p': args[2]: not an option, and {option!r} (args[0]) before it takes exactly 1 value"
    )


def test_the_arity_is_what_the_parsers_said_each_option_takes() -> None:
    # From the table: BooleanOptionalAction and vLLM's enable/disable pair take no value,
    # a JSON config exactly one, --served-model-name a list (nargs="+").
    arity = option_arity()
    assert [arity[o] for o in ("--async-scheduling", "--no-async-scheduling", "--enable-cascade-attn")] == [
        0,
        0,
        0,
    ]
    assert arity["--compilation-config"] == 1
    assert arity["--served-model-name"] is None


def test_a_lone_dash_is_never_a_short_alias() -> None:
    # With one short option every prefix is unambiguous; "-" and "" still are none.
    assert short_aliases({"-tp": "--tensor-parallel-size"}) == {
        "-tp": "--tensor-parallel-size",
        "-t": "--tensor-parallel-size",
    }
