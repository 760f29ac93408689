"""MRG31k3p, Theano's ``theano.sandbox.rng_mrg`` generator (L'Ecuyer and Touzin, 2000), exact.

A stream's state is six int32 (``x11 x12 x13`` modulo ``M1 = 2**31 - 1``, ``x21 x22 x23``
modulo ``M2 = 2**31 - 21069``); a draw's state is a matrix of ``nstreams`` such rows, and
the draw of ``n`` values takes value ``i`` from stream ``i % nstreams`` (each stream
advancing once per value it gives), as Theano's ``mrg_uniform`` does on CPU. Streams are
spaced by ``2**72`` steps (:func:`ff_2p72`), factories by ``2**134`` (:func:`ff_2p134`),
with L'Ecuyer's jump matrices: the numbers are Theano's and L'Ecuyer's Java reference's.

One home for the arithmetic: :func:`next_states` works on NumPy and jax.numpy arrays (the
Op's ``perform`` and its XLA rule, ``lower_xla/rules/mrg.py``, both call it), int32
throughout, overflow wrapping as in Theano's C code.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.errors import build_error
from symnb.core.graph.op import Op
from symnb.core.graph.type import TensorType
from symnb.core.gradient_types import grad_undefined
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.shape import static_entries, vector_entries

__all__ = ["M1", "M2", "NORM", "A1p72", "A2p72", "A1p134", "A2p134", "matVecModM",
           "multMatVect", "ff_2p72", "ff_2p134", "mrg_next_value", "next_states", "to_unit",
           "sample_streams", "substream_rstates", "guess_n_streams", "DotModulo",
           "mrg_uniform_base", "mrg_uniform", "MAX_SAMPLES"]

M1 = np.asarray(np.int32(2147483647))  # 2**31 - 1
M2 = np.asarray(np.int32(2147462579))  # 2**31 - 21069
MASK12 = np.int32(511)  # 2**9 - 1
MASK13 = np.int32(16777215)  # 2**24 - 1
MASK2 = np.int32(65535)  # 2**16 - 1
MULT2 = np.int32(21069)
NORM = 4.656612873077392578125e-10  # 2**-31
#: Theano's limit on one draw (its C and GPU code index with int32).
MAX_SAMPLES = int(M1)

# L'Ecuyer's jump matrices: 2**72 steps (the next substream), 2**134 (the next stream).
A1p72 = np.asarray([[1516919229, 758510237, 499121365],
                    [1884998244, 1516919229, 335398200],
                    [601897748, 1884998244, 358115744]], dtype="int64")
A2p72 = np.asarray([[1228857673, 1496414766, 954677935],
                    [1133297478, 1407477216, 1496414766],
                    [2002613992, 1639496704, 1407477216]], dtype="int64")
A1p134 = np.asarray([[1702500920, 1849582496, 1656874625],
                     [828554832, 1702500920, 1512419905],
                     [1143731069, 828554832, 102237247]], dtype="int64")
A2p134 = np.asarray([[796789021, 1464208080, 607337906],
                     [1241679051, 1431130166, 1464208080],
                     [1401213391, 1178684362, 1431130166]], dtype="int64")


def matVecModM(A: np.ndarray, s: np.ndarray, m: Any) -> np.ndarray:
    """``A @ s mod m``, each product reduced before the sum (int64 ``A``, int32 result)."""
    assert A.dtype == "int64"
    return np.int32(np.sum((A * s) % m, 1) % m)


def multMatVect(v: np.ndarray, A: np.ndarray, m1: Any, B: np.ndarray, m2: Any) -> np.ndarray:
    """The first half of ``v`` times ``A`` modulo ``m1``, the second times ``B`` modulo
    ``m2`` (:class:`DotModulo`'s arithmetic, on the host)."""
    v = np.asarray(v)
    return np.concatenate((matVecModM(A, v[:3], m1), matVecModM(B, v[3:], m2)))


def ff_2p134(rstate: np.ndarray) -> np.ndarray:
    """The state ``2**134`` steps after ``rstate`` (the next stream's start)."""
    return multMatVect(rstate, A1p134, M1, A2p134, M2)


def ff_2p72(rstate: np.ndarray) -> np.ndarray:
    """The state ``2**72`` steps after ``rstate`` (the next substream's start)."""
    return multMatVect(rstate, A1p72, M1, A2p72, M2)


def next_states(xp: Any, state: Any) -> tuple[Any, Any]:
    """One step of every stream: ``(next states, value)``, ``state`` int32 of shape
    ``(..., 6)``; the value is an int32 in ``[1, M1]`` (:func:`to_unit` scales it).
    ``xp``: numpy or jax.numpy; int32 overflow wraps, as Theano's C code relies on."""
    x11, x12, x13, x21, x22, x23 = (state[..., i] for i in range(6))

    def reduce(y, m):  # "must also check overflow": a wrapped sum is negative
        return xp.where((y < 0) | (y >= m), y - m, y)

    y1 = reduce(((x12 & MASK12) << 22) + (x12 >> 9) + ((x13 & MASK13) << 7) + (x13 >> 24), M1)
    y1 = reduce(y1 + x13, M1)
    z1 = reduce(((x21 & MASK2) << 15) + MULT2 * (x21 >> 16), M2)
    y2 = reduce(((x23 & MASK2) << 15) + MULT2 * (x23 >> 16), M2)
    y2 = reduce(y2 + x23, M2)
    y2 = reduce(y2 + z1, M2)
    new = xp.stack([y1, x11, x12, y2, x21, x22], axis=-1).astype("int32")
    value = xp.where(y1 <= y2, y1 - y2 + M1, y1 - y2)
    return new, value


def to_unit(xp: Any, value: Any, dtype: str) -> Any:
    """The int32 values of :func:`next_states` as floats in ``(0, 1)``, as Theano's code
    scales them: float64 ``* 2**-31``; float32 converted first, then ``* 4.6566126e-10f``
    (its C code); float16 the low 15 bits plus one, ``* 3.0458e-05`` (never 0 or 1)."""
    if dtype == "float16":
        scaled = ((value & np.int32(0x7FFF)) + np.int32(1)).astype("float32")
        return (scaled * np.float32(np.float16(3.0458e-05))).astype("float16")
    if dtype == "float32":
        return value.astype("float32") * np.float32(4.6566126e-10)
    if dtype == "float64":
        return value.astype("float64") * np.float64(NORM)
    raise TypeError(f"mrg_uniform draws float16, float32 or float64, not {dtype}")


def mrg_next_value(rstate: np.ndarray, new_rstate: np.ndarray, NORM: Any, mask: int,
                   offset: int) -> Any:
    """Theano's one-step function: advance the stream ``rstate`` (six int32), write the
    next state into ``new_rstate`` and return the value ``((v & mask) + offset) * NORM``."""
    with np.errstate(over="ignore"):
        new, value = next_states(np, np.asarray(rstate, dtype="int32"))
    new_rstate[...] = new
    return ((np.int64(value) & mask) + offset) * NORM  # int64: NumPy 1 upcast for the mask


def sample_streams(rstate: np.ndarray, n: int, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """``(next rstate, n values of dtype)``: value ``i`` from stream ``i % nstreams``
    (NumPy; the XLA rule runs the same steps in a loop)."""
    state = np.array(rstate, dtype="int32")
    streams = state.shape[0]
    steps = -(-n // streams)
    values = np.empty((steps, streams), dtype="int32")
    with np.errstate(over="ignore"):
        for k in range(steps):
            new, values[k] = next_states(np, state)
            active = k * streams + np.arange(streams) < n  # the last step's tail stays
            state = np.where(active[:, None], new, state)
    return state, to_unit(np, values.reshape(-1)[:n], dtype)


def substream_rstates(rstate: np.ndarray, n_streams: int) -> np.ndarray:
    """``n_streams`` states from ``rstate`` on, each ``2**72`` steps after the previous
    (what applying :func:`ff_2p72` one after the other gives, by doubling: the states
    ``k..2k-1`` are the jump ``A**k`` applied to ``0..k-1``; 15,360 streams in 15 steps)."""
    rval = np.zeros((n_streams, 6), dtype="int64")
    rval[0] = rstate
    jumps = [(A1p72, int(M1), slice(0, 3)), (A2p72, int(M2), slice(3, 6))]
    filled = 1
    while filled < n_streams:
        take = min(filled, n_streams - filled)
        for A, m, half in jumps:
            # each product reduced before the sum, as matVecModM: no int64 overflow
            rval[filled:filled + take, half] = np.sum(
                (A[None] * rval[:take, None, half]) % m, axis=2) % m
        jumps = [(_square_mod(A, m), m, half) for A, m, half in jumps]
        filled += take
    return rval.astype("int32")


def _square_mod(A: np.ndarray, m: int) -> np.ndarray:
    return np.sum((A[:, :, None] * A[None, :, :]) % m, axis=1) % m


def guess_n_streams(size: Any, warn: bool = False) -> int:
    """Theano's number of streams for a draw of ``size``: a sixth of the values (at
    least the values when there are 6 or fewer, at most ``60 * 256``); ``60 * 256`` when
    ``size`` is not all Python/NumPy ints (a warning if ``warn``)."""
    if isinstance(size, (tuple, list)) and all(isinstance(i, (int, np.integer)) for i in size):
        r = 1
        for s in size:
            r *= int(s)
        if r > 6:
            r = r // 6
        return min(r, 60 * 256)
    if warn:
        from symnb.core.graph.source import warn_at_user_line

        warn_at_user_line(f"MRG_RandomStreams Can't determine #streams from size ({size}), "
                          f"guessing 60*256")
    return 60 * 256


class DotModulo(Op):
    """``concatenate(A @ s mod m, A2 @ s2 mod m2)``, each product reduced before the sum
    (Theano's op behind :func:`ff_2p72`; int64 matrices, int32 vectors and moduli)."""

    __props__ = ()
    #: Integer arithmetic modulo a prime: no gradient (Theano's op defines none).
    differentiable = False

    def make_node(self, A, s, m, A2, s2, m2) -> Apply:
        inputs = [as_tensor_variable(v) for v in (A, s, m, A2, s2, m2)]
        for v, ndim in zip(inputs, (2, 1, 0, 2, 1, 0)):
            if v.ndim != ndim:
                raise build_error(f"DotModulo: expected {ndim} dimensions, got {v.type}",
                                  TypeError, op=self, inputs=inputs)
        return Apply(self, inputs, [TensorType(inputs[1].dtype, (None,))])

    def perform(self, node, inputs):
        A, s, m, A2, s2, m2 = inputs
        return [np.concatenate((matVecModM(A, s, m), matVecModM(A2, s2, m2))).astype(
            node.outputs[0].dtype)]

    def infer_shape(self, node, input_shapes):
        return [(input_shapes[0][0] + input_shapes[3][0],)]


class mrg_uniform_base(Op):
    """Theano's base of the MRG draws: ``(rstate, size) -> (next rstate, sample)``, the
    sample of ``output_type`` (its dtype and number of axes). ``inplace`` is accepted
    for Theano's signature: symnb never overwrites an input."""

    __props__ = ("output_type", "inplace")

    def __init__(self, output_type: TensorType, inplace: bool = False) -> None:
        self.output_type = output_type
        self.inplace = bool(inplace)

    def __str__(self) -> str:
        return f"{type(self).__name__}{{{self.output_type},{'inplace' if self.inplace else 'no_inplace'}}}"

    def L_op(self, inputs, outputs, output_grads):
        return [grad_undefined(self, k, inp, "No gradient defined through random sampling op")
                for k, inp in enumerate(inputs)]

    def R_op(self, inputs, eval_points):
        return [None for _ in eval_points]


class mrg_uniform(mrg_uniform_base):
    """Uniform draws in ``(0, 1)`` from MRG31k3p streams (Theano's CPU op): the state is
    an int32 matrix ``(nstreams, 6)``; value ``i`` comes from stream ``i % nstreams``."""

    def make_node(self, rstate, size) -> Apply:
        rstate = as_tensor_variable(rstate)
        size = as_tensor_variable(size)
        if rstate.dtype != "int32" or rstate.ndim != 2:
            raise build_error(f"mrg_uniform: the state is an int32 matrix (nstreams, 6), got "
                              f"{rstate.type}", TypeError, op=self, inputs=[rstate, size])
        if size.ndim != 1 or "int" not in size.dtype:
            raise build_error(f"mrg_uniform: size is an integer vector, got {size.type}",
                              TypeError, op=self, inputs=[rstate, size])
        entries = static_entries(size) if size.type.shape[0] is not None else [None] * self.output_type.ndim
        if len(entries) != self.output_type.ndim:
            raise build_error(f"mrg_uniform: size has {len(entries)} entries for a draw of "
                              f"{self.output_type.ndim} dimensions", ValueError, op=self,
                              inputs=[rstate, size])
        return Apply(self, [rstate, size], [rstate.type, TensorType(self.output_type.dtype, entries)])

    @classmethod
    def new(cls, rstate: Any, ndim: int | None, dtype: str, size: Any) -> list[Variable]:
        """``(next rstate, sample)`` of a draw of ``size`` (Theano's constructor)."""
        from symnb.core.tensor.shape import as_shape_vector

        v_size = as_shape_vector(size, ndim)
        if ndim is None:
            ndim = len(static_entries(v_size))
        op = cls(TensorType(dtype, (False,) * ndim))
        return op(rstate, v_size)

    def perform(self, node, inputs):
        rstate, size = inputs
        size = tuple(int(n) for n in size)
        if len(size) != self.output_type.ndim:
            raise ValueError(f"mrg_uniform: size {size} has {len(size)} entries for a draw of "
                             f"{self.output_type.ndim} dimensions")
        n = check_draw_size(size)
        rstate = np.asarray(rstate)
        if rstate.ndim != 2 or rstate.shape[1] != 6 or rstate.shape[0] == 0:
            raise ValueError(f"mrg_uniform: the state must be an int32 matrix (nstreams, 6), "
                             f"got shape {rstate.shape}")
        state, values = sample_streams(rstate, n, self.output_type.dtype)
        return [state, values.reshape(size)]

    def infer_shape(self, node, input_shapes):
        size = node.inputs[1]
        return [input_shapes[0], tuple(vector_entries(size, self.output_type.ndim))]


def check_draw_size(size: Sequence[int]) -> int:
    """The number of values of a draw of ``size``; ValueError beyond Theano's limit or for
    a negative length."""
    if any(n < 0 for n in size):
        raise ValueError(f"mrg_uniform: negative dimensions are not allowed: size {tuple(size)}")
    n = int(np.prod(size, dtype=object)) if size else 1
    if n > MAX_SAMPLES:
        raise ValueError(f"rng_mrg does not support more then (2**31 -1) samples: size "
                         f"{tuple(size)} has {n}")
    return n
