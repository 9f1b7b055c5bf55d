"""What an operator should know about a running SGLang shard that no flag can change."""

from __future__ import annotations

from enginekit.plugin import ShardSpec, host_port, leader_endpoint, parse_version

from enginekit_sglang.build import THREADS_ENV


def shard_notes(shard: ShardSpec, version: str, tables_version: str, kv_events: str) -> list[str]:
    """Notes for one shard, in the order an operator needs them."""
    notes = []
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
    elif shard.is_multi_node():
        notes.append(
            f"rank 0 serves the API for all {shard.nnodes} nodes; the workers connect to "
            f"{leader_endpoint(shard)}, and /health stays 503 until they have"
        )
    if kv_events:
        notes.append(
            f"KV-cache events: {kv_events}; only the schedulers owning a KV cache publish (pipeline, "
            f"attention-TP and attention-CP rank 0), and with attention data parallelism each DP "
            f"rank adds its index to the port"
        )
    if shard.on_cpu() and shard.threads:
        notes.append(
            f"CPU shard: {THREADS_ENV} binds cores 0-{shard.threads - 1}, because the spec gives a "
            f"core count, not which cores; two CPU shards on one node would share cores"
        )
    # Compared as releases: '0.5.23+cu128' runs the tables' release, with a build label.
    if parse_version(version) != parse_version(tables_version):
        notes.append(
            f"engines.sglang.version is {version}, but the flag and quantization tables were read "
            f"from SGLang {tables_version}: compare the help command's output before relying on "
            f"validation"
        )
    return notes
