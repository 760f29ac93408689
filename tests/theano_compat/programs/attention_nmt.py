"""An attention encoder-decoder (Bahdanau et al. 2015) in the style of the dl4mt
tutorial's ``nmt.py`` (Cho's session 2): ``tparams`` from an OrderedDict, a bidirectional
GRU encoder over ``x[::-1]``, masks ``x_mask[:, :, None]`` and ``m_[:, None]``, the
conditional GRU whose step attends over the context (``pctx__ + pstate_[None, :, :]``,
``alpha / alpha.sum(0, keepdims=True)``), the embedding shifted by ``set_subtensor``,
the cost gathered from the flattened softmax, ``theano.scan(..., strict=True)`` with the
shared weights as non_sequences. Written as for Theano 1.0, with ``theano`` renamed
``symnb``."""

from collections import OrderedDict

import numpy
import symnb as theano
import symnb.tensor as tensor

profile = False


def _p(pp, name):
    return '%s_%s' % (pp, name)


def init_tparams(params):
    tparams = OrderedDict()
    for kk, pp in params.items():
        tparams[kk] = theano.shared(params[kk], name=kk)
    return tparams


def norm_weight(rng, nin, nout=None, scale=0.1):
    if nout is None:
        nout = nin
    W = scale * rng.randn(nin, nout)
    return W.astype('float32')


def tanh(x):
    return tensor.tanh(x)


def linear(x):
    return x


def concatenate(tensor_list, axis=0):
    """Theano's own ``tensor.concatenate`` was slow on GPU; the tutorial wrote its own."""
    concat_size = sum(tt.shape[axis] for tt in tensor_list)
    output_shape = ()
    for k in range(axis):
        output_shape += (tensor_list[0].shape[k],)
    output_shape += (concat_size,)
    for k in range(axis + 1, tensor_list[0].ndim):
        output_shape += (tensor_list[0].shape[k],)
    out = tensor.zeros(output_shape)
    offset = 0
    for tt in tensor_list:
        indices = ()
        for k in range(axis):
            indices += (slice(None),)
        indices += (slice(offset, offset + tt.shape[axis]),)
        for k in range(axis + 1, tensor_list[0].ndim):
            indices += (slice(None),)
        out = tensor.set_subtensor(out[indices], tt)
        offset += tt.shape[axis]
    return out


def init_params(options, rng):
    params = OrderedDict()
    dim, dimw, n_words = options['dim'], options['dim_word'], options['n_words']
    params['Wemb'] = norm_weight(rng, options['n_words_src'], dimw)
    params['Wemb_dec'] = norm_weight(rng, n_words, dimw)
    for prefix in ('encoder', 'encoder_r'):
        params = param_init_gru(rng, params, prefix, dimw, dim)
    ctxdim = 2 * dim
    params['ff_state_W'] = norm_weight(rng, ctxdim, dim)
    params['ff_state_b'] = numpy.zeros((dim,)).astype('float32')
    params = param_init_gru(rng, params, 'decoder', dimw, dim)
    params['decoder_Wc'] = norm_weight(rng, ctxdim, dim * 2)
    params['decoder_Wcx'] = norm_weight(rng, ctxdim, dim)
    params['decoder_W_comb_att'] = norm_weight(rng, dim, ctxdim)
    params['decoder_Wc_att'] = norm_weight(rng, ctxdim)
    params['decoder_b_att'] = numpy.zeros((ctxdim,)).astype('float32')
    params['decoder_U_att'] = norm_weight(rng, ctxdim, 1)
    params['decoder_c_tt'] = numpy.zeros((1,)).astype('float32')
    params['ff_logit_W'] = norm_weight(rng, dim, n_words)
    params['ff_logit_b'] = numpy.zeros((n_words,)).astype('float32')
    return params


def param_init_gru(rng, params, prefix, nin, dim):
    params[_p(prefix, 'W')] = numpy.concatenate([norm_weight(rng, nin, dim), norm_weight(rng, nin, dim)], axis=1)
    params[_p(prefix, 'b')] = numpy.zeros((2 * dim,)).astype('float32')
    params[_p(prefix, 'U')] = numpy.concatenate([norm_weight(rng, dim), norm_weight(rng, dim)], axis=1)
    params[_p(prefix, 'Wx')] = norm_weight(rng, nin, dim)
    params[_p(prefix, 'Ux')] = norm_weight(rng, dim)
    params[_p(prefix, 'bx')] = numpy.zeros((dim,)).astype('float32')
    return params


def _slice(_x, n, dim):
    if _x.ndim == 3:
        return _x[:, :, n * dim:(n + 1) * dim]
    return _x[:, n * dim:(n + 1) * dim]


