"""A sentence CNN in the style of Kim (2014)'s public Theano code (``conv_net_sentence.py``
and ``conv_net_classes.py``): word vectors looked up by ``Words[T.cast(x.flatten(),
dtype="int32")]`` and reshaped to a one-channel image, ``conv2d`` with filters as wide
as the vectors for several heights, ``pool_2d`` over the whole sentence, a dropout
softmax layer on the concatenation, adadelta updates with ``T.sqrt`` norms and the
max-norm constraint, the zero vector of padding reset after each step. Written as for
Theano 1.0, with ``theano`` renamed ``symnb``."""

from collections import OrderedDict

import numpy as np
import symnb as theano
import symnb.tensor as T
from symnb.tensor.nnet import conv2d
from symnb.tensor.signal import pool
from symnb.tensor.shared_randomstreams import RandomStreams


def ReLU(x):
    y = T.maximum(0.0, x)
    return y


class LeNetConvPoolLayer(object):

    def __init__(self, rng, input, filter_shape, image_shape, poolsize=(2, 2), non_linear="tanh"):
        assert image_shape[1] == filter_shape[1]
        self.input = input
        self.filter_shape = filter_shape
        self.image_shape = image_shape
        self.poolsize = poolsize
        self.non_linear = non_linear
        fan_in = np.prod(filter_shape[1:])
        fan_out = (filter_shape[0] * np.prod(filter_shape[2:]) / np.prod(poolsize))
        if self.non_linear == "none" or self.non_linear == "relu":
            self.W = theano.shared(np.asarray(rng.uniform(low=-0.01, high=0.01, size=filter_shape),
                                              dtype=theano.config.floatX), borrow=True, name="W_conv")
        else:
            W_bound = np.sqrt(6. / (fan_in + fan_out))
            self.W = theano.shared(np.asarray(rng.uniform(low=-W_bound, high=W_bound, size=filter_shape),
                                              dtype=theano.config.floatX), borrow=True, name="W_conv")
        b_values = np.zeros((filter_shape[0],), dtype=theano.config.floatX)
        self.b = theano.shared(value=b_values, borrow=True, name="b_conv")

        conv_out = conv2d(input=input, filters=self.W, filter_shape=self.filter_shape,
                          input_shape=self.image_shape)
        if self.non_linear == "tanh":
            conv_out_tanh = T.tanh(conv_out + self.b.dimshuffle('x', 0, 'x', 'x'))
            self.output = pool.pool_2d(input=conv_out_tanh, ws=self.poolsize, ignore_border=True)
        elif self.non_linear == "relu":
            conv_out_tanh = ReLU(conv_out + self.b.dimshuffle('x', 0, 'x', 'x'))
            self.output = pool.pool_2d(input=conv_out_tanh, ws=self.poolsize, ignore_border=True)
        else:
            pooled_out = pool.pool_2d(input=conv_out, ws=self.poolsize, ignore_border=True)
            self.output = pooled_out + self.b.dimshuffle('x', 0, 'x', 'x')
        self.params = [self.W, self.b]


def _dropout_from_layer(rng, layer, p):
    srng = RandomStreams(rng.randint(999999))
    # p=1-p because 1's indicate keep and p is prob of dropping
    mask = srng.binomial(n=1, p=1 - p, size=layer.shape)
    # The cast is important because
    # int * float32 = float64 which pulls things off the gpu
    output = layer * T.cast(mask, theano.config.floatX)
    return output


class LogisticRegression(object):

    def __init__(self, input, n_in, n_out, W=None, b=None):
        if W is None:
            self.W = theano.shared(value=np.zeros((n_in, n_out), dtype=theano.config.floatX),
                                   name='W', borrow=True)
        else:
            self.W = W
        if b is None:
            self.b = theano.shared(value=np.zeros((n_out,), dtype=theano.config.floatX),
                                   name='b', borrow=True)
        else:
            self.b = b
        self.p_y_given_x = T.nnet.softmax(T.dot(input, self.W) + self.b)
        self.y_pred = T.argmax(self.p_y_given_x, axis=1)
        self.params = [self.W, self.b]

    def negative_log_likelihood(self, y):
        return -T.mean(T.log(self.p_y_given_x)[T.arange(y.shape[0]), y])

    def errors(self, y):
        if y.ndim != self.y_pred.ndim:
            raise TypeError('y should have the same shape as self.y_pred',
                            ('y', y.type, 'y_pred', self.y_pred.type))
        if y.dtype.startswith('int'):
            return T.mean(T.neq(self.y_pred, y))
        else:
            raise NotImplementedError()


def sgd_updates_adadelta(params, cost, rho=0.95, epsilon=1e-6, norm_lim=9, word_vec_name='Words'):
    updates = OrderedDict({})
    exp_sqr_grads = OrderedDict({})
    exp_sqr_ups = OrderedDict({})
    gparams = []
    for param in params:
        empty = np.zeros_like(param.get_value())
        exp_sqr_grads[param] = theano.shared(value=as_floatX(empty), name="exp_grad_%s" % param.name)
        gp = T.grad(cost, param)
        exp_sqr_ups[param] = theano.shared(value=as_floatX(empty), name="exp_grad_%s" % param.name)
        gparams.append(gp)
    for param, gp in zip(params, gparams):
        exp_sg = exp_sqr_grads[param]
        exp_su = exp_sqr_ups[param]
        up_exp_sg = rho * exp_sg + (1 - rho) * T.sqr(gp)
        updates[exp_sg] = up_exp_sg
        step = -(T.sqrt(exp_su + epsilon) / T.sqrt(up_exp_sg + epsilon)) * gp
        updates[exp_su] = rho * exp_su + (1 - rho) * T.sqr(step)
        stepped_param = param + step
        if (param.get_value(borrow=True).ndim == 2) and (param.name != 'Words'):
            col_norms = T.sqrt(T.sum(T.sqr(stepped_param), axis=0))
            desired_norms = T.clip(col_norms, 0, T.sqrt(norm_lim))
            scale = desired_norms / (1e-7 + col_norms)
            updates[param] = stepped_param * scale
        else:
            updates[param] = stepped_param
    return updates


