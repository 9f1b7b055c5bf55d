"""What an operator should know about a running SGLang shard that no flag can change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from enginekit.plugin import ShardSpec, host_port, leader_endpoint, parse_version

from enginekit_sglang.build import THREADS_ENV
from enginekit_sglang.dataparallel import HANDSHAKE_PORT_SINCE
from enginekit_sglang.flags import SOURCE_RELEASE, SYNTAX

if TYPE_CHECKING:
    from enginekit.plugin import Version

    from enginekit_sglang.config import SglangConfig

#: The option that bounds SGLang's KV cache, in tokens: its only bound (there is none in bytes).
MAX_TOTAL_TOKENS = "--max-total-tokens"
#: The first release whose OpenAI API reads an adapter from ``model`` ("served:adapter"):
#: ``_parse_model_parameter`` in ``srt/entrypoints/openai/serving_base.py``, absent in 0.5.3.post3.
MODEL_NAMES_ADAPTER = "0.5.4"
#: The first release whose KV-cache events name the adapter: ``BlockStored.lora_name`` in
#: ``srt/disaggregation/kv_events.py`` (``lora_id`` is there in every release, always None:
#: ``srt/mem_cache/events.py``, and ``radix_cache.py`` before it).
EVENTS_NAME_ADAPTER = "0.5.22"
#: The first release whose worker ranks only log SIGTERM (``srt/entrypoints/engine.py``,
#: ``_launch_subprocesses``: "waiting for the rank-0 ShutdownReq broadcast").
WORKERS_IGNORE_SIGTERM = "0.5.21"


def shard_notes(shard: ShardSpec, config: SglangConfig, kv_events: str) -> list[str]:
    """Notes for one shard, in the order an operator needs them."""
    notes = []
    # Facts that changed between releases follow the release whose table stands in.
    read = parse_version(config.options.read)
    if shard.api_key:
        notes.append(
            "the API key stays off every command line, but SGLang itself still shows it: it logs "
            "server_args (api_key included) at startup, and GET /server_info returns it in the "
            "api_key field and in launch_command (which lists the --api-key the launcher handed "
            "over); /server_info needs the key, the logs do not, so keep SGLang's logs (and any "
            "--crash-dump-folder, whose dumps hold the arguments) readable only by the operator"
        )
    if shard.is_leader() and shard.api_key:
        notes.append(
            "without the key SGLang still answers every path starting /health, /ready or /metrics "
            "(health probes and Prometheus need no key); everything else needs it"
        )
    elif shard.is_leader():
        notes.append(
            f"no API key: anyone who can reach {host_port(shard.host(), shard.http_port)} uses the model "
            f"directly, past the gateway's authentication"
        )
    if shard.is_multi_node() and not shard.is_leader():
        notes.append(
            f"rank {shard.rank} runs SGLang's schedulers only and serves no API; its port answers "
            f"/health, /health_generate and /ping with 200 unconditionally (a stub server), so "
            f"health-checking it proves nothing: watch the leader's /health, which turns 200 "
            f"only after every rank has joined and warm-up succeeded"
        )
        notes.append(_worker_lifetime(shard, read >= parse_version(WORKERS_IGNORE_SIGTERM)))
        if shard.profile.data_parallel > 1 and read >= HANDSHAKE_PORT_SINCE:
            notes.append(
                f"rank {shard.rank} starts without waiting for {leader_endpoint(shard)}: node 0 opens it "
                f"only after every node has fetched its worker ports from the handshake port 13 above it, "
                f"which SGLang's worker asks for itself and waits up to ten minutes for"
            )
    elif shard.is_multi_node():
        notes.append(
            f"rank 0 serves the API for all {shard.nnodes} nodes; the workers connect to "
            f"{leader_endpoint(shard)}, and /health stays 503 until they have"
        )
    if kv_events:
        from enginekit.plugin import kv_events_wiring

        from enginekit_sglang.build import BIND_FIELD_SINCE

        bind_host = parse_version(config.release) >= BIND_FIELD_SINCE
        wiring = kv_events_wiring(shard, per_rank=True, replay=False, bind_host=bind_host)
        notes.append(
            f"{wiring}. {kv_events}; only the schedulers owning a KV cache publish (pipeline, "
            f"attention-TP and attention-CP rank 0), and with attention data parallelism each DP "
            f"rank adds its index to the port"
        )
    if shard.is_leader() and shard.profile.adapters:
        notes.append(_adapter_selection(shard, read))
    if shard.on_cpu() and shard.threads:
        notes.append(
            f"CPU shard: {THREADS_ENV} binds cores 0-{shard.threads - 1}, because the spec gives a "
            f"core count, not which cores; two CPU shards on one node would share cores"
        )
    if shard.on_cpu() and shard.kv_cache_mib:
        # Any spelling SGLang reads as the option (``--max-total=N``) bounds the cache.
        bounded = MAX_TOTAL_TOKENS in SYNTAX.parse(shard.profile.args).uses
        if not bounded:
            notes.append(_unbounded_kv_cache(shard))
    if config.options.note is not None:
        notes.append(config.options.note)
    # Compared as releases: '0.5.23+cu128' runs the source's release, with a build label.
    if parse_version(config.release) != parse_version(SOURCE_RELEASE):
        notes.append(
            f"SGLang {config.release}: the profile's options are checked against that release's "
            f"own option table, but the quantization choices and floors, the load formats, the "
            f"options refused for reaching paths and hosts, and these notes' other facts were read "
            f"from SGLang {SOURCE_RELEASE}'s source: compare the help command's output before "
            f"relying on them"
        )
    return notes


def _worker_lifetime(shard: ShardSpec, ignores_sigterm: bool) -> str:
    """What becomes of a worker rank whose leader goes: it stays up (``on_leader_exit``)."""
    note = (
        f"rank {shard.rank} does not exit when the leader's process goes (nothing in SGLang "
        f"watches rank 0; its schedulers exit only if a collective with rank 0 raises, which "
        f"a lost node need not do): the plan says on_leader_exit must_be_stopped"
    )
    if ignores_sigterm:
        note += (
            "; its main process only logs SIGTERM, waiting for the leader's shutdown broadcast "
            "(srt/entrypoints/engine.py), so stop it with SIGKILL: its schedulers die with it "
            "(PR_SET_PDEATHSIG)"
        )
    return note


def _adapter_selection(shard: ShardSpec, read: Version) -> str:
    """How an OpenAI-API request picks one of the profile's adapters, and what events say of it.

    Read in each release's ``srt/entrypoints/openai/protocol.py`` (the ``lora_path`` request
    field), ``serving_base.py`` (``model`` as "served:adapter", which wins over
    ``lora_path``, from 0.5.4) and ``managers/tokenizer_manager.py`` (both are looked up by
    the adapter's name in the LoRA registry; ``lora_id`` is an internal id the server makes).
    """
    example = shard.profile.adapters[0].name
    served = shard.profile.model_name()
    if read >= parse_version(MODEL_NAMES_ADAPTER):
        note = (
            f"adapters: an OpenAI-API request picks one by its name, as given in --lora-paths "
            f'NAME=PATH, in "model" ("{served}:{example}", which wins) or in the "lora_path" '
            f'field ("{example}": a name, not a path); never by an id'
        )
    else:
        note = (
            f"adapters: an OpenAI-API request picks one by its name, as given in --lora-paths "
            f'NAME=PATH, in the "lora_path" field only ("{example}": a name, not a path; "model" '
            f"names no adapter before {MODEL_NAMES_ADAPTER}); never by an id"
        )
    if not shard.profile.kv_events:
        return note
    if read >= parse_version(EVENTS_NAME_ADAPTER):
        return note + (
            "; KV-cache events name it in BlockStored's lora_name (the same name), and carry no "
            "adapter id (lora_id is always null)"
        )
    return note + (
        "; KV-cache events carry no adapter at all (BlockStored's lora_id is always null, "
        f"and lora_name arrives in {EVENTS_NAME_ADAPTER}): an adapter's blocks cannot be told "
        "from the base model's"
    )


def _unbounded_kv_cache(shard: ShardSpec) -> str:
    """SGLang cannot be told the memory placement reserved for a CPU shard's KV cache.

    Read in SGLang 0.5.23: ``srt/utils/common.py`` ``get_cpu_memory_capacity`` returns None
    whenever ``SGLANG_CPU_OMP_THREADS_BIND`` is set (with the warning quoted below), and
    ``srt/arg_groups/memory_hook.py`` then takes ``mem_fraction_static`` 0.95; unset, the
    pool is a fraction of the NUMA node's memory. No option takes a size in bytes.
    """
    mib = shard.kv_cache_mib
    if shard.threads:
        how = (
            f"with {THREADS_ENV} set (as here, for the reserved cores) it cannot read the node's "
            f'memory, takes --mem-fraction-static 0.95 and warns "You need to set proper '
            f'--max-total-tokens to avoid the out-of-memory error"'
        )
    else:
        how = "it sizes the pool from --mem-fraction-static of the NUMA node's memory"
    return (
        f"CPU shard: placement reserved {mib} MiB for the KV cache, but SGLang cannot be told a "
        f"size in memory: {how} (SGLang {SOURCE_RELEASE}: srt/utils/common.py "
        f"get_cpu_memory_capacity, srt/arg_groups/memory_hook.py); set {MAX_TOTAL_TOKENS} in the "
        f"profile's args to the number of tokens that fit in {mib} MiB"
    )