def gru_layer(tparams, state_below, options, prefix='gru', mask=None):
    nsteps = state_below.shape[0]
    n_samples = state_below.shape[1] if state_below.ndim == 3 else 1
    dim = tparams[_p(prefix, 'Ux')].shape[1]
    if mask is None:
        mask = tensor.alloc(1., state_below.shape[0], 1)
    state_below_ = tensor.dot(state_below, tparams[_p(prefix, 'W')]) + tparams[_p(prefix, 'b')]
    state_belowx = tensor.dot(state_below, tparams[_p(prefix, 'Wx')]) + tparams[_p(prefix, 'bx')]

    def _step_slice(m_, x_, xx_, h_, U, Ux):
        preact = tensor.dot(h_, U)
        preact += x_
        r = tensor.nnet.sigmoid(_slice(preact, 0, dim))
        u = tensor.nnet.sigmoid(_slice(preact, 1, dim))
        preactx = tensor.dot(h_, Ux)
        preactx = preactx * r
        preactx = preactx + xx_
        h = tensor.tanh(preactx)
        h = u * h_ + (1. - u) * h
        h = m_[:, None] * h + (1. - m_)[:, None] * h_
        return h

    seqs = [mask, state_below_, state_belowx]
    init_states = [tensor.alloc(0., n_samples, dim)]
    shared_vars = [tparams[_p(prefix, 'U')], tparams[_p(prefix, 'Ux')]]
    rval, updates = theano.scan(_step_slice, sequences=seqs, outputs_info=init_states,
                                non_sequences=shared_vars, name=_p(prefix, '_layers'),
                                n_steps=nsteps, profile=profile, strict=True)
    return [rval]


def gru_cond_layer(tparams, state_below, options, prefix='decoder', mask=None, context=None,
                   init_state=None, context_mask=None):
    nsteps = state_below.shape[0]
    n_samples = state_below.shape[1]
    if mask is None:
        mask = tensor.alloc(1., state_below.shape[0], 1)
    dim = tparams[_p(prefix, 'Wcx')].shape[1]
    if init_state is None:
        init_state = tensor.alloc(0., n_samples, dim)
    assert context.ndim == 3, 'Context must be 3-d: #annotation x #sample x dim'
    pctx_ = tensor.dot(context, tparams[_p(prefix, 'Wc_att')]) + tparams[_p(prefix, 'b_att')]
    state_belowx = tensor.dot(state_below, tparams[_p(prefix, 'Wx')]) + tparams[_p(prefix, 'bx')]
    state_below_ = tensor.dot(state_below, tparams[_p(prefix, 'W')]) + tparams[_p(prefix, 'b')]

    def _step_slice(m_, x_, xx_, h_, ctx_, alpha_, pctx_, cc_,
                    U, Wc, W_comb_att, U_att, c_tt, Ux, Wcx):
        pstate_ = tensor.dot(h_, W_comb_att)
        pctx__ = pctx_ + pstate_[None, :, :]
        pctx__ = tensor.tanh(pctx__)
        alpha = tensor.dot(pctx__, U_att) + c_tt
        alpha = alpha.reshape([alpha.shape[0], alpha.shape[1]])
        alpha = tensor.exp(alpha)
        if context_mask:
            alpha = alpha * context_mask
        alpha = alpha / alpha.sum(0, keepdims=True)
        ctx_ = (cc_ * alpha[:, :, None]).sum(0)  # current context

        preact = tensor.dot(h_, U)
        preact += x_
        preact += tensor.dot(ctx_, Wc)
        preact = tensor.nnet.sigmoid(preact)
        r = _slice(preact, 0, dim)
        u = _slice(preact, 1, dim)
        preactx = tensor.dot(h_, Ux)
        preactx *= r
        preactx += xx_
        preactx += tensor.dot(ctx_, Wcx)
        h = tensor.tanh(preactx)
        h = u * h_ + (1. - u) * h
        h = m_[:, None] * h + (1. - m_)[:, None] * h_
        return h, ctx_, alpha.T

    seqs = [mask, state_below_, state_belowx]
    shared_vars = [tparams[_p(prefix, n)] for n in ('U', 'Wc', 'W_comb_att', 'U_att', 'c_tt', 'Ux', 'Wcx')]
    rval, updates = theano.scan(_step_slice, sequences=seqs,
                                outputs_info=[init_state,
                                              tensor.alloc(0., n_samples, context.shape[2]),
                                              tensor.alloc(0., n_samples, context.shape[0])],
                                non_sequences=[pctx_, context] + shared_vars,
                                name=_p(prefix, '_layers'), n_steps=nsteps, profile=profile,
                                strict=True)
    return rval


