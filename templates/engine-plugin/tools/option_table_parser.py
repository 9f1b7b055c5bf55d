"""myengine-server's argument parser, for ``enginekit option-table`` (``tools/`` is not shipped).

A real plugin imports its engine's own parser here, in an environment where that release
of the engine is installed (``from myengine.cli import make_parser``), and runs, once per
release it supports::

    enginekit option-table src/enginekit_myengine/options_table.py \\
        --parser option_table_parser:make_parser --release 1.2.0 \\
        --source "myengine-1.2.0 wheel (sha256 ...): myengine.cli.make_parser" \\
        --engine myengine --program myengine-server --generator "enginekit option-table"

(``--engine``, ``--program`` and ``--generator`` only for the first release; later ones are
merged into the table, in release order.) ``enginekit option-table --check TABLE`` checks a
table. The plugin then reads it with ``OptionTable.from_package("enginekit_myengine")``
(``docs/option-tables.md``). myengine-server does not exist, so this file stands in for its
parser with the options ``policy.py`` knows.
"""

from __future__ import annotations

import argparse


def make_parser() -> argparse.ArgumentParser:
    """The parser myengine-server would build (a stand-in: the engine does not exist)."""
    parser = argparse.ArgumentParser(prog="myengine-server")
    parser.add_argument("--model")
    parser.add_argument("--served-model-name")
    parser.add_argument("--host")
    parser.add_argument("--port", type=int)
    parser.add_argument("--tensor-parallel-size", "-tp", type=int)
    parser.add_argument("--pipeline-parallel-size", "-pp", type=int)
    parser.add_argument("--nnodes", type=int)
    parser.add_argument("--node-rank", type=int)
    parser.add_argument("--leader")
    parser.add_argument("--headless", action="store_true")
    parser.add_argument("--device")
    parser.add_argument("--threads", type=int)
    parser.add_argument("--trust-remote-code", action="store_true")
    parser.add_argument("--plugin-dir")
    parser.add_argument("--api-key")
    parser.add_argument("--enable-metrics", action="store_true")
    parser.add_argument("--enforce-eager", action="store_true")
    parser.add_argument("--dtype")
    parser.add_argument("--max-model-len", type=int)
    parser.add_argument("--max-num-seqs", type=int)
    parser.add_argument("--gpu-memory-utilization", type=float)
    return parser
