"""The explicit feature map of the polynomial kernel."""
from __future__ import annotations

from math import factorial
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.preprocessing import PolynomialFeatures
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data


class PolynomialKernelMap(TransformerMixin, BaseEstimator):
    r"""Explicit feature map of the polynomial kernel :math:`K(x, x') = (c + x\cdot x')^D`.

    :math:`\phi(x)\cdot\phi(x') = K(x, x')` exactly: each monomial
    :math:`\prod_j x_j^{p_j}` of degree at most D is scaled by
    :math:`\sqrt{c^{p_0}\, D!/(p_0!\,p_1!\cdots p_d!)}` with :math:`p_0 = D - \sum_j p_j`
    (the monomials are scikit-learn's :class:`~sklearn.preprocessing.PolynomialFeatures`).
    For d = 2, D = 2, c = 1 this is the 6-dimensional map
    :math:`(1, \sqrt2 x_1, \sqrt2 x_2, x_1^2, \sqrt2 x_1x_2, x_2^2)`.

    Parameters
    ----------
    degree : int, default=2
    coef0 : float, default=1.0
        The constant c ≥ 0.
    """

    stateless = True  # learns nothing from the data: fitting only fixes the input dimension

    _parameter_constraints = {
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, degree=2, coef0=1.0):
        self.degree = degree
        self.coef0 = coef0

    def fit(self, X, y=None):
        self._validate_params()
        X = validate_data(self, X)
        self.poly_ = PolynomialFeatures(self.degree).fit(X)
        powers = self.poly_.powers_
        p0 = self.degree - powers.sum(1)
        counts = np.concatenate([p0[:, None], powers], axis=1)
        multinomial = [factorial(self.degree) / np.prod([factorial(int(c)) for c in row]) for row in counts]
        self.scale_ = np.sqrt(np.asarray(multinomial) * float(self.coef0) ** p0)
        return self

    def transform(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return self.poly_.transform(X) * self.scale_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags
