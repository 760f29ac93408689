"""The API reference's pages, written from the public modules themselves.

Each public module's page lists what the module exports (its ``__all__``, or for
``symnb.tensor``, which re-exports names one by one, every name without a leading
underscore), so a name added to the public API appears in the reference without an edit
here; autosummary then writes one page per name from its docstring. The pages are written
into ``docs/api/`` at each build (generated files, not kept in git).
"""

from __future__ import annotations

import importlib
import types
from pathlib import Path

# (module, what it holds): the public modules of docs/design.md's contract, in reading order.
PUBLIC_MODULES = [
    ("symnb", "the top level, ``import symnb as sn``: variables, ``sn.function``, ``sn.grad``, "
              "``sn.scan``, ``sn.shared``, ``sn.config``, saving"),
    ("symnb.tensor", "``import symnb.tensor as T``: NumPy-like symbolic tensors"),
    ("symnb.tensor.nnet", "neural-network functions and convolutions (``T.nnet``)"),
    ("symnb.tensor.nnet.abstract_conv", "Theano's abstract convolution ops and gradients"),
    ("symnb.tensor.nnet.bn", "batch normalization"),
    ("symnb.tensor.nnet.neighbours", "image patches (``images2neibs``)"),
    ("symnb.tensor.signal.pool", "pooling (``pool_2d``)"),
    ("symnb.tensor.signal.downsample", "Theano's older pooling spelling"),
    ("symnb.tensor.extra_ops", "``T.extra_ops``: cumulative sums, repeats, one-hot"),
    ("symnb.tensor.shared_randomstreams", "``RandomStreams``"),
    ("symnb.sandbox.rng_mrg", "``MRG_RandomStreams``"),
    ("symnb.gradient", "gradients, Jacobians, Hessians, ``verify_grad``"),
    ("symnb.ifelse", "lazy conditions"),
    ("symnb.compile", "modes, debugging modes, linkers, ``In`` and ``Out``"),
    ("symnb.printing", "text and pictures of graphs"),
    ("symnb.widgets", "the notebook widgets"),
    ("symnb.magics", "``%load_ext symnb`` and ``%%symgraph``"),
    ("symnb.errors", "the error hierarchy"),
    ("symnb.io", "saving and loading shared variables"),
    ("symnb.gof", "Theano's ``gof``: linkers and graph classes"),
    ("symnb.gof.graph", "Theano's graph walks"),
    ("symnb.scan_module", "Theano's module path for ``scan``"),
    ("symnb.scalar", "Theano's scalar layer: ``ScalarOp``, scalar types, output types preferences"),
    ("symnb.scalar.basic_scipy", "Theano's SciPy-computed scalar ops (``gammaln``, ``psi``...)"),
    ("symnb.gpuarray", "Theano's GPU-backend probes"),
    ("symnb.sandbox.cuda", "Theano's old CUDA-backend probes"),
]

# Objects the API hands back rather than exports by name (``f = sn.function(...)``,
# ``f.profile``, ``f.maker``, ``err.call_values``, ``sn.config``'s class).
RETURNED_OBJECTS = [
    "symnb.compile.function.Function",
    "symnb.compile.maker.FunctionMaker",
    "symnb.compile.profiling.ProfileStats",
    "symnb.core.failed_call.CallValues",
    "symnb.core.graph.fgraph.FunctionGraph",
    "symnb.core.graph.config.Config",
]

API = Path(__file__).parent / "api"


def public_names(module: types.ModuleType) -> list[str]:
    """What ``module`` exports: its ``__all__``, else its names without a leading underscore."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [name for name in dir(module) if not name.startswith("_")]
    return sorted(names, key=lambda name: (name.lower(), name))


def _is_module(value: object) -> bool:
    return isinstance(value, types.ModuleType)


def module_page(name: str, blurb: str) -> str:
    """The reST of one public module's page: its docstring, a table of its names, and its
    sub-modules."""
    module = importlib.import_module(name)
    names = public_names(module)
    members = [n for n in names if not _is_module(getattr(module, n))]
    submodules = [n for n in names if _is_module(getattr(module, n))]
    documented = {m for m, _ in PUBLIC_MODULES}
    lines = [name, "=" * len(name), "", blurb[0].upper() + blurb[1:] + ".", "",
             f".. automodule:: {name}", "   :no-members:", "",
             f".. currentmodule:: {name}", ""]
    if members:
        lines += [".. autosummary::", "   :toctree: names", "   :nosignatures:", ""]
        lines += [f"   {member}" for member in members] + [""]
    if submodules:
        lines += ["Modules", "-------", ""]
        for sub in submodules:
            full = getattr(module, sub).__name__
            target = f":doc:`{full}`" if full in documented else f"``{full}``"
            lines.append(f"- ``{name}.{sub}``: {target}")
        lines.append("")
    return "\n".join(lines)


def returned_objects_page() -> str:
    title = "Objects the API returns"
    lines = [title, "=" * len(title), "",
             "Classes of objects the public API hands back: a compiled function "
             "(``sn.function``), its maker and profile, a failed call's values "
             "(``err.call_values``), the optimized graph and ``sn.config``. Their module "
             "paths are internal; their methods and attributes listed here are public.", "",
             ".. autosummary::", "   :toctree: names", "   :nosignatures:", ""]
    lines += [f"   {path}" for path in RETURNED_OBJECTS]
    return "\n".join(lines) + "\n"


def filename_map() -> dict[str, str]:
    """Page names for classes whose name differs from another name only by case (``T.Dot``
    and ``T.dot``), so the generated files do not collide on case-insensitive file systems."""
    by_folded: dict[str, list[tuple[str, object]]] = {}
    for module_name, _ in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in public_names(module):
            full = f"{module_name}.{name}"
            by_folded.setdefault(full.lower(), []).append((full, getattr(module, name)))
    return {full: f"{full}-class"
            for same in by_folded.values() if len(same) > 1
            for full, value in same if isinstance(value, type)}


def first_listings() -> list[str]:
    """The full names under which each public object is documented with an index entry: its
    first listing in reading order. A class exported by several modules (``sn.Mode`` and
    ``symnb.compile.Mode``) is indexed once, so references to it have one target."""
    first: dict[int, str] = {}
    for module_name, _ in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in public_names(module):
            value = getattr(module, name)
            if isinstance(value, type):
                first.setdefault(id(value), f"{module_name}.{name}")
    return sorted(first.values())


def write_api_pages() -> None:
    """Write ``docs/api/<module>.rst`` for every public module, and the returned objects'
    page; only files whose text changed are rewritten (Sphinx rebuilds what changed)."""
    API.mkdir(exist_ok=True)
    pages = {f"{name}.rst": module_page(name, blurb) for name, blurb in PUBLIC_MODULES}
    pages["returned_objects.rst"] = returned_objects_page()
    for file_name, text in pages.items():
        path = API / file_name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