def build_model(tparams, options):
    x = tensor.matrix('x', dtype='int64')
    x_mask = tensor.matrix('x_mask', dtype='float32')
    y = tensor.matrix('y', dtype='int64')
    y_mask = tensor.matrix('y_mask', dtype='float32')

    xr = x[::-1]
    xr_mask = x_mask[::-1]
    n_timesteps = x.shape[0]
    n_timesteps_trg = y.shape[0]
    n_samples = x.shape[1]

    emb = tparams['Wemb'][x.flatten()]
    emb = emb.reshape([n_timesteps, n_samples, options['dim_word']])
    proj = gru_layer(tparams, emb, options, prefix='encoder', mask=x_mask)
    embr = tparams['Wemb'][xr.flatten()]
    embr = embr.reshape([n_timesteps, n_samples, options['dim_word']])
    projr = gru_layer(tparams, embr, options, prefix='encoder_r', mask=xr_mask)

    ctx = concatenate([proj[0], projr[0][::-1]], axis=proj[0].ndim - 1)
    ctx_mean = (ctx * x_mask[:, :, None]).sum(0) / x_mask.sum(0)[:, None]
    init_state = tanh(tensor.dot(ctx_mean, tparams['ff_state_W']) + tparams['ff_state_b'])

    emb = tparams['Wemb_dec'][y.flatten()]
    emb = emb.reshape([n_timesteps_trg, n_samples, options['dim_word']])
    emb_shifted = tensor.zeros_like(emb)
    emb_shifted = tensor.set_subtensor(emb_shifted[1:], emb[:-1])
    emb = emb_shifted

    proj = gru_cond_layer(tparams, emb, options, prefix='decoder', mask=y_mask, context=ctx,
                          context_mask=x_mask, init_state=init_state)
    proj_h = proj[0]
    opt_ret = dict(dec_alphas=proj[2], ctx=ctx, init_state=init_state)

    logit = tensor.dot(proj_h, tparams['ff_logit_W']) + tparams['ff_logit_b']
    logit_shp = logit.shape
    probs = tensor.nnet.softmax(logit.reshape([logit_shp[0] * logit_shp[1], logit_shp[2]]))

    y_flat = y.flatten()
    y_flat_idx = tensor.arange(y_flat.shape[0]) * options['n_words'] + y_flat
    cost = -tensor.log(probs.flatten()[y_flat_idx])
    cost = cost.reshape([y.shape[0], y.shape[1]])
    cost = (cost * y_mask).sum(0)
    return x, x_mask, y, y_mask, opt_ret, cost


def prepare_data(seqs_x, seqs_y):
    lengths_x = [len(s) for s in seqs_x]
    lengths_y = [len(s) for s in seqs_y]
    n_samples = len(seqs_x)
    maxlen_x = numpy.max(lengths_x) + 1
    maxlen_y = numpy.max(lengths_y) + 1
    x = numpy.zeros((maxlen_x, n_samples)).astype('int64')
    y = numpy.zeros((maxlen_y, n_samples)).astype('int64')
    x_mask = numpy.zeros((maxlen_x, n_samples)).astype('float32')
    y_mask = numpy.zeros((maxlen_y, n_samples)).astype('float32')
    for idx, [s_x, s_y] in enumerate(zip(seqs_x, seqs_y)):
        x[:lengths_x[idx], idx] = s_x
        x_mask[:lengths_x[idx] + 1, idx] = 1.
        y[:lengths_y[idx], idx] = s_y
        y_mask[:lengths_y[idx] + 1, idx] = 1.
    return x, x_mask, y, y_mask


def sgd(lr, tparams, grads, inp, cost):
    gshared = [theano.shared(p.get_value() * 0., name='%s_grad' % k) for k, p in tparams.items()]
    gsup = [(gs, g) for gs, g in zip(gshared, grads)]
    f_grad_shared = theano.function(inp, cost, updates=gsup, profile=profile)
    pup = [(p, p - lr * g) for p, g in zip(tparams.values(), gshared)]
    f_update = theano.function([lr], [], updates=pup, profile=profile)
    return f_grad_shared, f_update


def train(dim_word=4, dim=5, n_words=7, n_words_src=6, lrate=0.5, n_updates=5, seed=1234):
    options = dict(dim_word=dim_word, dim=dim, n_words=n_words, n_words_src=n_words_src)
    rng = numpy.random.RandomState(seed)
    params = init_params(options, rng)
    tparams = init_tparams(params)
    x, x_mask, y, y_mask, opt_ret, cost = build_model(tparams, options)
    inps = [x, x_mask, y, y_mask]
    f_log_probs = theano.function(inps, cost, profile=profile)
    f_alphas = theano.function(inps, opt_ret['dec_alphas'])
    cost = cost.mean()
    grads = tensor.grad(cost, wrt=list(tparams.values()))
    lr = tensor.scalar(name='lr')
    f_grad_shared, f_update = sgd(lr, tparams, grads, inps, cost)
    data_rng = numpy.random.RandomState(7)
    seqs_x = [list(data_rng.randint(1, n_words_src, size=data_rng.randint(2, 5))) for _ in range(3)]
    seqs_y = [list(data_rng.randint(1, n_words, size=data_rng.randint(2, 5))) for _ in range(3)]
    batch = prepare_data(seqs_x, seqs_y)
    start = dict(params={k: v.copy() for k, v in params.items()}, batch=batch,
                 log_probs=f_log_probs(*batch), alphas=f_alphas(*batch))
    costs = []
    for _ in range(n_updates):
        costs.append(float(f_grad_shared(*batch)))
        f_update(lrate)
    costs.append(float(f_log_probs(*batch).mean()))
    return dict(start, costs=costs, options=options)
