"""``symnb.tensor.nnet.bn``: Theano's batch normalization functions."""

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.batchnorm import (
    batch_normalization, batch_normalization_test, batch_normalization_train,
)
from symnb.core.tensor.batchnorm_ops import (
    AbstractBatchNormInference, AbstractBatchNormTrain, AbstractBatchNormTrainGrad,
)

__all__ = ["batch_normalization", "batch_normalization_train", "batch_normalization_test",
           "AbstractBatchNormTrain", "AbstractBatchNormInference", "AbstractBatchNormTrainGrad"]

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
