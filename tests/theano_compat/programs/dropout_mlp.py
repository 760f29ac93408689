"""A dropout MLP in the style of the public Theano ``mlp.py`` of Misha Denil's dropout
code (after Hinton et al. 2012): dropout layers sharing their weights with the test-time
layers (scaled by the keep probability), masks from ``shared_randomstreams`` cast to
floatX, momentum ramped by ``ifelse`` on a symbolic epoch, the max-norm constraint, the
learning rate decayed by a function whose ``updates`` is a dict, minibatches by
``givens``. Written as for Theano 1.0, with ``theano`` renamed ``symnb``."""

from collections import OrderedDict

import numpy as np
import symnb as theano
import symnb.tensor as T
from symnb.ifelse import ifelse


def ReLU(x):
    y = T.maximum(0.0, x)
    return(y)


class HiddenLayer(object):
    def __init__(self, rng, input, n_in, n_out, activation, W=None, b=None, use_bias=False):
        self.input = input
        self.activation = activation
        if W is None:
            W_values = np.asarray(0.01 * rng.standard_normal(size=(n_in, n_out)),
                                  dtype=theano.config.floatX)
            W = theano.shared(value=W_values, name='W')
        if b is None:
            b_values = np.zeros((n_out,), dtype=theano.config.floatX)
            b = theano.shared(value=b_values, name='b')
        self.W = W
        self.b = b
        if use_bias:
            lin_output = T.dot(input, self.W) + self.b
        else:
            lin_output = T.dot(input, self.W)
        self.output = (lin_output if activation is None else activation(lin_output))
        if use_bias:
            self.params = [self.W, self.b]
        else:
            self.params = [self.W]


def _dropout_from_layer(rng, layer, p):
    """p is the probablity of dropping a unit"""
    srng = theano.tensor.shared_randomstreams.RandomStreams(rng.randint(999999))
    # p=1-p because 1's indicate keep and p is prob of dropping
    mask = srng.binomial(n=1, p=1 - p, size=layer.shape)
    # The cast is important because
    # int * float32 = float64 which pulls things off the gpu
    output = layer * T.cast(mask, theano.config.floatX)
    return output


class DropoutHiddenLayer(HiddenLayer):
    def __init__(self, rng, input, n_in, n_out, activation, dropout_rate, use_bias, W=None, b=None):
        super(DropoutHiddenLayer, self).__init__(
            rng=rng, input=input, n_in=n_in, n_out=n_out, W=W, b=b,
            activation=activation, use_bias=use_bias)
        self.output = _dropout_from_layer(rng, self.output, p=dropout_rate)


class LogisticRegression(object):
    def __init__(self, input, n_in, n_out, W=None, b=None):
        if W is None:
            self.W = theano.shared(value=np.zeros((n_in, n_out), dtype=theano.config.floatX), name='W')
        else:
            self.W = W
        if b is None:
            self.b = theano.shared(value=np.zeros((n_out,), dtype=theano.config.floatX), name='b')
        else:
            self.b = b
        self.p_y_given_x = T.nnet.softmax(T.dot(input, self.W) + self.b)
        self.y_pred = T.argmax(self.p_y_given_x, axis=1)
        self.params = [self.W, self.b]

    def negative_log_likelihood(self, y):
        return -T.mean(T.log(self.p_y_given_x)[T.arange(y.shape[0]), y])

    def errors(self, y):
        return T.sum(T.neq(self.y_pred, y))


class MLP(object):
    def __init__(self, rng, input, layer_sizes, dropout_rates, activations, use_bias=True):
        weight_matrix_sizes = list(zip(layer_sizes, layer_sizes[1:]))
        self.layers = []
        self.dropout_layers = []
        next_layer_input = input
        # dropout the input
        next_dropout_layer_input = _dropout_from_layer(rng, input, p=dropout_rates[0])
        layer_counter = 0
        for n_in, n_out in weight_matrix_sizes[:-1]:
            next_dropout_layer = DropoutHiddenLayer(rng=rng, input=next_dropout_layer_input,
                                                    activation=activations[layer_counter],
                                                    n_in=n_in, n_out=n_out, use_bias=use_bias,
                                                    dropout_rate=dropout_rates[layer_counter + 1])
            self.dropout_layers.append(next_dropout_layer)
            next_dropout_layer_input = next_dropout_layer.output
            # Reuse the paramters from the dropout layer here, in a different path through the graph.
            next_layer = HiddenLayer(rng=rng, input=next_layer_input,
                                     activation=activations[layer_counter],
                                     W=next_dropout_layer.W * (1 - dropout_rates[layer_counter]),
                                     b=next_dropout_layer.b,
                                     n_in=n_in, n_out=n_out, use_bias=use_bias)
            self.layers.append(next_layer)
            next_layer_input = next_layer.output
            layer_counter += 1
        n_in, n_out = weight_matrix_sizes[-1]
        dropout_output_layer = LogisticRegression(input=next_dropout_layer_input, n_in=n_in, n_out=n_out)
        self.dropout_layers.append(dropout_output_layer)
        output_layer = LogisticRegression(input=next_layer_input,
                                          W=dropout_output_layer.W * (1 - dropout_rates[-1]),
                                          b=dropout_output_layer.b, n_in=n_in, n_out=n_out)
        self.layers.append(output_layer)
        self.dropout_negative_log_likelihood = self.dropout_layers[-1].negative_log_likelihood
        self.dropout_errors = self.dropout_layers[-1].errors
        self.negative_log_likelihood = self.layers[-1].negative_log_likelihood
        self.errors = self.layers[-1].errors
        self.params = [param for layer in self.dropout_layers for param in layer.params]


