"""Every option ``vllm serve`` 0.34.0 parses, so pass-through arguments are read as its parser reads them."""

from __future__ import annotations

from collections.abc import Mapping

#: The long options of ``vllm serve`` in 0.34.0: ``make_arg_parser``
#: (``entrypoints/common/cli_args.py``: ``FrontendArgs`` and its own flags) and
#: ``AsyncEngineArgs.add_cli_args`` (``engine/arg_utils.py``), read from the wheel, with
#: the ``--no-x`` twin of every boolean flag and the ``--enable-x``/``--disable-x`` pair
#: vLLM's ``EnableDisableAction`` adds. argparse reads an unambiguous prefix as the
#: option it starts, so an exact real option must be known here or it would be taken
#: for the longer refused option it is a prefix of.
KNOWN_OPTIONS: frozenset[str] = frozenset(
    """
    --additional-config --aggregate-engine-logging --all2all-backend --allow-credentials
    --allow-deprecated-quantization --allowed-headers --allowed-local-media-path --allowed-media-domains
    --allowed-methods --allowed-origins --anthropic-disabled-thinking-effort --api-key
    --api-server-count --async-scheduling --attention-backend --attention-config --aux-output-config
    --block-size --cache-aware-admission-threshold --cache-aware-admission-window --chat-template
    --chat-template-content-format --checkpoint-prepare-on-startup --code-revision --cohere-format
    --cohere-is-reasoning-model --collect-detailed-traces --compilation-config --config --config-format
    --convert --cp-kv-cache-interleave-size --cpu-distributed-timeout-seconds --cpu-offload-gb
    --cpu-offload-params --cudagraph-capture-sizes --cudagraph-metrics --custom-histogram-buckets
    --data-parallel-address --data-parallel-backend --data-parallel-external-lb
    --data-parallel-hybrid-lb --data-parallel-multi-port-external-lb --data-parallel-rank
    --data-parallel-rpc-port --data-parallel-size --data-parallel-size-local --data-parallel-start-rank
    --data-parallel-supervisor-port --dbo-decode-token-threshold --dbo-prefill-token-threshold
    --dcp-comm-backend --dcp-kv-cache-interleave-size --dcp-q-replicate --decode-context-parallel-size
    --default-chat-template-kwargs --default-mm-loras --device-ids --device-memory-utilization
    --diffusion-config --disable-access-log-for-endpoints --disable-auto-tool-choice
    --disable-batch-sharded-sampling --disable-cascade-attn --disable-chunked-mm-input
    --disable-cumem-allocator --disable-custom-all-reduce --disable-dbo --disable-elastic-ep
    --disable-ep-weight-filter --disable-eplb --disable-expert-parallel --disable-extensible-kv-cache
    --disable-fastapi-docs --disable-fault-tolerance --disable-flash-late-interaction
    --disable-flashinfer-autotune --disable-force-include-usage --disable-hc-sp
    --disable-hybrid-kv-cache-manager --disable-layerwise-nvtx-tracing --disable-log-deltas
    --disable-log-outputs --disable-log-requests --disable-log-stats --disable-logging-iteration-details
    --disable-lora --disable-mamba-cache-stochastic-rounding --disable-mamba-shared-prefix-checkpoint
    --disable-mfu-metrics --disable-mixed-moe-lora-format --disable-mm-embeds --disable-moe-shared-loras
    --disable-nccl-comm-suspend --disable-nccl-for-dp-synchronization --disable-offline-docs
    --disable-per-request-metrics --disable-prompt-embeds --disable-prompt-tokens-details
    --disable-request-id-headers --disable-return-routed-experts --disable-scale-out
    --disable-server-load-tracking --disable-shm-tensor-arena --disable-sleep-mode
    --disable-sliding-window --disable-ssl-refresh --disable-tokenizer-info-endpoint
    --disable-tower-connector-lora --disable-trace-replay --disable-uvicorn-access-log
    --distributed-executor-backend --distributed-timeout-seconds --download-dir
    --dp-supervisor-probe-failure-threshold --dp-supervisor-probe-interval-s
    --dp-supervisor-probe-timeout-s --dp-sync-interval --dtype --ec-manager-config --ec-transfer-config
    --elastic-ep-max-dp-size --enable-auto-tool-choice --enable-batch-sharded-sampling
    --enable-cascade-attn --enable-chunked-mm-input --enable-chunked-prefill --enable-cumem-allocator
    --enable-custom-all-reduce --enable-dbo --enable-elastic-ep --enable-ep-weight-filter --enable-eplb
    --enable-expert-parallel --enable-extensible-kv-cache --enable-fastapi-docs --enable-fault-tolerance
    --enable-flash-late-interaction --enable-flashinfer-autotune --enable-force-include-usage
    --enable-hc-sp --enable-hybrid-kv-cache-manager --enable-layerwise-nvtx-tracing --enable-log-deltas
    --enable-log-outputs --enable-log-requests --enable-logging-iteration-details --enable-lora
    --enable-mamba-cache-stochastic-rounding --enable-mamba-shared-prefix-checkpoint
    --enable-mfu-metrics --enable-mixed-moe-lora-format --enable-mm-embeds --enable-moe-shared-loras
    --enable-nccl-comm-suspend --enable-nccl-for-dp-synchronization --enable-offline-docs
    --enable-per-request-metrics --enable-prefix-caching --enable-prompt-embeds
    --enable-prompt-tokens-details --enable-request-id-headers --enable-return-routed-experts
    --enable-scale-out --enable-server-load-tracking --enable-shm-tensor-arena --enable-sleep-mode
    --enable-sliding-window --enable-ssl-refresh --enable-tokenizer-info-endpoint
    --enable-tower-connector-lora --enable-trace-replay --enable-uvicorn-access-log --enforce-eager
    --engram-config --eplb-config --exclude-tools-when-tool-choice-none --expert-placement-strategy
    --fail-on-environ-validation --fault-tolerance-config --fingerprint-mode --fingerprint-value
    --fully-sharded-loras --gdn-prefill-backend --generation-config --gpu-memory-utilization --grpc
    --grpc-port --h11-max-header-count --h11-max-incomplete-event-size --headless
    --headless-client-handshake-address --help --hf-config-path --hf-overrides --hf-token --host
    --ignore-patterns --interleave-mm-strings --io-processor-plugin --ir-op-priority --jit-monitor-mode
    --jit-monitor-verbose --kda-decode-backend --kda-prefill-backend --kernel-config --kv-cache-dtype
    --kv-cache-dtype-skip-layers --kv-cache-memory-bytes --kv-cache-metrics --kv-cache-metrics-sample
    --kv-events-config --kv-offloading-backend --kv-offloading-size --kv-sharing-fast-prefill
    --kv-transfer-config --language-model-only --limit-mm-per-prompt --linear-backend --load-format
    --log-config-file --log-error-stack --log-level --logging-config --logits-processors --logprobs-mode
    --long-prefill-token-threshold --long-prefill-token-threshold-adaptive --lora-dtype --lora-modules
    --lora-target-modules --mamba-backend --mamba-block-size --mamba-cache-dtype --mamba-cache-mode
    --mamba-cache-philox-rounds --mamba-ssm-cache-dtype --mamba-ssu-algorithm --master-addr
    --master-port --max-cpu-loras --max-cudagraph-capture-size --max-log-len --max-logprobs
    --max-lora-cls-labels --max-lora-rank --max-loras --max-model-len --max-num-active-seqs
    --max-num-batched-tokens --max-num-inflight-kv-loads --max-num-queued-reqs --max-num-queued-tokens
    --max-num-scheduled-tokens --max-num-seqs --max-parallel-loading-workers --media-io-kwargs
    --middleware --mm-device-do-normalize --mm-encoder-attn-backend --mm-encoder-attn-dtype
    --mm-encoder-fp8-scale-path --mm-encoder-fp8-scale-save-margin --mm-encoder-fp8-scale-save-path
    --mm-encoder-only --mm-encoder-tp-mode --mm-hasher-algorithm --mm-ipc-gpu-memory-gb
    --mm-processor-cache-gb --mm-processor-cache-type --mm-processor-device --mm-processor-kwargs
    --mm-shm-cache-max-object-size-mb --mm-tensor-ipc --model --model-class-overrides --model-impl
    --model-loader-extra-config --moe-backend --monokernel --nnodes --no-allow-credentials
    --no-allow-deprecated-quantization --no-async-scheduling --no-checkpoint-prepare-on-startup
    --no-cohere-is-reasoning-model --no-cudagraph-metrics --no-data-parallel-external-lb
    --no-data-parallel-hybrid-lb --no-dcp-q-replicate --no-disable-cascade-attn
    --no-disable-chunked-mm-input --no-disable-custom-all-reduce --no-disable-fastapi-docs
    --no-disable-hybrid-kv-cache-manager --no-disable-nccl-for-dp-synchronization
    --no-disable-sliding-window --no-disable-uvicorn-access-log --no-enable-auto-tool-choice
    --no-enable-batch-sharded-sampling --no-enable-cumem-allocator --no-enable-dbo
    --no-enable-elastic-ep --no-enable-ep-weight-filter --no-enable-eplb --no-enable-expert-parallel
    --no-enable-extensible-kv-cache --no-enable-fault-tolerance --no-enable-flash-late-interaction
    --no-enable-flashinfer-autotune --no-enable-force-include-usage --no-enable-hc-sp
    --no-enable-layerwise-nvtx-tracing --no-enable-log-deltas --no-enable-log-outputs
    --no-enable-log-requests --no-enable-logging-iteration-details --no-enable-lora
    --no-enable-mamba-cache-stochastic-rounding --no-enable-mamba-shared-prefix-checkpoint
    --no-enable-mfu-metrics --no-enable-mixed-moe-lora-format --no-enable-mm-embeds
    --no-enable-moe-shared-loras --no-enable-nccl-comm-suspend --no-enable-offline-docs
    --no-enable-per-request-metrics --no-enable-prompt-embeds --no-enable-prompt-tokens-details
    --no-enable-request-id-headers --no-enable-return-routed-experts --no-enable-scale-out
    --no-enable-server-load-tracking --no-enable-shm-tensor-arena --no-enable-sleep-mode
    --no-enable-ssl-refresh --no-enable-tokenizer-info-endpoint --no-enable-tower-connector-lora
    --no-enable-trace-replay --no-enforce-eager --no-exclude-tools-when-tool-choice-none
    --no-fail-on-environ-validation --no-fully-sharded-loras --no-interleave-mm-strings
    --no-jit-monitor-verbose --no-kv-cache-metrics --no-kv-sharing-fast-prefill --no-language-model-only
    --no-log-error-stack --no-long-prefill-token-threshold-adaptive --no-mm-encoder-only --no-monokernel
    --no-numa-bind --no-ray-workers-use-nsight --no-return-sampling-mask --no-return-tokens-as-token-ids
    --no-scheduler-reserve-full-isl --no-shuffle-safetensors-files --no-skip-mm-profiling
    --no-skip-tokenizer-init --no-sleep-mode-offload-cudagraph --no-specialize-active-lora
    --no-swa-bounded-replay --no-tokens-only --no-trust-remote-code --no-trust-request-chat-template
    --no-trust-request-mm-kwargs --no-use-fp64-gumbel --no-use-replayssm --no-use-tqdm-on-load
    --node-rank --num-gpu-blocks-override --numa-bind --numa-bind-cpus --numa-bind-nodes
    --offload-backend --offload-group-size --offload-num-in-group --offload-params
    --offload-prefetch-step --optimization-level --otlp-traces-endpoint --override-generation-config
    --per-request-spec-decode-metrics --performance-mode --pipeline-parallel-size --pooler-config --port
    --prefill-context-parallel-size --prefill-schedule-interval --prefix-cache-retention-interval
    --prefix-caching-hash-algo --prefix-match-unit --profiler-config --pt-load-map-location
    --quantization --quantization-config --ray-workers-use-nsight --reasoning-config
    --reasoning-effort-map --reasoning-parser --reasoning-parser-plugin --renderer-num-workers
    --replayssm-buffer-len --response-role --return-sampling-mask --return-tokens-as-token-ids
    --revision --root-path --runner --safetensors-load-strategy --safetensors-prefetch-block-size
    --safetensors-prefetch-num-threads --scheduler-cls --scheduler-reserve-full-isl --scheduling-policy
    --seed --served-model-name --show-hidden-metrics-for-version --shuffle-safetensors-files
    --shutdown-timeout --skip-mm-profiling --skip-tokenizer-init --sleep-mode-backend
    --sleep-mode-offload-cudagraph --sleep-preserve-parameter-names --sparse-indexer-topk-backend
    --spec-method --spec-model --spec-tokens --specialize-active-lora --speculative-config
    --sse-keep-alive-interval --ssl-ca-certs --ssl-cert-reqs --ssl-certfile --ssl-ciphers --ssl-keyfile
    --stream-interval --structured-outputs-config --swa-bounded-replay --tensor-parallel-size
    --tokenizer --tokenizer-mode --tokenizer-revision --tokens-only --tool-call-parser
    --tool-parser-plugin --tool-server --tool-strict-level --trust-remote-code
    --trust-request-chat-template --trust-request-mm-kwargs --ubatch-size --uds --use-fp64-gumbel
    --use-replayssm --use-tqdm-on-load --uvicorn-log-level --video-pruning-method --video-pruning-rate
    --watchdog-config --watermark --watermark-config --weight-transfer-config --worker-cls
    --worker-extension-cls    """.split()
)

