"""An Elman RNN language model in the style of the WildML RNN tutorial (Britz 2015,
``rnn_theano.py``): U, V, W as shared matrices, one step per word with ``theano.scan``
(``outputs_info=[None, dict(initial=T.zeros(...))]``, ``truncate_gradient``), the loss
by ``T.nnet.categorical_crossentropy`` and an SGD step with a symbolic learning rate.
Written as for Theano 1.0, with ``theano`` renamed ``symnb``."""

import numpy as np
import symnb as theano
import symnb.tensor as T


class RNNTheano:

    def __init__(self, word_dim, hidden_dim=10, bptt_truncate=4, seed=0):
        self.word_dim = word_dim
        self.hidden_dim = hidden_dim
        self.bptt_truncate = bptt_truncate
        rng = np.random.RandomState(seed)
        U = rng.uniform(-np.sqrt(1. / word_dim), np.sqrt(1. / word_dim), (hidden_dim, word_dim))
        V = rng.uniform(-np.sqrt(1. / hidden_dim), np.sqrt(1. / hidden_dim), (word_dim, hidden_dim))
        W = rng.uniform(-np.sqrt(1. / hidden_dim), np.sqrt(1. / hidden_dim), (hidden_dim, hidden_dim))
        self.U = theano.shared(name='U', value=U.astype(theano.config.floatX))
        self.V = theano.shared(name='V', value=V.astype(theano.config.floatX))
        self.W = theano.shared(name='W', value=W.astype(theano.config.floatX))
        self.theano = {}
        self.__theano_build__()

    def __theano_build__(self):
        U, V, W = self.U, self.V, self.W
        x = T.ivector('x')
        y = T.ivector('y')

        def forward_prop_step(x_t, s_t_prev, U, V, W):
            s_t = T.tanh(U[:, x_t] + W.dot(s_t_prev))
            o_t = T.nnet.softmax(V.dot(s_t))
            return [o_t[0], s_t]

        [o, s], updates = theano.scan(
            forward_prop_step,
            sequences=x,
            outputs_info=[None, dict(initial=T.zeros(self.hidden_dim))],
            non_sequences=[U, V, W],
            truncate_gradient=self.bptt_truncate,
            strict=True)

        prediction = T.argmax(o, axis=1)
        o_error = T.sum(T.nnet.categorical_crossentropy(o, y))

        dU = T.grad(o_error, U)
        dV = T.grad(o_error, V)
        dW = T.grad(o_error, W)

        self.forward_propagation = theano.function([x], o)
        self.predict = theano.function([x], prediction)
        self.ce_error = theano.function([x, y], o_error)
        self.bptt = theano.function([x, y], [dU, dV, dW])

        learning_rate = T.scalar('learning_rate')
        self.sgd_step = theano.function([x, y, learning_rate], [],
                                        updates=[(self.U, self.U - learning_rate * dU),
                                                 (self.V, self.V - learning_rate * dV),
                                                 (self.W, self.W - learning_rate * dW)])

    def calculate_total_loss(self, X, Y):
        return np.sum([self.ce_error(x, y) for x, y in zip(X, Y)])

    def calculate_loss(self, X, Y):
        num_words = np.sum([len(y) for y in Y])
        return self.calculate_total_loss(X, Y) / float(num_words)


def train_with_sgd(model, X_train, y_train, learning_rate=0.05, nepoch=5):
    losses = []
    for epoch in range(nepoch):
        losses.append(model.calculate_loss(X_train, y_train))
        for i in range(len(y_train)):
            model.sgd_step(X_train[i], y_train[i], learning_rate)
    losses.append(model.calculate_loss(X_train, y_train))
    return losses


def toy_corpus(word_dim=8, n_sentences=6, seed=1):
    """Sentences of word indices (start token 0, end token 1), as the tutorial's
    ``X_train``/``y_train``: y is x shifted by one."""
    rng = np.random.RandomState(seed)
    X, Y = [], []
    for _ in range(n_sentences):
        words = [0] + list(rng.randint(2, word_dim, size=rng.randint(3, 7))) + [1]
        X.append(np.asarray(words[:-1], dtype='int32'))
        Y.append(np.asarray(words[1:], dtype='int32'))
    return X, Y
