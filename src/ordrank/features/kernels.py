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
