"""One process of the two-process ``jax.distributed`` run of test_sharding.py.

    python distributed_worker.py PROCESS_ID PORT OUT.npz

Each process has 4 forced host devices (8 in all); the MLP of ``mlp_model`` is trained
data-parallel over the 8, each process feeding its half of the batch as its local part
of global arrays. Process 0 saves the trained parameters with ``sn.save``.
"""

from __future__ import annotations

import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
PROCESSES = 2

import jax  # noqa: E402

process_id, port, out_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
jax.distributed.initialize(f"localhost:{port}", num_processes=PROCESSES, process_id=process_id,
                           initialization_timeout=60)

from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402

import symnb as sn  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import mlp_model  # noqa: E402

assert jax.device_count() == 8 and jax.local_device_count() == 4
mesh = jax.make_mesh((8,), ("data",))
split = NamedSharding(mesh, P("data"))
step, params = mlp_model.training_step(mesh, in_shardings=[split, split])
X, Y = mlp_model.data()
rows = len(X) // PROCESSES
mine = slice(process_id * rows, (process_id + 1) * rows)
# Numpy inputs cannot be split over other processes' devices: each process gives its part.
global_X = jax.make_array_from_process_local_data(split, X[mine])
global_Y = jax.make_array_from_process_local_data(split, Y[mine])
for _ in range(mlp_model.STEPS):
    step(global_X, global_Y)
if process_id == 0:
    sn.save(out_path, params)
jax.distributed.shutdown()
