import numpy as np
import pytest

import symnb as sn


@pytest.fixture(autouse=True)
def _restore_config():
    """Each test starts from the default flags and leaves them as it found them."""
    with sn.config.change_flags():
        yield


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