#: The single-dash spellings of 0.34.0 and the long option each stands for.
SHORT_OPTIONS: Mapping[str, str] = {
    "-q": "--quantization",
    "-pp": "--pipeline-parallel-size",
    "-n": "--nnodes",
    "-r": "--node-rank",
    "-tp": "--tensor-parallel-size",
    "-dcp": "--decode-context-parallel-size",
    "-pcp": "--prefill-context-parallel-size",
    "-dp": "--data-parallel-size",
    "-dpn": "--data-parallel-rank",
    "-dpr": "--data-parallel-start-rank",
    "-dpl": "--data-parallel-size-local",
    "-dpa": "--data-parallel-address",
    "-dpp": "--data-parallel-rpc-port",
    "-dpb": "--data-parallel-backend",
    "-dph": "--data-parallel-hybrid-lb",
    "-dpe": "--data-parallel-external-lb",
    "-dpm": "--data-parallel-multi-port-external-lb",
    "-ep": "--enable-expert-parallel",
    "-sc": "--speculative-config",
    "-dc": "--diffusion-config",
    "-cc": "--compilation-config",
    "-ac": "--attention-config",
    "-asc": "--api-server-count",
    "-O": "--optimization-level",
}


def short_aliases(short: Mapping[str, str] = SHORT_OPTIONS) -> dict[str, str]:
    """Each single-dash spelling, and each unambiguous prefix of one, mapped to its long option.

    argparse abbreviates single-dash options too: ``-t 8`` is ``-tp 8``. An ambiguous
    prefix (``-d``) is an argparse error, so it needs no entry.
    """
    aliases = dict(short)
    for option, long in short.items():
        for end in range(2, len(option)):
            prefix = option[:end]
            starts = {other for other in short if other.startswith(prefix)}
            if prefix not in short and len(starts) == 1:
                aliases[prefix] = long
    return aliases


