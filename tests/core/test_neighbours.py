"""images2neibs / neibs2images: both paths against a NumPy loop written from Theano's
definition: patch ``(a, b)`` of image ``(n, k)`` is row ``b + gd * (a + gc * (k + nk * n))``,
its tap ``(i, j)`` column ``j + c * i``, read at ``(a * dr + i - shift, b * dc + j - shift)``."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gradient import verify_grad
from symnb.tensor.nnet.neighbours import images2neibs, neibs2images
from tests.core.test_conv import check_outputs
from tests.reference import symbolic_like


def numpy_images2neibs(x, shape, step=None, mode="valid"):
    (r, c), (dr, dc) = shape, step or shape
    n, k, rows, cols = x.shape
    if mode == "wrap_centered":
        grid = (-(-rows // dr), -(-cols // dc))
        shift = (r // 2, c // 2)
    else:
        pad = {"half": (r // 2, c // 2), "full": (r - 1, c - 1)}.get(mode, (0, 0))
        grid = ((rows + 2 * pad[0] - r) // dr + 1, (cols + 2 * pad[1] - c) // dc + 1)
        shift = pad
    out = np.zeros((n * k * grid[0] * grid[1], r * c), x.dtype)
    row = 0
    for image in x.reshape(n * k, rows, cols):
        for a in range(grid[0]):
            for b in range(grid[1]):
                for i in range(r):
                    for j in range(c):
                        y, z = a * dr + i - shift[0], b * dc + j - shift[1]
                        if mode == "wrap_centered":
                            y, z = y % rows, z % cols
                        if 0 <= y < rows and 0 <= z < cols:
                            out[row, i * c + j] = image[y, z]
                row += 1
    return out


CASES = [((2, 1), None, "valid"), ((3, 2), (1, 3), "valid"), ((3, 3), (2, 2), "ignore_borders"),
         ((2, 3), (2, 1), "half"), ((2, 3), (1, 2), "full"), ((3, 3), (2, 3), "wrap_centered"),
         ((3, 1), (1, 1), "wrap_centered")]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_images2neibs_matches_numpy(dtype, rng):
    x = (rng.normal(size=(2, 3, 6, 5)) * 10).astype(dtype)
    x4 = (rng.normal(size=(1, 2, 4, 4)) * 10).astype(dtype)
    xv, x4v = symbolic_like(x, "x"), symbolic_like(x4, "x4")
    outputs = [images2neibs(xv, s, step, mode) for s, step, mode in CASES] + [images2neibs(x4v, (2, 2))]
    references = [(str(case), numpy_images2neibs(x, *case)) for case in CASES]
    references.append(("4x4", numpy_images2neibs(x4, (2, 2))))
    check_outputs([xv, x4v], [x, x4], outputs, references)


def test_neibs2images_inverts_disjoint_patches(rng):
    x = rng.normal(size=(2, 3, 6, 4)).astype("float32")
    xv = symbolic_like(x, "x")
    patches = images2neibs(xv, (2, 2))
    cropped = np.zeros_like(x)
    cropped[..., :3] = x[..., :3]  # two patches cover the 6 rows, one the first 3 columns
    outputs = [neibs2images(patches, (2, 2), x.shape),
               neibs2images(images2neibs(xv, (3, 3), mode="ignore_borders"), (3, 3), xv.shape,
                            mode="ignore_borders")]
    check_outputs([xv], [x], outputs, [("valid", x), ("ignore_borders", cropped)])


@pytest.mark.parametrize("case", CASES, ids=str)
def test_gradients(case, rng):
    verify_grad(lambda v: images2neibs(v, *case), [rng.normal(size=(1, 2, 6, 5))], rng=rng)


def test_second_derivative_and_shapes(rng):
    x = symbolic_like(rng.normal(size=(1, 2, 6, 5)), "x")
    neibs = images2neibs(x, (3, 2), (1, 1), "half")
    static = images2neibs(T.tensor4("s", shape=(2, 3, 6, 5)), (3, 2), (1, 1), "half")
    assert static.type.shape == (2 * 3 * 6 * 6, 6)
    g = sn.grad((neibs ** 2).sum(), x)
    for out in [neibs, g]:
        node = out.owner
        shapes = [tuple(T.shape(v)[i] for i in range(v.ndim)) for v in node.inputs]
        (inferred,) = node.op.infer_shape(node, shapes)
        assert tuple(int(T.as_tensor_variable(s).test_value) for s in inferred) == out.test_value.shape
    verify_grad(lambda v: sn.grad((images2neibs(v, (2, 2), (1, 1)) ** 2).sum(), v), [x.test_value], rng=rng)


def test_errors():
    x = T.tensor4("x", shape=(1, 1, 5, 5))
    with pytest.raises(ValueError, match="do not tile the 5 positions of 'x' on axis 2"):
        images2neibs(x, (2, 2))
    with pytest.raises(ValueError, match="odd patch sizes"):
        images2neibs(x, (2, 3), mode="wrap_centered")
    with pytest.raises(ValueError, match="mode must be one of"):
        images2neibs(x, (2, 2), mode="same")
    with pytest.raises(TypeError, match="must be 4-d"):
        images2neibs(T.matrix("m"), (2, 2))
    with pytest.raises(ValueError, match=r"has shape \(3, 4\), but an image of shape \(1, 1, 4, 4\) "
                                         r"has \(4, 4\)"):
        neibs2images(T.matrix("p", shape=(3, 4)), (2, 2), (1, 1, 4, 4))
