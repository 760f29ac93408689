"""``import symnb.sparse`` works (PyMC3 imports it unconditionally) and each of Theano's
sparse names refuses, with the reason, at the line that uses it. Run in a fresh
interpreter: importing the module binds ``symnb.sparse``, which other tests check is
refused while it is not imported."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"  # this checkout's symnb


def test_import_works_and_each_name_refuses_with_the_reason():
    code = textwrap.dedent("""
        import symnb.sparse as sparse
        from symnb.core.absent import NotInSymnbError
        for name in ("matrix", "as_sparse", "basic", "csr_matrix", "dot"):
            try:
                getattr(sparse, name)
            except NotInSymnbError as err:
                assert "sparse tensors are not supported" in str(err), err
            else:
                raise AssertionError(name)
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert proc.stdout.strip() == "ok", proc.stderr[-2000:]
