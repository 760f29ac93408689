"""Groups named as the objects that built them (printing/groups.py, core/graph/source.py):
a layer library's layers (Keras's ``dense_1``, Lasagne's ``hidden1``), whose methods run
on an object with a string ``name`` of its own, group a graph by layer with no change to
the library. The tiny library below is written as Keras writes its layers: ``model.add``
calls ``layer.__call__``, which calls the layer's own ``call``, which calls helpers."""

import pickle

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.core.graph import toposort
from symnb.printing.graph_model import GraphPicture
from symnb.printing.groups import GroupTree

RNG = np.random.default_rng(0)


def bias_add(x, b):
    return x + b


def relu(x):
    return T.maximum(x, 0.0)


def mean_square(error):
    return T.mean(T.square(error))


class Layer:
    def __init__(self, name):
        self.name = name

    def __call__(self, x):
        return self.call(x)


class Dense(Layer):
    def __init__(self, name, n_in, n_out):
        super().__init__(name)
        self.W = sn.shared(RNG.standard_normal((n_in, n_out)).astype("float32"), name=f"{name}/W")
        self.b = sn.shared(np.zeros(n_out, "float32"), name=f"{name}/b")

    def call(self, x):
        return relu(bias_add(T.dot(x, self.W), self.b))


class Sequential(Layer):
    def __init__(self, name):
        super().__init__(name)
        self.outputs = []

    def add(self, layer, x=None):
        self.outputs.append(layer(x if x is not None else self.outputs[-1]))

    def loss(self, y):
        return mean_square(self.outputs[-1] - y)


def model_and_loss():
    x = T.matrix("x", test_value=RNG.random((3, 4), dtype="float32"))
    y = T.matrix("y", test_value=RNG.random((3, 2), dtype="float32"))
    model = Sequential("model")
    dense_1, dense_2 = Dense("dense_1", 4, 5), Dense("dense_2", 5, 2)
    model.add(dense_1, x)
    model.add(dense_2)
    loss = model.loss(y)
    return x, y, model, (dense_1, dense_2), loss


def params_of(layers):
    return [p for layer in layers for p in (layer.W, layer.b)]


def test_the_methods_of_a_named_object_are_one_group_named_as_it_is():
    x, y, model, layers, loss = model_and_loss()
    total = loss * 2.0  # a node of this function's own: the model's group stays in sight
    tree = GroupTree(toposort([total]), [x, y] + params_of(layers))
    (built,) = tree.top.children
    (group,) = built.children
    assert built.title == "model_and_loss()" and built.nodes == []
    # Both model.add calls and model.loss: one group, the model's name.
    assert (group.kind, group.title) == ("owner", "model")
    assert [(g.kind, g.title) for g in group.children] == [
        ("owner", "dense_1"), ("owner", "dense_2"), ("call", "mean_square()")]
    inputs = [x, model.outputs[0]]
    for layer_group, layer, h, out in zip(group.children, layers, inputs, model.outputs):
        # Reference: the nodes between the layer's input and output, all directly inside
        # (Layer.__call__ -> Dense.call -> bias_add/relu add no level).
        assert {id(n) for n in layer_group.nodes} == {id(n) for n in toposort([out], [h, layer.W, layer.b])}
        assert layer_group.children == [] and layer.W in layer_group.roots and layer.b in layer_group.roots
    assert tree.group_of(total.owner) is tree.top


def test_the_calls_a_container_makes_stay_groups_and_a_layers_helpers_do_not():
    x, y, model, layers, loss = model_and_loss()
    tree = GroupTree(toposort([loss]), [x, y] + params_of(layers))
    # The top (this test's call, then the model) holds one group and no node: skipped.
    assert [g.title for g in tree.top.children] == ["dense_1", "dense_2", "mean_square()"]
    (loss_group,) = [g for g in tree.top.children if g.kind == "call"]
    assert [n.outputs[0] for n in loss_group.nodes][-1] is loss
    lone = Dense("lone", 4, 3)
    h = lone(x)  # a layer called alone: still its nodes directly, no bias_add() or relu()
    tree = GroupTree(toposort([h]), [x, lone.W, lone.b])
    assert [(g.title, g.children) for g in tree.top.children] in ([], [("lone", [])])
    assert all(tree.group_of(n).title in ("lone", "") for n in toposort([h]))


def test_objects_of_one_name_are_told_apart_and_numbered():
    x = T.matrix("x", test_value=RNG.random((3, 4), dtype="float32"))
    h = x
    for _ in range(3):
        h = Dense("hidden", 4, 4)(h)  # each dies after its call: its id may be reused
    extra = h.sum()
    order = toposort([extra])
    tree = GroupTree(order, [v for n in order for v in n.inputs if v.owner is None])
    titles = [g.title for g in tree.top.children]
    assert titles == ["hidden #1", "hidden #2", "hidden #3"]
    assert [g.size for g in tree.top.children] == [3, 3, 3]