def as_floatX(variable):
    # NumPy 2 removed np.cast[dtype](value) (the original's spelling): np.asarray instead.
    if isinstance(variable, float):
        return np.asarray(variable, dtype=theano.config.floatX)
    if isinstance(variable, np.ndarray):
        return np.asarray(variable, dtype=theano.config.floatX)
    return theano.tensor.cast(variable, theano.config.floatX)


def build(U, img_w=5, filter_hs=(2, 3), hidden_units=(3, 2), dropout_rate=0.5,
          batch_size=4, sent_len=7, seed=3435):
    rng = np.random.RandomState(seed)
    img_h = sent_len
    filter_w = img_w
    feature_maps = hidden_units[0]
    filter_shapes = []
    pool_sizes = []
    for filter_h in filter_hs:
        filter_shapes.append((feature_maps, 1, filter_h, filter_w))
        pool_sizes.append((img_h - filter_h + 1, img_w - filter_w + 1))

    x = T.matrix('x')
    y = T.ivector('y')
    Words = theano.shared(value=U, name="Words")
    zero_vec_tensor = T.vector()
    zero_vec = np.zeros(img_w, dtype=theano.config.floatX)
    set_zero = theano.function([zero_vec_tensor],
                               updates=[(Words, T.set_subtensor(Words[0, :], zero_vec_tensor))],
                               allow_input_downcast=True)
    layer0_input = Words[T.cast(x.flatten(), dtype="int32")].reshape(
        (x.shape[0], 1, x.shape[1], Words.shape[1]))
    conv_layers = []
    layer1_inputs = []
    for i in range(len(filter_hs)):
        filter_shape = filter_shapes[i]
        pool_size = pool_sizes[i]
        conv_layer = LeNetConvPoolLayer(rng, input=layer0_input,
                                        image_shape=(batch_size, 1, img_h, img_w),
                                        filter_shape=filter_shape, poolsize=pool_size,
                                        non_linear="relu")
        layer1_input = conv_layer.output.flatten(2)
        conv_layers.append(conv_layer)
        layer1_inputs.append(layer1_input)
    layer1_input = T.concatenate(layer1_inputs, 1)
    n_in = feature_maps * len(filter_hs)

    dropped = _dropout_from_layer(rng, layer1_input, p=dropout_rate)
    classifier_dropout = LogisticRegression(dropped, n_in, hidden_units[1])
    # the test-time layer shares the weights, scaled by the keep probability
    classifier = LogisticRegression(layer1_input, n_in, hidden_units[1],
                                    W=classifier_dropout.W * (1 - dropout_rate),
                                    b=classifier_dropout.b)

    params = classifier_dropout.params
    for conv_layer in conv_layers:
        params += conv_layer.params
    params += [Words]
    cost = classifier.negative_log_likelihood(y)
    dropout_cost = classifier_dropout.negative_log_likelihood(y)
    grad_updates = sgd_updates_adadelta(params, dropout_cost, 0.95, 1e-6, 9, 'Words')

    index = T.lscalar()
    return dict(x=x, y=y, Words=Words, set_zero=set_zero, zero_vec=zero_vec, cost=cost,
                dropout_cost=dropout_cost, updates=grad_updates, params=params,
                conv_layers=conv_layers, classifier=classifier, index=index,
                classifier_dropout=classifier_dropout)


def train(model, train_x, train_y, batch_size=4, n_epochs=3):
    train_set_x = theano.shared(np.asarray(train_x, dtype=theano.config.floatX), borrow=True)
    train_set_y = T.cast(theano.shared(np.asarray(train_y, dtype=theano.config.floatX), borrow=True), 'int32')
    index, x, y = model['index'], model['x'], model['y']
    train_model = theano.function([index], model['dropout_cost'], updates=model['updates'],
                                  givens={x: train_set_x[index * batch_size:(index + 1) * batch_size],
                                          y: train_set_y[index * batch_size:(index + 1) * batch_size]},
                                  allow_input_downcast=True)
    test_model = theano.function([index], [model['cost'], model['classifier'].errors(y)],
                                 givens={x: train_set_x[index * batch_size:(index + 1) * batch_size],
                                         y: train_set_y[index * batch_size:(index + 1) * batch_size]},
                                 allow_input_downcast=True)
    n_batches = len(train_y) // batch_size
    costs = [np.mean([test_model(i)[0] for i in range(n_batches)])]
    for epoch in range(n_epochs):
        for minibatch_index in range(n_batches):
            train_model(minibatch_index)
            model['set_zero'](model['zero_vec'])
        costs.append(np.mean([test_model(i)[0] for i in range(n_batches)]))
    return costs


def make_data(vocab=10, img_w=5, sent_len=7, n=8, seed=0):
    rng = np.random.RandomState(seed)
    U = np.asarray(rng.uniform(-0.25, 0.25, (vocab, img_w)), dtype=theano.config.floatX)
    U[0] = 0.
    X = np.zeros((n, sent_len), dtype='int32')
    for i in range(n):
        length = rng.randint(3, sent_len + 1)
        X[i, :length] = rng.randint(1, vocab, size=length)
    y = (X.sum(axis=1) % 2).astype('int32')
    return U, X, y
