"""Prometheus text exposition under vLLM's metric names, without a client library.

Names, types, labels (``model_name``, ``engine``) and bucket bounds follow vLLM's
``vllm/v1/metrics/loggers.py``, so a dashboard or autoscaler built for vLLM reads the
simulator unchanged. Counters are exposed with the ``_total`` suffix, as
prometheus_client does.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

TTFT_BUCKETS: tuple[float, ...] = (
    *(0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0),
    *(2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0),
)
ITL_BUCKETS: tuple[float, ...] = (
    *(0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5),
    *(0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0),
)
REQUEST_BUCKETS: tuple[float, ...] = (
    *(0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0),
    *(30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0),
)


def buckets_1_2_5(limit: int) -> tuple[float, ...]:
    """vLLM's ``build_1_2_5_buckets``: 1, 2, 5, 10, 20, 50… up to ``limit``."""
    out: list[float] = []
    exponent = 0
    while True:
        for mantissa in (1, 2, 5):
            value = mantissa * 10**exponent
            if value > limit:
                return tuple(out)
            out.append(float(value))
        exponent += 1


def escape(value: str) -> str:
    """A label value as the exposition format needs it."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class Counter:
    """A monotonically increasing count."""

    def __init__(self, name: str, help_text: str) -> None:
        self.name, self.help, self.value = name, help_text, 0.0

    def inc(self, amount: float = 1.0) -> None:
        self.value += amount

    def render(self, labels: str) -> str:
        # vLLM 0.32's prometheus_client names the family with its _total suffix in HELP and
        # TYPE too (tests/data/vllm-0.32.0/metrics.txt).
        total = f"{self.name}_total"
        return (
            f"# HELP {total} {self.help}\n# TYPE {total} counter\n{total}{{{labels}}} {float(self.value)!r}\n"
        )


class Gauge:
    """A value read when scraped."""

    def __init__(self, name: str, help_text: str, read: Callable[[], float]) -> None:
        self.name, self.help, self.read = name, help_text, read

    def render(self, labels: str) -> str:
        head = f"# HELP {self.name} {self.help}\n# TYPE {self.name} gauge\n"
        return f"{head}{self.name}{{{labels}}} {float(self.read())!r}\n"


class Histogram:
    """Observations counted into fixed buckets, with their sum and count.

    An observation is appended to a list and counted into its bucket later, a batch at a
    time: every request observes several histograms, and one ``list.append`` costs a
    fraction of a Python-level bisect. A batch is sorted in C and split at each bound,
    when it reaches :attr:`BATCH` values and whenever the histogram is read.
    """

    #: Observations kept before they are counted: a few KiB a histogram.
    BATCH = 512

    def __init__(self, name: str, help_text: str, buckets: tuple[float, ...]) -> None:
        self.name, self.help, self.bounds = name, help_text, buckets
        self._counts = [0] * (len(buckets) + 1)
        self._sum = 0.0
        self._pending: list[float] = []

    def observe(self, value: float, count: int = 1) -> None:
        """Count ``value`` (``count`` times: one gap that stood for several tokens)."""
        pending = self._pending
        if count == 1:
            pending.append(value)
        else:
            pending += [value] * count
        if len(pending) >= self.BATCH:
            self._flush()

    def _flush(self) -> None:
        values = sorted(self._pending)
        self._pending = []
        low = 0
        for i, bound in enumerate(self.bounds):
            high = bisect.bisect_right(
                values, bound, low
            )  # a bucket counts values up to its bound, inclusive
            self._counts[i] += high - low
            low = high
        self._counts[-1] += len(values) - low
        self._sum += sum(values)

    @property
    def counts(self) -> list[int]:
        """Observations per bucket, the last past every bound (not cumulative)."""
        self._flush()
        return self._counts

    @property
    def sum(self) -> float:
        """The sum of every observation."""
        self._flush()
        return self._sum

    def render(self, labels: str) -> str:
        self._flush()
        lines = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} histogram"]
        running = 0
        for bound, count in zip((*self.bounds, float("inf")), self._counts, strict=True):
            running += count
            le = "+Inf" if bound == float("inf") else repr(bound)
            lines.append(f'{self.name}_bucket{{{labels},le="{le}"}} {float(running)!r}')
        lines.append(f"{self.name}_count{{{labels}}} {float(running)!r}")
        lines.append(f"{self.name}_sum{{{labels}}} {self._sum!r}")
        return "\n".join(lines) + "\n"


class Metrics:
    """The simulator's metrics: scheduler gauges, token counters, latency histograms."""

    def __init__(
        self, model_name: str, max_model_len: int, running: Callable[[], float], engine: int = 0
    ) -> None:
        # ``engine`` is the data-parallel rank, as vLLM labels each engine core's series.
        self.labels = f'model_name="{escape(model_name)}",engine="{engine}"'
        self.waiting_count = 0
        self.kv_usage: Callable[[], float] = lambda: 0.0
        self.running = Gauge(
            "vllm:num_requests_running", "Number of requests in model execution batches.", running
        )
        self.waiting = Gauge(
            "vllm:num_requests_waiting",
            "Number of requests waiting to be processed.",
            lambda: self.waiting_count,
        )
        self.kv = Gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", self._kv)
        self.prompt_tokens = Counter("vllm:prompt_tokens", "Number of prefill tokens processed.")
        self.generation_tokens = Counter("vllm:generation_tokens", "Number of generation tokens processed.")
        self.cache_queries = Counter("vllm:prefix_cache_queries", "Prefix cache queries, in queried tokens.")
        self.cache_hits = Counter("vllm:prefix_cache_hits", "Prefix cache hits, in cached tokens.")
        self.success = dict.fromkeys(("stop", "length", "abort"), 0)
        lengths = buckets_1_2_5(max_model_len)
        self.prompt_len = Histogram(
            "vllm:request_prompt_tokens", "Number of prefill tokens processed.", lengths
        )
        self.output_len = Histogram(
            "vllm:request_generation_tokens", "Number of generation tokens processed.", lengths
        )
        self.ttft = Histogram(
            "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", TTFT_BUCKETS
        )
        self.itl = Histogram(
            "vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", ITL_BUCKETS
        )
        self.e2e = Histogram(
            "vllm:e2e_request_latency_seconds",
            "Histogram of e2e request latency in seconds.",
            REQUEST_BUCKETS,
        )
        self.queue = Histogram(
            "vllm:request_queue_time_seconds",
            "Histogram of time spent in WAITING phase for request.",
            REQUEST_BUCKETS,
        )
        self.info: dict[str, str] = {}
        self.extra: list[Gauge] = []
        #: Disaggregated serving: the prompt tokens this instance computed itself (none on a
        #: decode instance that read them from a prefill's cache), the tokens read from a
        #: prefill's, and each read's time, under vLLM's NIXL name.
        self.computed = Counter(
            "enginekit_sim_prefill_computed_tokens",
            "Prompt tokens computed here (neither cached nor transferred).",
        )
        self.transferred = Counter(
            "enginekit_sim_kv_transfer_tokens",
            "Prompt tokens whose KV cache was read from a prefill instance.",
        )
        self.served = Counter(
            "enginekit_sim_kv_transfer_served",
            "Requests whose held KV cache a decode instance read from here.",
        )
        self.xfer = Histogram(
            "vllm:nixl_xfer_time_seconds",
            "Histogram of transfer duration for NIXL KV Cache transfers.",
            ITL_BUCKETS,
        )
        self.transfer = False

    def _kv(self) -> float:
        return self.kv_usage()

    def render(self) -> str:
        """The whole exposition, as ``/metrics`` serves it."""
        parts = [m.render(self.labels) for m in (self.running, self.waiting, self.kv)]
        parts += [
            c.render(self.labels)
            for c in (self.prompt_tokens, self.generation_tokens, self.cache_queries, self.cache_hits)
        ]
        success = [
            "# HELP vllm:request_success_total Count of successfully processed requests.",
            "# TYPE vllm:request_success_total counter",
        ]
        success += [
            f'vllm:request_success_total{{{self.labels},finished_reason="{reason}"}} {float(n)!r}'
            for reason, n in self.success.items()
        ]
        parts.append("\n".join(success) + "\n")
        parts += [
            h.render(self.labels)
            for h in (self.prompt_len, self.output_len, self.ttft, self.itl, self.e2e, self.queue)
        ]
        parts += [g.render(self.labels) for g in self.extra]
        if self.transfer:
            parts += [c.render(self.labels) for c in (self.computed, self.transferred, self.served)]
            parts.append(self.xfer.render(self.labels))
        if self.info:
            info = ",".join(f'{k}="{escape(v)}"' for k, v in self.info.items())
            parts.append(
                "# HELP enginekit_sim_info What the simulated engine was started with.\n"
                f"# TYPE enginekit_sim_info gauge\nenginekit_sim_info{{{self.labels},{info}}} 1.0\n"
            )
        return "".join(parts)


def merge(expositions: list[str]) -> str:
    """Several engines' expositions as one: each family's HELP and TYPE once, then every engine's samples.

    vLLM's API server in front of several data-parallel ranks serves one exposition with
    a series per engine (the ``engine`` label); a family's header may appear only once.
    """
    families: dict[str, list[str]] = {}
    for text in expositions:
        name = ""
        for line in text.splitlines():
            if line.startswith(("# HELP ", "# TYPE ")):
                name = line.split(" ", 3)[2]
                lines = families.setdefault(name, [])
                if line not in lines:
                    lines.append(line)
            elif line:
                families.setdefault(name, []).append(line)
    return "".join(line + "\n" for lines in families.values() for line in lines)
