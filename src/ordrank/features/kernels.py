r"""Kernel functions K(X, Y) shared by the kernel learners (SVOR, Reduction-SVM, ...).

``kernel_matrix(X, Y, kernel, gamma=..., degree=..., coef0=...)`` returns the (n, m) Gram matrix:

- ``"linear"``:     :math:`x\cdot y`
- ``"rbf"``:        :math:`\exp(-\gamma\|x - y\|^2)` (Gaussian)
- ``"poly"``:       :math:`(\gamma\, x\cdot y + c_0)^D`
- ``"perceptron"``: :math:`-\|x - y\|` (Lin & Li's perceptron kernel; conditionally positive definite,
  so it is used where a constant can be absorbed, e.g. with a free bias or thresholds)
"""
from __future__ import annotations

import numpy as np
from sklearn.metrics.pairwise import euclidean_distances, polynomial_kernel, rbf_kernel

KERNELS = ("linear", "rbf", "poly", "perceptron")


def kernel_matrix(X, Y=None, kernel: str = "rbf", *, gamma: float = 1.0, degree: int = 2,
                  coef0: float = 1.0) -> np.ndarray:
    """The Gram matrix K(X, Y) of ``kernel`` (see the module docstring); ``Y=None`` means X."""
    X = np.asarray(X, dtype=np.float64)
    Y = X if Y is None else np.asarray(Y, dtype=np.float64)
    if kernel == "linear":
        return X @ Y.T
    if kernel == "rbf":
        return rbf_kernel(X, Y, gamma=gamma)
    if kernel == "poly":
        return polynomial_kernel(X, Y, degree=degree, gamma=gamma, coef0=coef0)
    if kernel == "perceptron":
        return -euclidean_distances(X, Y)
    raise ValueError(f"unknown kernel {kernel!r}: use one of {KERNELS}")


def finite_kernel_matrix(owner, X, Y=None, kernel: str = "rbf", **params) -> np.ndarray:
    """:func:`kernel_matrix`, refused with a ValueError naming ``owner`` when it is NaN or infinite on
    finite inputs (e.g. X * 1e200: the squared norms in ‖x‖² + ‖y‖² − 2x·y overflow to inf − inf), where
    a solver would otherwise report NaN in an input that has none."""
    with np.errstate(over="ignore", invalid="ignore"):
        K = kernel_matrix(X, Y, kernel, **params)
    if not np.isfinite(K).all():
        Y = X if Y is None else Y
        with np.errstate(over="ignore"):
            top = float(max(np.max(np.abs(X), initial=0.0), np.max(np.abs(Y), initial=0.0)))
        raise ValueError(f"{owner!r}: the {kernel!r} kernel is NaN or infinite on these inputs "
                         f"(finite, up to |x| = {top:.3g}, but their squared norms or distances "
                         "overflow float64); scale the inputs (e.g. features=standardize)")
    return K
