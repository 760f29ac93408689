"""In IPython, messages name cells as IPython does (``Cell In[2], line 3``)."""

import pytest
from IPython.core.interactiveshell import InteractiveShell


@pytest.fixture
def shell():
    shell = InteractiveShell.instance()
    yield shell
    InteractiveShell.clear_instance()


def test_errors_name_the_cell_not_the_kernels_temporary_file(shell):
    shell.run_cell("import numpy as np\nimport symnb as sn\nimport symnb.tensor as T", store_history=True)
    inputs_cell = shell.execution_count
    shell.run_cell("x = T.vector('x', test_value=np.ones(2, 'float32'))\n"
                   "y = T.vector('y', test_value=np.ones(3, 'float32'))", store_history=True)
    failing_cell = shell.execution_count
    result = shell.run_cell("try:\n    z = x + y\nexcept sn.TestValueError as err:\n    message = str(err)",
                            store_history=True)
    assert result.success
    message = shell.user_ns["message"]
    assert f"Cell In[{failing_cell}], line 2, in <module>" in message
    assert "z = x + y" in message
    assert f"input created at Cell In[{inputs_cell}]:1: x = T.vector('x'" in message
    assert "ipykernel" not in message and ".py" not in message
