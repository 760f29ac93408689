"""The client-side viewer's model (issue 28): how long ``view_model`` takes and how much
a saved view weighs, for a training graph of about 2,000 and about 50,000 nodes.

    python bench/bench_view_model.py [--quick]

The graph is bench_explorer's (a deep residual MLP in ``sn.name_scope`` blocks, built by
a ``layer`` function, with its ``sn.grad`` gradients). For each size it prints:

- ``view_model`` time (best of a few runs): the model the browser receives once;
- the model's JSON size, whole and gzip + base64 (what a notebook would save whole);
- ``encode_view_model`` with the 2 MB budget: its time, the saved size and what the
  budget left out (``not_saved``).

Targets: a couple of seconds for 50,000 nodes (linear in the nodes), and the saved
view within 2 MB. The process's CPU time is printed beside the wall time: on a shared,
loaded machine it is the steadier of the two. Building the graph (test values included) is not timed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_explorer import nodes_in, training_graph  # noqa: E402

from symnb.printing.view_encode import BUDGET_BYTES, _compressed, _json, decode_view_model  # noqa: E402
from symnb.printing.view_model import encode_view_model, view_model  # noqa: E402


def measure(blocks: int, repeat: int) -> dict:
    outputs = training_graph(blocks)
    best = cpu = float("inf")
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        model = view_model(outputs)
        best = min(best, time.perf_counter() - started)
        cpu = min(cpu, time.process_time() - started_cpu)
    started, started_cpu = time.perf_counter(), time.process_time()
    saved = encode_view_model(model, BUDGET_BYTES)
    encode_seconds, encode_cpu = time.perf_counter() - started, time.process_time() - started_cpu
    return {"nodes": nodes_in(outputs), "model_nodes": len(model["nodes"]), "groups": len(model["groups"]),
            "view_model_s": best, "view_model_cpu_s": cpu, "encode_cpu_s": encode_cpu, "json_bytes": len(json.dumps(model, separators=(",", ":"))),
            "whole_saved_bytes": len(_compressed(_json(model))), "saved_bytes": len(saved),
            "encode_s": encode_seconds, "not_saved": decode_view_model(saved)["not_saved"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the 2,000-node graph only")
    args = parser.parse_args()
    sizes = [(84, 3)] if args.quick else [(84, 3), (2000, 1)]  # blocks: ~2,000 and ~50,000 nodes
    for blocks, repeat in sizes:
        found = measure(blocks, repeat)
        print(f"{found['nodes']:,} nodes ({found['model_nodes']:,} in the model, {found['groups']:,} groups): "
              f"view_model {found['view_model_s']:.2f} s ({found['view_model_cpu_s']:.2f} s CPU); JSON {found['json_bytes'] / 1e6:.1f} MB, "
              f"whole saved {found['whole_saved_bytes'] / 1e6:.2f} MB; saved within 2 MB: "
              f"{found['saved_bytes'] / 1e6:.2f} MB in {found['encode_s']:.2f} s ({found['encode_cpu_s']:.2f} s CPU)")
        for line in found["not_saved"]:
            print(f"    not saved: {line}")


if __name__ == "__main__":
    main()
