r"""Ordered logit / ordered probit (McCullagh, 1980) by maximum likelihood with statsmodels."""
from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np
from scipy import linalg, stats
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

from ordrank.algorithms._ordinal import FitFailed, OrdinalEstimator


def independent_columns(X: np.ndarray) -> np.ndarray:
    """Boolean mask of a maximal set of columns independent of each other AND of the constant.

    Columns are centred and scaled to unit norm, then chosen by pivoted QR; a zero-variance column,
    or one that is (numerically) a linear combination of kept columns plus a constant, is dropped.
    """
    keep = np.zeros(X.shape[1], dtype=bool)
    Xc = X - X.mean(axis=0)
    norms = np.linalg.norm(Xc, axis=0)
    live = np.flatnonzero(norms > 0)
    if live.size == 0:
        return keep
    _, R, piv = linalg.qr(Xc[:, live] / norms[live], mode="economic", pivoting=True)
    rank = int(np.sum(np.abs(np.diag(R)) > max(X.shape) * np.finfo(float).eps * 10))
    keep[live[piv[:rank]]] = True
    return keep


# columns whose largest |x| lies outside [2^-16, 2^16] are fitted rescaled by a power of two (exact in
# floating point): at 1e20 statsmodels already mistakes a column for a constant, at 1e200 the column
# norms overflow and every column was dropped (zero coefficients, rank 1 predicted for everything)
SCALE_RANGE = 16


def power_of_two_scales(X: np.ndarray) -> np.ndarray:
    """Per column, the exponent e such that X / 2^e has its largest |x| near 1 when that largest |x|
    is outside [2^-SCALE_RANGE, 2^SCALE_RANGE] (else 0; 0 also for an all-zero column)."""
    top = np.max(np.abs(X), axis=0, initial=0.0)
    exponent = np.zeros(X.shape[1], dtype=np.int64)
    live = top > 0
    exponent[live] = np.frexp(top[live])[1]
    return np.where(np.abs(exponent) > SCALE_RANGE, exponent, 0)


class OrderedRegression(OrdinalEstimator):
    r"""Ordered logit (``distr="logit"``) or ordered probit (``"probit"``): a latent regression

    .. math:: y^* = x\cdot\beta + \varepsilon, \qquad y = r \iff \theta_{r-1} < y^* \le \theta_r,
              \qquad P(y \le r \mid x) = F(\theta_r - x\cdot\beta),

    with F the logistic or standard normal CDF, :math:`\theta_0 = -\infty`,
    :math:`\theta_K = +\infty`, fitted by maximum likelihood with statsmodels'
    ``OrderedModel(...).fit(method="bfgs")``. The thresholds play the role of the intercept, so the
    design passed to ``OrderedModel`` has NO constant column. Columns that are constant, or
    (numerically) linear combinations of other columns and a constant, would make the model
    unidentifiable (statsmodels refuses an implicit constant): they are dropped before fitting
    (see ``support_``) and get coefficient 0. statsmodels parametrizes the thresholds as the first
    cutoff followed by log-increments; ``thresholds_`` holds them converted to the latent scale.
    A column whose largest |x| is outside [2^-16, 2^16] is fitted divided by a power of two (exact)
    and its coefficient multiplied back, so the fit does not depend on the inputs' scale (at 1e200
    the column norms would overflow and every column be dropped).
    The Hessian (standard errors) is not computed (``skip_hessian=True``).

    Prediction is the most probable rank, :math:`\arg\max_r P(y = r \mid x)`.

    Parameters
    ----------
    distr : {"logit", "probit"}, default="logit"
        The link: logistic or standard normal latent noise.
    maxiter : int, default=1000
        BFGS iterations.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        :math:`\beta` (0 for dropped columns).
    thresholds_ : ndarray of shape (n_classes - 1,)
        :math:`\theta_1 < \dots < \theta_{K-1}` in the latent scale.
    support_ : ndarray of shape (n_features,), dtype=bool
        The columns used in the fit.
    converged_ : bool
        Whether BFGS reported convergence.
    status_ : str
        ``"converged"`` or ``"not converged"`` (the latter also warns with a ConvergenceWarning).
    result_ : statsmodels OrderedResults
        The statsmodels fit (``result_.params`` = coefficients of the kept columns, then the
        transformed thresholds).
    classes_ : ndarray of shape (n_classes,)
        The labels in rank order.

    Raises
    ------
    FitFailed
        When statsmodels fails numerically or returns non-finite parameters.

    References
    ----------
    P. McCullagh, "Regression models for ordinal data", JRSS B 42(2), 1980.
    """

    _parameter_constraints: dict = {
        "distr": [StrOptions({"logit", "probit"})],
        "maxiter": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, distr="logit", *, maxiter=1000):
        self.distr = distr
        self.maxiter = maxiter

    def fit(self, X, y):
        """Maximum-likelihood fit of coefficients and thresholds (BFGS, statsmodels)."""
        from statsmodels.miscmodels.ordinal_model import OrderedModel
        from statsmodels.tools.sm_exceptions import ConvergenceWarning as SMConvergenceWarning

        self._validate_params()
        X, ranks = self._fit_data(X, y)  # classes_ in rank order (see _ordinal)
        exponent = power_of_two_scales(X)
        X = np.ldexp(X, -exponent)
        self.support_ = independent_columns(X)
        name = f"OrderedRegression(distr={self.distr!r})"
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore", SMConvergenceWarning)
                model = OrderedModel(ranks, X[:, self.support_], distr=self.distr)
                result = model.fit(method="bfgs", maxiter=self.maxiter, disp=False,
                                   skip_hessian=True)
        except (ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
            raise FitFailed(f"{name} failed in statsmodels: {exc}") from exc
        params = np.asarray(result.params, dtype=np.float64)
        if not np.all(np.isfinite(params)):
            raise FitFailed(f"{name} failed: non-finite parameters {params.tolist()}")
        self.coef_ = np.zeros(X.shape[1])
        self.coef_[self.support_] = params[: self.support_.sum()]
        self.coef_ = np.ldexp(self.coef_, -exponent)
        if not np.all(np.isfinite(self.coef_)):
            raise FitFailed(f"{name} failed: the coefficients overflow at the inputs' scale "
                            f"(columns scaled by up to 2^{int(np.max(np.abs(exponent)))}); scale the inputs")
        self.thresholds_ = model.transform_threshold_params(params)[1:-1]
        self.converged_ = bool(result.mle_retvals["converged"])
        self.status_ = "converged" if self.converged_ else "not converged"
        if not self.converged_:
            warnings.warn(f"{name} did not converge in maxiter={self.maxiter} BFGS iterations",
                          ConvergenceWarning, stacklevel=2)
        self.result_ = result
        return self

    def decision_function(self, X) -> np.ndarray:
        """The latent score x·β."""
        return self._checked(X) @ self.coef_

    def predict_proba(self, X) -> np.ndarray:
        r""":math:`P(y = r \mid x) = F(\theta_r - x\cdot\beta) - F(\theta_{r-1} - x\cdot\beta)`."""
        return self._proba(self._checked(X))

    def _proba(self, X):
        F = stats.logistic.cdf if self.distr == "logit" else stats.norm.cdf
        cum = F(self.thresholds_[None, :] - (X @ self.coef_)[:, None])
        n = X.shape[0]
        return np.diff(np.hstack([np.zeros((n, 1)), cum, np.ones((n, 1))]), axis=1)

    def _predict_ranks(self, X):
        return 1 + np.argmax(self._proba(X), axis=1)