def build(datasets, initial_learning_rate=1.0, learning_rate_decay=0.998, squared_filter_length_limit=15.0,
          mom_params=None, activations=(ReLU,), dropout=True, dropout_rates=(0.2, 0.5, 0.5),
          batch_size=4, layer_sizes=(5, 8, 3), random_seed=1234):
    mom_params = mom_params or {"start": 0.5, "end": 0.99, "interval": 500}
    mom_start, mom_end, mom_epoch_interval = mom_params["start"], mom_params["end"], mom_params["interval"]
    train_set_x, train_set_y = datasets

    index = T.lscalar()
    epoch = T.scalar()
    x = T.matrix('x')
    y = T.ivector('y')
    learning_rate = theano.shared(np.asarray(initial_learning_rate, dtype=theano.config.floatX))

    rng = np.random.RandomState(random_seed)
    classifier = MLP(rng=rng, input=x, layer_sizes=list(layer_sizes),
                     dropout_rates=list(dropout_rates), activations=list(activations))
    cost = classifier.negative_log_likelihood(y)
    dropout_cost = classifier.dropout_negative_log_likelihood(y)

    test_model = theano.function(inputs=[index], outputs=[cost, classifier.errors(y)],
                                 givens={x: train_set_x[index * batch_size:(index + 1) * batch_size],
                                         y: train_set_y[index * batch_size:(index + 1) * batch_size]})

    gparams = []
    for param in classifier.params:
        gparam = T.grad(dropout_cost if dropout else cost, param)
        gparams.append(gparam)

    gparams_mom = []
    for param in classifier.params:
        gparam_mom = theano.shared(np.zeros(param.get_value(borrow=True).shape, dtype=theano.config.floatX))
        gparams_mom.append(gparam_mom)

    # Compute momentum for the current epoch
    mom = ifelse(epoch < mom_epoch_interval,
                 mom_start * (1.0 - epoch / mom_epoch_interval) + mom_end * (epoch / mom_epoch_interval),
                 mom_end)

    updates = OrderedDict()
    for gparam_mom, gparam in zip(gparams_mom, gparams):
        updates[gparam_mom] = mom * gparam_mom - (1. - mom) * learning_rate * gparam

    for param, gparam_mom in zip(classifier.params, gparams_mom):
        stepped_param = param + updates[gparam_mom]
        if param.get_value(borrow=True).ndim == 2:
            col_norms = T.sqrt(T.sum(T.sqr(stepped_param), axis=0))
            desired_norms = T.clip(col_norms, 0, T.sqrt(squared_filter_length_limit))
            scale = desired_norms / (1e-7 + col_norms)
            updates[param] = stepped_param * scale
        else:
            updates[param] = stepped_param

    output = dropout_cost if dropout else cost
    train_model = theano.function(inputs=[epoch, index], outputs=output, updates=updates,
                                  givens={x: train_set_x[index * batch_size:(index + 1) * batch_size],
                                          y: train_set_y[index * batch_size:(index + 1) * batch_size]})

    decay_learning_rate = theano.function(inputs=[], outputs=learning_rate,
                                          updates={learning_rate: learning_rate * learning_rate_decay})
    return dict(classifier=classifier, train_model=train_model, test_model=test_model,
                decay_learning_rate=decay_learning_rate, learning_rate=learning_rate,
                gparams_mom=gparams_mom, x=x, y=y)


def train(model, n_batches, n_epochs=3):
    costs = [np.mean([model['test_model'](i)[0] for i in range(n_batches)])]
    epoch_counter = 0
    while epoch_counter < n_epochs:
        epoch_counter = epoch_counter + 1
        for minibatch_index in range(n_batches):
            model['train_model'](epoch_counter, minibatch_index)
        costs.append(np.mean([model['test_model'](i)[0] for i in range(n_batches)]))
        model['decay_learning_rate']()
    return costs


def make_data(n=8, n_in=5, n_out=3, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, n_in).astype(theano.config.floatX)
    y = np.argmax(X[:, :n_out], axis=1).astype('int32')
    return theano.shared(X, borrow=True), theano.shared(y, borrow=True)
