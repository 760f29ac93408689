"""``symnb.sparse``: Theano 1.0's sparse matrices (``theano.sparse``), csr and csc.

A sparse variable's value is a SciPy matrix: its test value, a shared variable's value,
what a compiled function takes and returns. Inside a compiled XLA program the matrix is
dense (``docs/porting.md``: ``theano.sparse``, why). The names are Theano's basic API:
``SparseType``, ``csr_matrix``/``csc_matrix``, ``as_sparse_variable``, ``shared`` of a
SciPy matrix, ``CSR``/``CSC``/``CSM`` and ``csm_properties``, ``dense_from_sparse`` and
``csr_from_dense``/``csc_from_dense``, ``dot``, ``structured_dot``, ``true_dot``,
``transpose``, ``add``/``sub``/``mul``, ``sp_sum``, indexing (``x[i, j]``, ``x[a:b, c:d]``,
``x[[rows]]``, ``x[[rows], [cols]]``: ``GetItemScalar``, ``GetItem2d``, ``GetItemList``,
``GetItem2Lists``), comparisons (``eq``, ``lt``... and ``<``, ``>``, ``<=``, ``>=``),
``remove0``, ``clean``, ``ensure_sorted_indices``, ``diag``/``square_diagonal``,
``col_scale``/``row_scale``, ``mul_s_v``, ``structured_add_s_v``, ``add_s_s_data``,
``sampling_dot``, with Theano's gradients. Another name of ``theano.sparse`` is refused
with :class:`~symnb.core.absent.NotInSymnbError`.
"""

from __future__ import annotations

from symnb.core.absent import NotInSymnbError
from symnb.sparse import basic
from symnb.sparse.basic import *  # noqa: F401,F403
from symnb.sparse.basic import (  # noqa: F401
    SparseConstant, SparseType, SparseVariable, as_sparse, csc_dmatrix, csc_fmatrix,
    csr_dmatrix, csr_fmatrix, sparse_constructor,
)

#: SciPy is installed with symnb: Theano's flag that its sparse module works.
enable_sparse = True
#: Theano's ``theano.sparse.shared``: a shared variable of a SciPy matrix.
shared = sparse_constructor


def verify_grad_sparse(op, pt, structured=False, n_tests=2, rng=None, eps=None, out_type=None,
                       abs_tol=None, rel_tol=None, mode=None, cast_to_output_type=False,
                       no_debug_ref=True):
    """Theano's ``verify_grad`` for ops with sparse inputs (``pt``: SciPy matrices and
    arrays): each sparse input is checked through its dense matrix (its ``data`` only
    when ``structured``), as Theano's."""
    from symnb.core.sparse.type import is_sparse_value
    from symnb.gradient import verify_grad

    conv_none = lambda x: x  # noqa: E731

    def conv_csr(ind, indptr, shp):
        def f(spdata):
            return CSR(spdata, ind, indptr, shp)
        return f

    def conv_csc(ind, indptr, shp):
        def f(spdata):
            return CSC(spdata, ind, indptr, shp)
        return f

    iconv, dpt = [], []
    for p in pt:
        if is_sparse_value(p):
            if structured:
                dpt.append(p.data)
            else:
                dpt.append(p.toarray())
            if p.format == "csr":
                if structured:
                    iconv.append(conv_csr(p.indices[:p.size], p.indptr, p.shape))
                else:
                    iconv.append(csr_from_dense)
            elif p.format == "csc":
                if structured:
                    iconv.append(conv_csc(p.indices[:p.size], p.indptr, p.shape))
                else:
                    iconv.append(csc_from_dense)
            else:
                raise NotImplementedError(f"verify_grad_sparse: format {p.format}")
        else:
            dpt.append(p)
            iconv.append(conv_none)
    output = op(*[as_sparse_or_tensor_variable(p) for p in pt])
    oconv = DenseFromSparse(structured=structured) if isinstance(output, SparseVariable) else conv_none

    def conv_op(*inputs):
        ipt = [conv(i) for i, conv in zip(inputs, iconv)]
        out = op(*ipt)
        return oconv(out)

    return verify_grad(conv_op, dpt, n_tests=n_tests, rng=rng, eps=eps, out_type=out_type,
                       abs_tol=abs_tol, rel_tol=rel_tol, mode=mode,
                       cast_to_output_type=cast_to_output_type, no_debug_ref=no_debug_ref)


def __getattr__(name: str):
    if name.startswith("__"):  # probes (__path__, __file__ ...): the usual answer
        raise AttributeError(f"module 'symnb.sparse' has no attribute {name!r}")
    raise NotInSymnbError(f"symnb.sparse.{name} is a name of theano.sparse that symnb does not "
                          "have: symnb.sparse has Theano's basic sparse API (see "
                          "docs/porting.md, theano.sparse); write the matrix dense "
                          "(sparse.dense_from_sparse(x)) for the rest")
