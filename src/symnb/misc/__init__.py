"""``symnb.misc``: Theano's ``theano.misc`` helpers that programs and tests import
(:func:`~symnb.misc.may_share_memory.may_share_memory`,
:func:`~symnb.misc.safe_asarray._asarray`, ``symnb.misc.pkl_utils``: ``dump``, ``load``,
``StripPickler``, imported as Theano's was: ``from symnb.misc import pkl_utils``)."""

from symnb.core.absent import module_getattr

from symnb.misc import may_share_memory, safe_asarray  # noqa: F401  (the modules, as Theano's)

__all__ = ["may_share_memory", "safe_asarray"]

__getattr__ = module_getattr("symnb.misc")  # Theano names symnb lacks: say so (core/absent.py)
del module_getattr