def block(h, W):
    return T.tanh(T.dot(h, W))


def doubled_weight(n, name):
    W = sn.shared(np.eye(n, dtype="float32"), name=name)  # made inside the helper
    return W, W * 2.0


class Stack(Layer):
    """A layer calling one helper once and another three times."""

    def call(self, x):
        self.W, twice = doubled_weight(4, f"{self.name}/W")
        h = x
        for _ in range(3):
            h = block(h, twice)
        return h


def test_a_function_a_layer_calls_several_times_stays_a_group_per_call():
    x = T.matrix("x", test_value=RNG.random((3, 4), dtype="float32"))
    stack = Stack("stack")
    out = stack(x)
    total = out.sum()
    order = toposort([total])
    tree = GroupTree(order, [x, stack.W])
    (group,) = tree.top.children
    assert group.title == "stack"
    assert [g.title for g in group.children] == ["block() #1", "block() #2", "block() #3"]
    # The helper called once adds no level: its node, and the weight it made, are the layer's.
    twice = out.owner.inputs[0].owner.inputs[1]  # tanh(dot(h, twice))
    assert group.nodes == [twice.owner] and stack.W in group.roots
    assert tree.group_of(stack.W) is group and tree.group_of(twice.owner) is group
    dots = [n for n in order if n.op.__class__.__name__ == "Dot"]
    assert len(dots) == 3
    for call, dot in zip(group.children, dots):  # each call: its dot and tanh
        assert call.nodes == [dot, next(n for n in order if n.inputs[0] is dot.outputs[0])]


class NoName(Layer):
    def __init__(self, name):
        super().__init__(name)
        self.W = sn.shared(np.eye(4, dtype="float32"), name="W")

    def call(self, x):
        return T.tanh(T.dot(x, self.W))


class NameProperty(NoName):
    def __init__(self):
        self.W = sn.shared(np.eye(4, dtype="float32"), name="W")

    @property
    def name(self):
        raise RuntimeError("a picture must not run a property")


def test_an_object_without_a_string_name_of_its_own_groups_by_its_calls():
    x = T.matrix("x", test_value=RNG.random((3, 4), dtype="float32"))
    a = NoName(None)(x)  # Lasagne's default: name=None
    b = NameProperty()(a)
    c = (b * 2).sum()
    order = toposort([c])
    tree = GroupTree(order, [v for n in order for v in n.inputs if v.owner is None])
    assert [(g.kind, g.title) for g in tree.top.children] == [("call", "__call__() #1"), ("call", "__call__() #2")]
    assert [[c.title for c in g.children] for g in tree.top.children] == [["call()"], ["call()"]]


def test_the_gradient_mirrors_the_named_groups():
    x, y, model, layers, loss = model_and_loss()
    params = params_of(layers)
    grads = sn.grad(loss, params)
    tree = GroupTree(toposort([loss] + grads), [x, y] + params)
    (grad,) = [g for g in tree.groups() if g.kind == "grad"]
    (built,) = grad.children
    (model_group,) = built.children  # mirrors model_and_loss() > model
    assert (built.title, model_group.title) == ("model_and_loss()", "model")
    mirrors = {g.title: g for g in model_group.children}
    assert {"dense_1", "dense_2", "mean_square()"} <= set(mirrors)
    # Each layer's weights' gradients are computed in that layer's mirror.
    for layer, (gW, gb) in zip(layers, zip(grads[::2], grads[1::2])):
        assert tree.group_of(gW.owner) is mirrors[layer.name]
        assert tree.group_of(gb.owner) is mirrors[layer.name]


def test_a_named_group_says_what_made_it_and_where():
    x, y, model, layers, loss = model_and_loss()
    tree = GroupTree(toposort([loss]), [x, y] + params_of(layers))
    dense_1 = next(g for g in tree.groups() if g.title == "dense_1")
    assert dense_1.describe() == "calls of Dense 'dense_1'"
    # Where the object was first called from: the model's add.
    assert dense_1.where().endswith("self.outputs.append(layer(x if x is not None else self.outputs[-1]))")
    picture = GraphPicture([loss], opened=())
    node = picture.nodes[picture.id_of(layers[0].W)]
    assert node.kind == "group" and node.label == "dense_1"


def test_named_groups_survive_pickling():
    x, y, model, layers, loss = model_and_loss()
    copy = pickle.loads(pickle.dumps(loss))
    order = toposort([copy])
    tree = GroupTree(order, [v for n in order for v in n.inputs if v.owner is None])
    assert [g.title for g in tree.top.children] == ["dense_1", "dense_2", "mean_square()"]
    assert [g.size for g in tree.top.children] == [3, 3, 2]  # dot, add, maximum; square, mean
