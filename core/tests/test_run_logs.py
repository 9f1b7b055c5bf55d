"""The runner's log lines: children's bytes split into prefixed lines, secrets masked, the runner's own stamped."""

from __future__ import annotations

import io
import os
import re
import threading

from enginekit.run.logs import LineSplitter, LogSink, pump
from hypothesis import given, settings
from hypothesis import strategies as st

KEY = "sk-log-0123456789abcdef"


def lines_of(splitter: LineSplitter, *chunks: bytes) -> list[bytes]:
    out: list[bytes] = []
    for chunk in chunks:
        out += splitter.feed(chunk)
    return out + splitter.finish()


def test_each_line_gets_the_prefix_and_one_newline_whatever_ended_it() -> None:
    lines = lines_of(LineSplitter(b"[main] "), b"one\ntwo\r\nthree\rfour")
    assert lines == [b"[main] one\n", b"[main] two\n", b"[main] three\n", b"[main] four\n"]


def test_a_line_split_across_reads_is_one_line_and_a_crlf_split_between_reads_is_one_end() -> None:
    lines = lines_of(LineSplitter(b"[w] "), b"hel", b"lo\r", b"\nworld\n")
    assert lines == [b"[w] hello\n", b"[w] world\n"]


def test_bytes_that_are_not_utf8_pass_unchanged() -> None:
    raw = b"\xff\xfe caf\xc3\xa9 \x1b[31mred\x1b[0m"
    assert lines_of(LineSplitter(b""), raw + b"\n") == [raw + b"\n"]


def test_a_huge_line_is_cut_into_lines_no_longer_than_the_limit() -> None:
    lines = lines_of(LineSplitter(b"> ", limit=10), b"x" * 35 + b"\n")
    assert [len(line) for line in lines] == [13, 13, 13, 8]
    assert b"".join(line[2:-1] for line in lines) == b"x" * 35


def test_the_key_is_masked_in_a_line_and_where_a_cut_would_split_it() -> None:
    splitter = LineSplitter(b"", [KEY], limit=30)
    text = b"a" * 25 + KEY.encode() + b"b" * 40 + b"\n"
    lines = lines_of(splitter, text[:27], text[27:50], text[50:])
    joined = b"".join(lines)
    assert KEY.encode() not in joined
    assert b"<secret>" in joined


@settings(max_examples=200, deadline=None)
@given(
    key=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.", min_size=16, max_size=40),
    pieces=st.lists(
        st.lists(st.sampled_from([b"\n", b"\r", b"x", b"\xff", b"yy"]), max_size=40).map(b"".join),
        min_size=1,
        max_size=8,
    ),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=10),
    limit=st.integers(min_value=1, max_value=64),
)
def test_the_key_never_reaches_the_output_however_the_stream_is_cut(
    key: str, pieces: list[bytes], cuts: list[int], limit: int
) -> None:
    stream = key.encode().join(pieces) + key.encode()
    positions = sorted({min(c, len(stream)) for c in cuts})
    chunks = [stream[a:b] for a, b in zip([0, *positions], [*positions, len(stream)], strict=True)]
    splitter = LineSplitter(b"[x] ", [key], limit=limit)
    out = b"".join(lines_of(splitter, *chunks))
    assert key.encode() not in out


@settings(max_examples=200, deadline=None)
@given(
    data=st.lists(st.sampled_from([b"\n", b"a", b"\xff", b"\x00", b"bb"]), max_size=150).map(b"".join),
    cuts=st.lists(st.integers(min_value=0, max_value=300), max_size=10),
)
def test_without_secrets_every_byte_arrives_in_order(data: bytes, cuts: list[int]) -> None:
    positions = sorted({min(c, len(data)) for c in cuts})
    chunks = [data[a:b] for a, b in zip([0, *positions], [*positions, len(data)], strict=True)]
    lines = lines_of(LineSplitter(b"", limit=16), *chunks)
    assert all(len(line) <= 17 and line.endswith(b"\n") for line in lines)
    # Cutting a long line adds line ends; everything else is the stream as it came.
    assert b"".join(lines).replace(b"\n", b"") == data.replace(b"\n", b"")


def test_the_pump_passes_a_pipe_on_and_closes_it() -> None:
    read, write = os.pipe()
    sink = io.BytesIO()
    thread = threading.Thread(target=pump, args=(read, LineSplitter(b"[p] ", [KEY]), LogSink(sink)))
    thread.start()
    os.write(write, f"key={KEY}\nno end".encode())
    os.close(write)
    thread.join(10)
    assert not thread.is_alive()
    assert sink.getvalue() == b"[p] key=<secret>\n[p] no end\n"


def test_the_runner_says_each_line_stamped_escaped_and_masked() -> None:
    sink = io.BytesIO()
    LogSink(sink, [KEY]).say(f"hello {KEY}\nsecond \x1b[2J line", kind="warning")
    lines = sink.getvalue().decode().splitlines()
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
    assert re.fullmatch(rf"{stamp} enginekit run: warning: hello <secret>", lines[0])
    assert re.fullmatch(rf"{stamp} enginekit run: warning: second \\u\{{001B\}}\[2J line", lines[1])


def test_a_closed_stream_is_given_up_quietly() -> None:
    sink = io.BytesIO()
    sink.close()
    LogSink(sink).write_lines([b"lost\n"])  # no exception: the children run on
    assert sink.closed
