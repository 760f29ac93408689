"""Hessian-free optimisation (Martens 2010) in the style of the public Theano ``hf.py``
(Boulanger-Lewandowski's ``hf_optimizer``): the Gauss-Newton product ``G v`` built from
``T.Rop`` of the pre-softmax output, the loss's Hessian in that output by a second
``T.grad`` with ``consider_constant``, ``J^T (H J v)`` by ``T.Lop``; the damped
conjugate gradient run symbolically by ``theano.scan`` (each step one ``G v``), on an
MLP's parameters flattened into one vector. Written as for Theano 1.0, with
``theano`` renamed ``symnb``."""

import numpy
import symnb as theano
import symnb.tensor as T


def gauss_newton_product(cost, p, v, s):
    """``G v`` where ``cost`` depends on the parameters ``p`` through ``s`` (the
    output before the softmax, so that the loss is convex in ``s``)."""
    Jv = T.Rop(s, p, v)
    HJv = T.grad(T.sum(T.grad(cost, s) * Jv), s, consider_constant=[Jv],
                 disconnected_inputs='ignore')
    Gv = T.grad(T.sum(HJv * s), p, consider_constant=[HJv, Jv], disconnected_inputs='ignore')
    Gv = list(map(T.as_tensor_variable, Gv))
    return Gv


def lop_gauss_newton_product(p, v, s, cost):
    """The same product as a Jacobian sandwich: ``Lop(s, p, H Rop(s, p, v))``."""
    Jv = T.Rop(s, p, v)
    HJv = T.grad(T.sum(T.grad(cost, s) * Jv), s, consider_constant=[Jv])
    return T.Lop(s, p, HJv)


class MLP(object):

    def __init__(self, n_in, n_hidden, n_out, seed=1234):
        rng = numpy.random.RandomState(seed)
        floatX = theano.config.floatX
        self.W1 = theano.shared(numpy.asarray(rng.uniform(-0.5, 0.5, (n_in, n_hidden)), dtype=floatX), name='W1')
        self.b1 = theano.shared(numpy.zeros(n_hidden, dtype=floatX), name='b1')
        self.W2 = theano.shared(numpy.asarray(rng.uniform(-0.5, 0.5, (n_hidden, n_out)), dtype=floatX), name='W2')
        self.b2 = theano.shared(numpy.zeros(n_out, dtype=floatX), name='b2')
        self.params = [self.W1, self.b1, self.W2, self.b2]
        self.x = T.matrix('x')
        self.y = T.ivector('y')
        h = T.tanh(T.dot(self.x, self.W1) + self.b1)
        self.s = T.dot(h, self.W2) + self.b2
        self.p_y = T.nnet.softmax(self.s)
        self.cost = T.nnet.categorical_crossentropy(self.p_y, self.y).mean()


class hf_optimizer:

    def __init__(self, p, inputs, s, costs, cg_iterations=5):
        self.p = p
        self.shapes = [i.get_value().shape for i in p]
        self.sizes = list(map(numpy.prod, self.shapes))
        self.positions = numpy.cumsum([0] + self.sizes)[:-1]

        g = T.grad(costs[0], p)
        g = list(map(T.as_tensor_variable, g))
        self.f_gc = theano.function(inputs, g + costs, on_unused_input='ignore')
        self.f_cost = theano.function(inputs, costs, on_unused_input='ignore')

        symbolic_types = T.scalar, T.vector, T.matrix, T.tensor3, T.tensor4
        v = [symbolic_types[len(i)]() for i in self.shapes]
        Gv = gauss_newton_product(costs[0], p, v, s)
        coefficient = T.scalar()  # this is lambda * mu
        Gv_damped = [Gvi + coefficient * vi for Gvi, vi in zip(Gv, v)]
        self.function_Gv = theano.function(inputs + v + [coefficient], Gv_damped,
                                           on_unused_input='ignore')
        self.function_Lop_Gv = theano.function(inputs + v, lop_gauss_newton_product(p, v, s, costs[0]))

        # The damped CG as one scan: the state is (x, r, d, r.r) over flat vectors.
        gflat = T.concatenate([gi.flatten() for gi in g])

        def unflatten(vector):
            return [vector[i:i + size].reshape(shape)
                    for i, size, shape in zip(self.positions, self.sizes, self.shapes)]

        def cg_step(x, r, d, rr, damping):
            Gd = gauss_newton_product(costs[0], p, unflatten(d), s)
            Ad = T.concatenate([a.flatten() for a in Gd]) + damping * d
            alpha = rr / T.dot(d, Ad)
            x_new = x + alpha * d
            r_new = r - alpha * Ad
            rr_new = T.dot(r_new, r_new)
            d_new = r_new + (rr_new / rr) * d
            return x_new, r_new, d_new, rr_new

        damping = T.scalar('damping')
        r0 = -gflat
        (xs, rs, ds, rrs), updates = theano.scan(
            cg_step,
            outputs_info=[T.zeros_like(gflat), r0, r0, T.dot(r0, r0)],
            non_sequences=[damping],
            n_steps=cg_iterations)
        self.f_cg = theano.function(inputs + [damping], [xs[-1], gflat], updates=updates)

        step = T.vector('step')
        self.f_apply = theano.function(
            [step], [], updates=[(pi, pi + si) for pi, si in zip(p, unflatten(step))])

    def train(self, inputs, damping=1.0, n_updates=3):
        costs = [float(self.f_cost(*inputs)[0])]
        for _ in range(n_updates):
            direction, _ = self.f_cg(*(list(inputs) + [damping]))
            self.f_apply(direction.astype(theano.config.floatX))
            costs.append(float(self.f_cost(*inputs)[0]))
        return costs


def make_data(n=12, n_in=3, n_out=3, seed=5):
    rng = numpy.random.RandomState(seed)
    X = rng.randn(n, n_in).astype(theano.config.floatX)
    y = rng.randint(0, n_out, size=n).astype('int32')
    return X, y
