"""``import symnb.sparse`` works (PyMC3 imports it unconditionally) and each of Theano's
sparse names refuses, with the reason, at the line that uses it; the sparse types exist
and no symnb variable is of them (Keras asks ``isinstance(x.type, SparseType)``). Run in a fresh
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
        import numpy as np
        import symnb as sn
        import symnb.tensor as T
        for var in (T.matrix("m"), sn.shared(np.ones((2, 2))), T.constant(np.eye(2))):
            assert not isinstance(var.type, sparse.SparseType)
            assert not isinstance(var, (sparse.SparseVariable, sparse.SparseConstant))
        for cls in (sparse.SparseType, sparse.SparseVariable, sparse.SparseConstant):
            try:
                cls("csr", "float64")
            except NotInSymnbError as err:
                assert "sparse tensors are not supported" in str(err), err
            else:
                raise AssertionError(cls)
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert proc.stdout.strip() == "ok", proc.stderr[-2000:]
