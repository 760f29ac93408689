"""Groups of a graph built as PyMC3 builds a model's log-density (printing/groups.py,
core/graph/source.py): ``pm.Normal("mu", ...)`` runs ``Distribution.__new__``, which
builds the distribution and calls ``Model.Var``, which makes the random variable, a
Variable named ``mu`` whose ``__init__`` builds its log-density; a transformed variable
(``tau`` with a free ``tau_log__``) calls ``Model.Var`` again from inside ``Model.Var``.
The tiny library below is written as PyMC3 3.9.3 writes those calls. The picture groups
the log-density by random variable, named as PyMC3 names them, however deep the calls."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph import toposort
from symnb.printing.groups import GroupTree


class Normal:
    def __init__(self, mu, sigma):
        self.mu, self.sigma = T.as_tensor_variable(mu), T.as_tensor_variable(sigma)
        self.tau = self.sigma ** -2.0  # built by the distribution: the variable's group

    def logp(self, value):
        return T.sum(-0.5 * self.tau * (value - self.mu) ** 2 + 0.5 * T.log(self.tau / (2 * np.pi)))


class LogTransformed:
    """A positive distribution on the log scale: its density plus the Jacobian's log."""

    def __init__(self, dist):
        self.dist = dist

    def backward(self, value):
        return T.exp(value)

    def logp(self, value):
        return self.dist.logp(self.backward(value)) + T.sum(value)


class RandomVariable(T.TensorVariable):
    """PyMC3's FreeRV: a Variable whose constructor builds its log-density."""

    def __init__(self, name, dist):
        super().__init__(T.TensorType("float64", ()), None, None, name)
        self.logpt = dist.logp(self)


class TransformedVariable(T.TensorVariable):
    """PyMC3's TransformedRV: its free variable made by Model.Var, from Model.Var."""

    def __init__(self, name, dist, model):
        super().__init__(T.TensorType("float64", ()), None, None, name)
        transform = LogTransformed(dist)
        self.transformed = model.Var(f"{name}_log__", transform)
        self.value = transform.backward(self.transformed)  # PyMC3: tau is exp(tau_log__)
        self.logpt = self.transformed.logpt


class Model:
    def __init__(self):
        self.name = ""  # PyMC3's default: no name of its own, no group
        self.variables = []

    def Var(self, name, dist, transform=False):
        made = TransformedVariable(name, dist, self) if transform else RandomVariable(name, dist)
        self.variables.append(made)
        return made

    def logpt(self):
        return T.sum(T.stack([v.logpt for v in self.variables if isinstance(v, RandomVariable)]))


def new_variable(model, name, mu, sigma, transform=False):
    """Distribution.__new__: the distribution, then the variable."""
    return model.Var(name, Normal(mu, sigma), transform)


def schools():
    model = Model()
    new_variable(model, "mu", 0.0, 5.0)
    new_variable(model, "tau", 0.0, 5.0, transform=True)
    new_variable(model, "theta", 1.0, 2.0)
    return model, model.logpt()


def grouped(logp):
    tree = GroupTree(toposort([logp]), [])
    return tree, {g.title: g for g in tree.top.children}


def test_each_random_variable_is_one_group_named_as_it_is():
    model, logp = schools()
    tree, groups = grouped(logp)
    # The calls making each variable (new_variable, Model.Var) are drawn as the variable.
    assert list(groups) == ["mu", "tau", "theta", "logpt()"]
    assert groups["tau"].kind == "owner"
    # tau holds another named variable: its distribution's constructor stays a call.
    assert [g.title for g in groups["tau"].children] == ["__init__()", "tau_log__"]
    free = groups["tau"].children[1]
    mu, tau, theta = model.variables[0], model.variables[2], model.variables[3]
    assert model.variables[1].name == "tau_log__"
    # Reference: the nodes between each variable's parameters and its log-density. The
    # distribution's own nodes (sigma ** -2) sit with it.
    for name, var in (("mu", mu), ("theta", theta)):
        expected = {id(n) for n in toposort([var.logpt], [var])}
        inside = {id(n) for n in toposort([logp]) if tree.group_of(n).title == name}
        assert inside == expected
    # tau's log-density: built by tau_log__, but for its distribution's sigma ** -2.
    assert all(tree.group_of(n).ancestors()[0] is groups["tau"] for n in toposort([tau.logpt]))
    assert {id(n) for n in toposort([tau.logpt]) if tree.group_of(n) is not free} == {
        id(n) for n in toposort([tau.logpt]) if n.op.__class__.__name__ == "Pow" and not n.inputs[0].owner}
    fn = sn.function([mu, model.variables[1], theta], logp)
    m, t, th = 0.3, np.log(2.0), 1.4
    normal = lambda x, loc, s: -0.5 * ((x - loc) / s) ** 2 - np.log(s * np.sqrt(2 * np.pi))
    assert fn(m, t, th) == pytest.approx(normal(m, 0, 5) + normal(np.exp(t), 0, 5) + t + normal(th, 1, 2))


def test_frames_past_the_limit_take_the_groups_of_their_call():
    """With one frame recorded per node, the deepest nodes know only their innermost
    call: the groups above come from the nodes built in the same calls."""
    def shape_of_groups(limit):
        saved = sn.config.traceback__limit
        sn.config.traceback__limit = limit
        try:
            model, logp = schools()
        finally:
            sn.config.traceback__limit = saved
        tree, groups = grouped(logp)
        return {title: ([c.title for c in g.children], len(g.nodes), g.size) for title, g in groups.items()}

    # Reference: every frame recorded. tau_log__'s log-density is built 10 frames deep
    # (Normal.logp < LogTransformed.logp < __init__ < Var < __init__ < Var < new_variable
    # < schools < this test < pytest); at 7, only the nodes above it record the whole path.
    full = shape_of_groups(32)
    assert list(full) == ["mu", "tau", "theta", "logpt()"]
    assert shape_of_groups(7) == full


def test_a_recursive_function_keeps_each_calls_group():
    """Model.Var inside Model.Var: the outer call's nodes built after the inner call
    returned are still the outer call's."""

    def nest(x, depth):
        y = T.exp(x)
        if depth:
            y = nest(y, depth - 1)
        return T.log1p(y) * 2.0  # after the inner call: this call's node

    x = T.dscalar("x")
    out = nest(x, 2)
    tree = GroupTree(toposort([out]), [x])
    group = tree.top  # the outermost call, the graph's only group: opened
    for depth in range(3):
        ops = sorted(type(n.op).__name__ for n in group.nodes)
        assert ops == ["Exp", "Log1p", "Mul"], (depth, ops)
        inner = [g for g in group.children]
        assert [g.title for g in inner] == (["nest()"] if depth < 2 else [])
        group = inner[0] if inner else None
    np.testing.assert_allclose(sn.function([x], out)(0.1), _nest(0.1, 2))


def _nest(x, depth):
    y = np.exp(x)
    if depth:
        y = _nest(y, depth - 1)
    return np.log1p(y) * 2.0
