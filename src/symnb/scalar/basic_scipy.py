"""``symnb.scalar.basic_scipy``: Theano's ``theano.scalar.basic_scipy``, the scalar ops
whose values SciPy computes (``gammaln``, ``psi``, ``erfinv``...), their classes to
instantiate or subclass (``GammaLn(upgrade_to_float, name='gammaln')``). The code lives
in ``symnb.core.tensor.scalar_scipy``.
"""

# ruff: noqa: F401
from symnb.core.tensor.scalar_scipy import Erf as Erf
from symnb.core.tensor.scalar_scipy import Erfc as Erfc
from symnb.core.tensor.scalar_scipy import Erfcx as Erfcx
from symnb.core.tensor.scalar_scipy import Erfinv as Erfinv
from symnb.core.tensor.scalar_scipy import Erfcinv as Erfcinv
from symnb.core.tensor.scalar_scipy import Gamma as Gamma
from symnb.core.tensor.scalar_scipy import GammaLn as GammaLn
from symnb.core.tensor.scalar_scipy import Psi as Psi
from symnb.core.tensor.scalar_scipy import TriGamma as TriGamma
from symnb.core.tensor.scalar_scipy import GammaInc as GammaInc
from symnb.core.tensor.scalar_scipy import GammaIncC as GammaIncC
from symnb.core.tensor.scalar_scipy import I0 as I0
from symnb.core.tensor.scalar_scipy import I1 as I1
from symnb.core.tensor.scalar_scipy import Iv as Iv
from symnb.core.tensor.scalar_scipy import J0 as J0
from symnb.core.tensor.scalar_scipy import J1 as J1
from symnb.core.tensor.scalar_scipy import Jv as Jv
from symnb.core.tensor.scalar_scipy import erf as erf
from symnb.core.tensor.scalar_scipy import erfc as erfc
from symnb.core.tensor.scalar_scipy import erfcx as erfcx
from symnb.core.tensor.scalar_scipy import erfinv as erfinv
from symnb.core.tensor.scalar_scipy import erfcinv as erfcinv
from symnb.core.tensor.scalar_scipy import gamma as gamma
from symnb.core.tensor.scalar_scipy import gammaln as gammaln
from symnb.core.tensor.scalar_scipy import psi as psi
from symnb.core.tensor.scalar_scipy import tri_gamma as tri_gamma
from symnb.core.tensor.scalar_scipy import gammainc as gammainc
from symnb.core.tensor.scalar_scipy import gammaincc as gammaincc
from symnb.core.tensor.scalar_scipy import i0 as i0
from symnb.core.tensor.scalar_scipy import i1 as i1
from symnb.core.tensor.scalar_scipy import iv as iv
from symnb.core.tensor.scalar_scipy import j0 as j0
from symnb.core.tensor.scalar_scipy import j1 as j1
from symnb.core.tensor.scalar_scipy import jv as jv

__all__ = ['Erf', 'Erfc', 'Erfcx', 'Erfinv', 'Erfcinv', 'Gamma', 'GammaLn', 'Psi', 'TriGamma', 'GammaInc', 'GammaIncC', 'I0', 'I1', 'Iv', 'J0', 'J1', 'Jv', 'erf', 'erfc', 'erfcx', 'erfinv', 'erfcinv', 'gamma', 'gammaln', 'psi', 'tri_gamma', 'gammainc', 'gammaincc', 'i0', 'i1', 'iv', 'j0', 'j1', 'jv']
