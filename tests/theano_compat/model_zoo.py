"""Lasagne's model zoo on symnb: the Lasagne/Recipes definitions (``recipes/``) built with
Lasagne master (the archive ``lasagne_master.tar.xz`` kept beside this file, ported by
renaming ``theano`` to ``symnb`` as Lasagne's suite is: ``lasagne_suite.py``), in either
layer family:

- ``"dnn"``: the cuDNN layers (``lasagne.layers.dnn``): each definition as written for
  VGG-16 and GoogLeNet; ResNet-50, written with the generic layers, with its
  ``Conv2DLayer`` and ``BatchNormLayer`` rebound to ``Conv2DDNNLayer`` and
  ``BatchNormDNNLayer`` (its pools stay generic: they use ``ignore_border=False``, which
  cuDNN's pooling has no form of);
- ``"generic"``: Lasagne's generic layers: the definition's ``lasagne.layers.dnn`` import
  answered by a stand-in module naming the generic classes (``Conv2DDNNLayer`` is
  ``Conv2DLayer``, ``MaxPool2DDNNLayer`` is ``MaxPool2DLayer``); ResNet-50 as written.

The definition files are not edited: a family only changes what their layer names are.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import types
from pathlib import Path
from typing import Iterator

from tests.theano_compat.lasagne_suite import NUMPY2_FIXES_MASTER, unpack_master
from tests.theano_compat.ported_suite import apply_fixes, port

HERE = Path(__file__).parent
RECIPES = HERE / "recipes"

#: The cuDNN layer of each generic one (where the dnn family rebinds a generic name).
DNN_OF = {"Conv2DLayer": "Conv2DDNNLayer", "BatchNormLayer": "BatchNormDNNLayer"}
#: The generic layer each cuDNN name stands for in the generic family.
GENERIC_OF = {"Conv2DDNNLayer": "Conv2DLayer", "MaxPool2DDNNLayer": "MaxPool2DLayer",
              "Pool2DDNNLayer": "Pool2DLayer", "BatchNormDNNLayer": "BatchNormLayer"}


@contextlib.contextmanager
def ported_lasagne(work: Path) -> Iterator[types.ModuleType]:
    """Lasagne master, ported into ``work``, imported as ``lasagne`` for the block (the
    modules it loads leave ``sys.modules`` after it)."""
    ported = port(unpack_master(work / "source"), work / "lasagne_master")
    apply_fixes(ported, NUMPY2_FIXES_MASTER)
    before = set(sys.modules)
    sys.path.insert(0, str(ported))
    try:
        import lasagne

        yield lasagne
    finally:
        sys.path.remove(str(ported))
        for name in set(sys.modules) - before:
            if name == "lasagne" or name.startswith(("lasagne.", "recipe_")):
                del sys.modules[name]


def dnn_error(lasagne: types.ModuleType) -> str | None:
    """Why ``lasagne.layers.dnn`` does not import on this symnb (None when it does)."""
    try:
        importlib.import_module("lasagne.layers.dnn")
    except ImportError as error:
        return f"{type(error).__name__}: {error}"
    return None


def build(lasagne: types.ModuleType, network: str, family: str) -> dict:
    """The ``net`` dict of ``recipes/<network>.py``'s ``build_model()`` in ``family``."""
    layers = lasagne.layers
    if family == "generic":
        stand_in = types.ModuleType("lasagne.layers.dnn")
        for dnn_name, generic_name in GENERIC_OF.items():
            setattr(stand_in, dnn_name, getattr(layers, generic_name))
        with _module_as("lasagne.layers.dnn", stand_in):
            module = _load(network, family)
    elif family == "dnn":
        module = _load(network, family)
        dnn = importlib.import_module("lasagne.layers.dnn")
        for name, value in list(vars(module).items()):
            if isinstance(value, type) and value.__name__ in DNN_OF and value.__module__.startswith("lasagne"):
                setattr(module, name, getattr(dnn, DNN_OF[value.__name__]))
    else:
        raise ValueError(f"family must be 'dnn' or 'generic', not {family!r}")
    return module.build_model()


def _load(network: str, family: str) -> types.ModuleType:
    path = RECIPES / f"{network}.py"
    spec = importlib.util.spec_from_file_location(f"recipe_{network}_{family}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def _module_as(name: str, module: types.ModuleType) -> Iterator[None]:
    parent_name, _, attribute = name.rpartition(".")
    parent = sys.modules[parent_name]
    saved_module, saved_attribute = sys.modules.get(name), getattr(parent, attribute, None)
    sys.modules[name] = module
    setattr(parent, attribute, module)
    try:
        yield
    finally:
        if saved_module is None:
            del sys.modules[name]
        else:
            sys.modules[name] = saved_module
        if saved_attribute is None:
            delattr(parent, attribute)
        else:
            setattr(parent, attribute, saved_attribute)