#: Boolean options without a ``--no-x`` or ``--enable-x``/``--disable-x`` twin in the list
#: above to show it: every boolean of vLLM is a flag (``store_true`` or
#: ``BooleanOptionalAction``), in 0.34.0 and in the older releases read.
_MORE_FLAGS = frozenset(
    """
    --headless --grpc --help --disable-log-stats --enable-prefix-caching --enable-chunked-prefill
    --disable-log-requests --enable-log-requests --enable-log-outputs --enforce-eager
    --trust-remote-code --skip-tokenizer-init --enable-lora --disable-lora --enable-auto-tool-choice
    """.split()
)

#: Options known to take exactly one value: every JSON config option, and the scalar
#: options profiles use most. The rest may be a list (``nargs="+"``: ``--served-model-name``,
#: ``--api-key``, ``--lora-modules``, ``--cudagraph-capture-sizes``…), so nothing after them
#: is taken for a positional argument.
_ONE_VALUE = frozenset(
    """
    --max-model-len --gpu-memory-utilization --dtype --quantization --kv-cache-dtype --seed
    --max-num-seqs --max-num-batched-tokens --block-size --tokenizer --tokenizer-mode --revision
    --code-revision --tokenizer-revision --load-format --max-lora-rank --max-cpu-loras
    --max-loras --lora-dtype --max-logprobs --chat-template --chat-template-content-format
    --tool-call-parser --reasoning-parser --optimization-level --cpu-offload-gb
    --kv-cache-memory-bytes --uvicorn-log-level --generation-config --max-parallel-loading-workers
    --hf-overrides --limit-mm-per-prompt --mm-processor-kwargs --override-generation-config
    --default-chat-template-kwargs --hf-config-path --download-dir --response-role --root-path
    --host --port --model --tensor-parallel-size --pipeline-parallel-size --data-parallel-size
    --scheduling-policy --model-impl --runner --convert --attention-backend
    --otlp-traces-endpoint --ssl-keyfile --ssl-certfile --ssl-ca-certs --log-config-file
    --allowed-local-media-path --worker-cls --worker-extension-cls --scheduler-cls
    --tool-parser-plugin --reasoning-parser-plugin --middleware --distributed-executor-backend
    --nnodes --node-rank --master-addr --master-port --num-gpu-blocks-override
    --max-cudagraph-capture-size --long-prefill-token-threshold --api-server-count --uds
    --mm-encoder-fp8-scale-path --mm-encoder-fp8-scale-save-path --model-loader-extra-config
    --allowed-origins --allowed-methods --allowed-headers --tool-server --config
    """.split()
)


def option_arity(known: frozenset[str] = KNOWN_OPTIONS) -> dict[str, int | None]:
    """How many values each option of ``known`` takes (0 or 1); options left out may take several."""
    flags = set(_MORE_FLAGS)
    for option in known:
        # argparse's BooleanOptionalAction adds --no-x to --x; vLLM's own pair is
        # --enable-x/--disable-x. Neither form takes a value.
        if option.startswith("--no-") and "--" + option[5:] in known:
            flags |= {option, "--" + option[5:]}
        if option.startswith("--enable-") and "--disable-" + option[9:] in known:
            flags |= {option, "--disable-" + option[9:]}
    arity: dict[str, int | None] = dict.fromkeys(_ONE_VALUE, 1)
    arity.update(dict.fromkeys((o for o in known if o.endswith("-config")), 1))
    arity.update(dict.fromkeys(flags, 0))
    return arity
