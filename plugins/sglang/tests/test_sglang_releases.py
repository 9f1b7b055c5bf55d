"""Every SGLang release the option table has read: what enginekit emits, and what a profile may pass.

The table (``options_table.py``) holds each release's options as its own parser registered
them: ``ServerArgs.add_cli_args`` of the PyPI wheel, on ``argparse.ArgumentParser()`` as
``prepare_server_args`` builds it (``tools/optiontables/sglang.py``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import attrs
import pytest
from enginekit import Adapter, Command, Engine, Profile, ShardSpec
from enginekit.plugin import check_option_document
from enginekit.testing import engine_for
from enginekit_sglang import SglangConfig, SglangEngine
from enginekit_sglang import options_table as module
from enginekit_sglang.flags import OTHER_ENGINES, READ_AS_PREFIX, SYNTAX, table

TABLE = table()
RELEASES = TABLE.releases
SETTING = "[engines.sglang] version"


def engine(version: str = "", **config: object) -> Engine:
    return engine_for(SglangEngine(SglangConfig(version=version, **config)), "sglang")  # type: ignore[arg-type]


def profile(*args: str, **fields: object) -> Profile:
    return Profile(name="p", engine="sglang", tp=1, model_path="/models/m", args=args, **fields)  # type: ignore[arg-type]


def launched(command: Command) -> list[str]:
    """The arguments SGLang's parser reads: everything after the launcher's ``-I -c CODE``."""
    assert command.args[0] == "-I"
    return list(command.args[3:])


def single(**fields: object) -> ShardSpec:
    prof = profile("--mem-fraction-static", "0.8", "--context-length", "8192", **fields)
    return ShardSpec(shard_id="s-0", profile=prof, gpu_indices=(0,), http_port=30000, bind_addr="10.1.0.17")


def with_lora() -> ShardSpec:
    adapters = (Adapter(name="sql", path="/adapters/sql"), Adapter(name="chat", path="/adapters/chat"))
    return single(adapters=adapters, served_model_name="llama")


def with_events() -> ShardSpec:
    return attrs.evolve(single(kv_events=True), kv_events_port=5557)


def on_cpu(*args: str, threads: int = 8, kv_cache_mib: int = 4096) -> ShardSpec:
    prof = Profile(name="p", engine="sglang", tp=1, model_path="/models/m", args=args)
    return ShardSpec(
        shard_id="c-0", profile=prof, http_port=30000, threads=threads, kv_cache_mib=kv_cache_mib
    )


def two_node(rank: int, adapters: tuple[Adapter, ...] = ()) -> ShardSpec:
    prof = Profile(
        name="p", engine="sglang", tp=8, nodes=2, gpus_per_node=4, model_path="/models/m", adapters=adapters
    )
    return ShardSpec(
        shard_id=f"r-{rank}",
        rank=rank,
        nnodes=2,
        leader_addr="10.1.0.17",
        leader_port=20000,
        profile=prof,
        gpu_indices=(0, 1, 2, 3),
        http_port=30000,
        bind_addr=f"10.1.0.{17 + rank}",
    )


SHAPES: dict[str, Callable[[], ShardSpec]] = {
    "single": single,
    "lora": with_lora,
    "kv_events": with_events,
    "cpu": on_cpu,
    "leader": lambda: two_node(0),
    "worker": lambda: two_node(1),
    # A disaggregated replica's instances: the mode, the backend, the bootstrap port, the devices.
    "prefill": lambda: attrs.evolve(single(), role="prefill", kv_transfer_port=8998, hcas=("mlx5_0:1",)),
    "decode": lambda: attrs.evolve(single(), role="decode", kv_connector="nixl", kv_transfer_port=9000),
}


# --- the table -----------------------------------------------------------------------------


def test_the_table_has_the_shape_the_core_reads_and_every_release_read() -> None:
    data = json.loads(module.TABLE)
    assert check_option_document(data) == []
    assert data["generator"] == "tools/optiontables/sglang.py"
    assert (RELEASES[0], RELEASES[-1], len(RELEASES)) == ("0.5.1", "0.5.23", 42)
    # Every final and .post release between them; no final 0.5.0 exists.
    assert "0.5.4.post3" in RELEASES
    assert "0.5.12.post1" in RELEASES
    assert all("sglang.srt.server_args.ServerArgs.add_cli_args" in source for source in TABLE.sources)


def test_a_spelling_that_always_stops_sglang_is_no_option_and_its_rename_is_kept() -> None:
    # 0.5.3 and 0.5.4 still register --enable-ep-moe, only to stop with "please set --ep-size".
    assert [TABLE.releases[i] for i in sorted(TABLE.option_in["--enable-ep-moe"])] == [
        "0.5.1", "0.5.1.post1", "0.5.1.post2", "0.5.1.post3", "0.5.2",
    ]  # fmt: skip
    assert TABLE.renames["--enable-ep-moe"] == ("--ep-size", "0.5.3")


def test_the_draft_models_second_spelling_is_read_as_a_prefix_of_the_path_option() -> None:
    # The table has it (0.5.2 on); known as itself, its value would escape the check that
    # it names the profile's own model (known.py left it out for this reason).
    assert {"--speculative-draft-model"} == READ_AS_PREFIX
    assert "--speculative-draft-model" in TABLE.for_release("0.5.23", setting=SETTING).known
    assert "--speculative-draft-model" not in SYNTAX.known
    assert "--speculative-draft-model-path" in SYNTAX.meanings("--speculative-draft-model")


# --- what enginekit emits is accepted by every release -------------------------------------


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_generated_option_is_one_the_release_accepts(release: str, shape: str) -> None:
    spec = SHAPES[shape]()
    plan = engine(release).plan(spec)
    (command,) = plan.commands
    options = TABLE.for_release(release, setting=SETTING)
    flags = [token for token in launched(command) if token.startswith("--")]
    assert flags, "the server is told at least its model and port"
    assert [flag for flag in flags if not options.accepts(flag)] == []
    # The release is one the table read: no note says another stands in.
    assert not any("option table of its own" in note or "than every release" in note for note in plan.notes)


# --- what a profile passes is checked against the configured release -----------------------

#: (release, args, the whole sentence), each from the parsers the table read.
REFUSED = [
    pytest.param(
        # --enable-dynamic-chunking first appears in the 0.5.7 wheel's parser.
        "0.5.6.post2",
        ("--enable-dynamic-chunking",),
        "profile 'p': args: '--enable-dynamic-chunking' is not an option of python -m "
        "sglang.launch_server 0.5.6.post2: it is from 0.5.7 on; remove it",
        id="added-later",
    ),
    pytest.param(
        # The 0.5.3 parser has --max-micro-batch-size; 0.5.3.post1's has only the new spelling.
        "0.5.3",
        ("--pp-max-micro-batch-size", "4"),
        "profile 'p': args: '--pp-max-micro-batch-size' is not an option of python -m "
        "sglang.launch_server 0.5.3: it is from 0.5.3.post1 on, where it replaced "
        "--max-micro-batch-size; use --max-micro-batch-size instead",
        id="new-spelling-on-an-old-release",
    ),
    pytest.param(
        # Double sparsity's options are last in the 0.5.10.post1 parser.
        "0.5.11",
        ("--enable-double-sparsity",),
        "profile 'p': args: '--enable-double-sparsity' is not an option of python -m "
        "sglang.launch_server 0.5.11: removed in 0.5.11 (last in 0.5.10.post1); remove it",
        id="removed",
    ),
    pytest.param(
        # 0.5.3 registers it only to exit: "please set `--ep-size` to the same value as `--tp-size`".
        # --ep-size is the layout's now: the profile field is what to set, not the rename.
        "0.5.3",
        ("--enable-ep-moe",),
        "profile 'p': args: '--enable-ep-moe' sets --enable-ep-moe, which enginekit manages; set the "
        "profile's expert_parallel",
        id="renamed-and-managed",
    ),
    pytest.param(
        "0.5.3",
        ("--enable-triton-kernel-moe",),
        "profile 'p': args: '--enable-triton-kernel-moe' is not an option of python -m "
        "sglang.launch_server 0.5.3: renamed to --moe-runner-backend in 0.5.3; use --moe-runner-backend "
        "instead",
        id="renamed-and-refused-by-sglang",
    ),
    pytest.param(
        # Its DeprecatedAliasStoreAction names --cuda-graph-bs-decode; 0.5.20 dropped it.
        "0.5.20",
        ("--cuda-graph-bs", "8"),
        "profile 'p': args: '--cuda-graph-bs' is not an option of python -m sglang.launch_server "
        "0.5.20: renamed to --cuda-graph-bs-decode in 0.5.20; use --cuda-graph-bs-decode instead",
        id="renamed",
    ),
    pytest.param(
        "0.5.23",
        ("--mem-fraction-statik", "0.8"),
        "profile 'p': args: '--mem-fraction-statik' is not an option of python -m "
        "sglang.launch_server 0.5.23; did you mean --mem-fraction-static?; remove it, or, if the "
        "node's release has it, list it in engines.sglang.allow_args",
        id="typo",
    ),
    pytest.param(
        "0.5.23",
        ("--max-model-len", "4096"),
        "profile 'p': args: '--max-model-len' is not an option of python -m sglang.launch_server "
        "0.5.23; remove it, or, if the node's release has it, list it in engines.sglang.allow_args "
        "(vLLM's option; SGLang's is --context-length)",
        id="another-engines-option",
    ),
    pytest.param(
        "0.5.12.post2",  # not read: 0.5.12.post1's parser stands in
        ("--enable-dynamic-chunking", "--kv-canary"),
        "profile 'p': args: '--kv-canary' is not an option of python -m sglang.launch_server "
        "0.5.12.post1 (the release read nearest 0.5.12.post2): it is from 0.5.13 on; remove it",
        id="a-release-between-two-read",
    ),
]


@pytest.mark.parametrize(("release", "args", "message"), REFUSED)
def test_an_option_the_release_lacks_is_refused_saying_what_is_known(
    release: str, args: tuple[str, ...], message: str
) -> None:
    assert engine(release).validate(profile(*args), []) == [message]


@pytest.mark.parametrize(
    ("release", "args"),
    [
        ("0.5.2", ("--enable-triton-kernel-moe",)),  # still an option there
        ("0.5.19", ("--cuda-graph-bs", "8")),
        ("0.5.20", ("--cuda-graph-bs-decode", "8")),
        ("0.5.3", ("--max-micro-batch-size", "4")),
        ("0.5.3.post1", ("--pp-max-micro-batch-size", "4")),
        ("0.5.10.post1", ("--enable-double-sparsity",)),
        ("0.5.7", ("--enable-dynamic-chunking",)),
        ("0.5.1", ("--speculative-draft-model", "/models/m")),  # a prefix of the path option there
        ("0.5.23", ("--speculative-draft-model", "/models/m")),
    ],
)
def test_what_the_release_has_passes(release: str, args: tuple[str, ...]) -> None:
    assert engine(release).validate(profile(*args), []) == []


def test_an_option_newer_than_the_table_passes_once_the_site_vouches_for_it() -> None:
    message = (
        "profile 'p': args: '--brand-new-flag' is not an option of python -m sglang.launch_server "
        "0.5.23; remove it, or, if the node's release has it, list it in engines.sglang.allow_args"
    )
    newer = message.replace("0.5.23;", "0.5.23 (the release read nearest 0.5.24);")
    assert engine("0.5.24").validate(profile("--brand-new-flag"), []) == [newer]
    assert engine("0.5.23").validate(profile("--brand-new-flag"), []) == [message]
    allowed = engine("0.5.24", allow_args=("--brand-new-flag",))
    assert allowed.validate(profile("--brand-new-flag"), []) == []


def test_the_other_engines_options_are_no_sglang_option_and_sglangs_own_are() -> None:
    for option, hint in OTHER_ENGINES.items():
        assert SYNTAX.meanings(option) == {option}, option  # no release's option, nor a prefix of one
        named = set(re.findall(r"--[a-z0-9-]+", hint))
        assert named <= TABLE.options, hint


def test_an_older_releases_risky_spelling_is_refused_where_it_exists() -> None:
    # 0.5.3's parser has --oltp-traces-endpoint (renamed --otlp-traces-endpoint in 0.5.4.post2).
    assert engine("0.5.3").validate(profile("--oltp-traces-endpoint", "c:4317"), []) == [
        "profile 'p': args: '--oltp-traces-endpoint' (--oltp-traces-endpoint) sends a trace of every "
        "request to the collector it names; refused unless the site allows it "
        '(engines.sglang.allow_args = ["--oltp-traces-endpoint"])'
    ]
    allowed = engine("0.5.3", allow_args=("--oltp-traces-endpoint",))
    assert allowed.validate(profile("--oltp-traces-endpoint", "c:4317"), []) == []


# --- which release is assumed, and what the plan says about it -----------------------------


def test_with_no_release_configured_the_plan_says_which_one_it_assumed() -> None:
    plan = engine().plan(single())
    assert (
        "no sglang release is configured ([engines.sglang] version): pass-through options are "
        "checked against python -m sglang.launch_server 0.5.23, the newest release this plugin has "
        "read (0.5.1 to 0.5.23); set [engines.sglang] version to the release the node runs"
    ) in plan.notes
    # The release assumed is 0.5.23, the one the other tables were read from: no more is said.
    assert not any("source" in note for note in plan.notes)
    assert SglangConfig().release == "0.5.23"
    assert SglangConfig(version="0.5.4").release == "0.5.4"


def test_a_release_older_than_the_table_is_checked_against_the_oldest() -> None:
    notes = engine("0.4.10").plan(single()).notes
    assert (
        "sglang 0.4.10 is older than every release this plugin has read (0.5.1 to 0.5.23): "
        "pass-through options are checked against 0.5.1's"
    ) in notes


# --- adapters: how a request picks one, and what KV-cache events say of it -----------------

MODEL_OR_LORA_PATH = (
    "adapters: an OpenAI-API request picks one by its name, as given in --lora-paths NAME=PATH, in "
    '"model" ("llama:sql", which wins) or in the "lora_path" field ("sql": a name, not a path); '
    "never by an id"
)
LORA_PATH_ONLY = (
    "adapters: an OpenAI-API request picks one by its name, as given in --lora-paths NAME=PATH, in "
    'the "lora_path" field only ("sql": a name, not a path; "model" names no adapter before 0.5.4); '
    "never by an id"
)


@pytest.mark.parametrize(
    ("release", "note"),
    [
        # serving_base.py's _parse_model_parameter ("base:adapter") arrives in the 0.5.4 wheel.
        ("0.5.3.post3", LORA_PATH_ONLY),
        ("0.5.4", MODEL_OR_LORA_PATH),
        ("0.5.23", MODEL_OR_LORA_PATH),
    ],
)
def test_the_leader_says_how_a_request_picks_an_adapter(release: str, note: str) -> None:
    assert note in engine(release).plan(with_lora()).notes


@pytest.mark.parametrize(
    ("release", "events"),
    [
        # disaggregation/kv_events.py: BlockStored gains lora_name in the 0.5.22 wheel;
        # mem_cache/events.py sets lora_id=None in every release read.
        (
            "0.5.21",
            "; KV-cache events carry no adapter at all (BlockStored's lora_id is always null, and "
            "lora_name arrives in 0.5.22): an adapter's blocks cannot be told from the base model's",
        ),
        (
            "0.5.22",
            "; KV-cache events name it in BlockStored's lora_name (the same name), and carry no "
            "adapter id (lora_id is always null)",
        ),
    ],
)
def test_the_adapter_note_says_whether_kv_events_name_the_adapter(release: str, events: str) -> None:
    spec = attrs.evolve(
        with_lora(), profile=attrs.evolve(with_lora().profile, kv_events=True), kv_events_port=5557
    )
    assert MODEL_OR_LORA_PATH + events in engine(release).plan(spec).notes


def test_a_worker_rank_gets_no_adapter_note() -> None:
    adapters = (Adapter(name="sql", path="/adapters/sql"),)
    notes = engine("0.5.23").plan(two_node(1, adapters=adapters)).notes
    assert not any(note.startswith("adapters:") for note in notes)
    assert any(
        note.startswith("adapters:") for note in engine("0.5.23").plan(two_node(0, adapters=adapters)).notes
    )


# --- a CPU shard's KV-cache memory --------------------------------------------------------

BOUND_IT = (
    "(SGLang 0.5.23: srt/utils/common.py get_cpu_memory_capacity, srt/arg_groups/memory_hook.py); "
    "set --max-total-tokens in the profile's args to the number of tokens that fit in 4096 MiB"
)


def test_a_cpu_shard_is_told_sglang_cannot_take_the_reserved_kv_memory() -> None:
    notes = engine("0.5.23").plan(on_cpu()).notes
    assert (
        "CPU shard: placement reserved 4096 MiB for the KV cache, but SGLang cannot be told a size in "
        "memory: with SGLANG_CPU_OMP_THREADS_BIND set (as here, for the reserved cores) it cannot read "
        "the node's memory, takes --mem-fraction-static 0.95 and warns \"You need to set proper "
        f'--max-total-tokens to avoid the out-of-memory error" {BOUND_IT}'
    ) in notes


def test_without_a_core_binding_the_note_says_what_sglang_sizes_the_pool_from() -> None:
    notes = engine("0.5.23").plan(on_cpu(threads=0)).notes
    assert (
        "CPU shard: placement reserved 4096 MiB for the KV cache, but SGLang cannot be told a size in "
        "memory: it sizes the pool from --mem-fraction-static of the NUMA node's memory "
        f"{BOUND_IT}"
    ) in notes


@pytest.mark.parametrize(
    "spec",
    [
        on_cpu("--max-total-tokens", "20000"),
        on_cpu("--max-total=20000"),  # argparse's prefix: the same option
        on_cpu(kv_cache_mib=0),  # nothing reserved: nothing to tell
        single(),  # a GPU shard's KV cache is sized from the GPU's memory
    ],
    ids=["bounded", "bounded-by-prefix", "nothing-reserved", "gpu"],
)
def test_no_kv_memory_note_where_the_cache_is_bounded_or_nothing_was_reserved(spec: ShardSpec) -> None:
    notes = engine("0.5.23").plan(spec).notes
    assert not any("for the KV cache" in note for note in notes)


# --- worker lifetime ------------------------------------------------------------------------

STAYS_UP = (
    "rank 1 does not exit when the leader's process goes (nothing in SGLang watches rank 0; its "
    "schedulers exit only if a collective with rank 0 raises, which a lost node need not do): the "
    "plan says on_leader_exit must_be_stopped"
)
IGNORES_SIGTERM = (
    "; its main process only logs SIGTERM, waiting for the leader's shutdown broadcast "
    "(srt/entrypoints/engine.py), so stop it with SIGKILL: its schedulers die with it "
    "(PR_SET_PDEATHSIG)"
)


@pytest.mark.parametrize(
    ("release", "note"),
    [("0.5.1", STAYS_UP), ("0.5.20", STAYS_UP), ("0.5.21", STAYS_UP + IGNORES_SIGTERM), ("0.5.23", STAYS_UP + IGNORES_SIGTERM)],
)  # fmt: skip
def test_a_worker_rank_must_be_stopped_when_its_leader_goes(release: str, note: str) -> None:
    worker = engine(release).plan(two_node(1))
    assert worker.on_leader_exit == "must_be_stopped"
    assert note in worker.notes
    leader = engine(release).plan(two_node(0))
    assert leader.on_leader_exit == ""
    assert not any("on_leader_exit" in n for n in leader.notes)
