"""Feature maps (scikit-learn transformers) and kernel functions.

Under a train/test protocol a feature map is the first step of a pipeline, so it is fitted on the
training part only. An online protocol has no training part: it accepts only maps that learn
nothing from the data (:func:`transform_stateless`).
"""
import numpy as np
from sklearn.preprocessing import FunctionTransformer

from ordrank.features.kernels import KERNELS, kernel_matrix
from ordrank.features.polynomial import PolynomialKernelMap
from ordrank.features.query_norm import QueryLevelNorm, query_level_norm

__all__ = ["PolynomialKernelMap", "QueryLevelNorm", "query_level_norm", "KERNELS", "kernel_matrix",
           "transform_stateless"]


def transform_stateless(features, X: np.ndarray) -> np.ndarray:
    """Apply a data-independent feature map to the last axis of ``X``; ``None`` returns ``X``.

    A map that would learn from the data (a scaler, PCA, ...) is refused: fitting it on a whole
    online stream would let the learner see the future.
    """
    if features is None:
        return X
    if not (getattr(features, "stateless", False) or isinstance(features, FunctionTransformer)):
        raise ValueError(f"features={type(features).__name__} learns from data; an online protocol "
                         "has no training part to fit it on (use a stateless map such as "
                         "PolynomialKernelMap, or a train/test protocol)")
    flat = X.reshape(-1, X.shape[-1])
    return features.fit(flat[:1]).transform(flat).reshape(*X.shape[:-1], -1)
