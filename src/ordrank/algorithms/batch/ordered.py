r"""Ordered logit / ordered probit (McCullagh, 1980) by maximum likelihood with statsmodels."""
from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from scipy import linalg, stats
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

from ordrank.algorithms._ordinal import FitFailed, OrdinalEstimator
from ordrank.algorithms.batch.separation import SeparationWarning, separating_direction


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


def penalized_model(endog, exog, distr: str, weights: np.ndarray):
    r"""statsmodels' ``OrderedModel`` whose log-likelihood is penalized by
    :math:`\tfrac12 \sum_j w_j \beta_j^2` (the thresholds are not penalized); its score is
    statsmodels' numerical derivative of that penalized log-likelihood."""
    from statsmodels.miscmodels.ordinal_model import OrderedModel

    class PenalizedOrderedModel(OrderedModel):
        def loglike(self, params):
            beta = np.asarray(params)[: len(weights)]
            return super().loglike(params) - 0.5 * np.sum(weights * beta**2)

    return PenalizedOrderedModel(endog, exog, distr=distr)


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

    With ``alpha > 0`` the fit maximizes the penalized log-likelihood
    :math:`\ell(\beta, \theta) - \tfrac{\alpha}{2}\|\beta\|^2` (β in the inputs' units; the thresholds
    are not penalized), which has a finite maximizer on any data. With ``alpha = 0`` (the default) the
    maximum-likelihood estimate does not exist when a linear score separates the ranks (complete or
    quasi-complete separation: the likelihood keeps improving as :math:`\|\beta\| \to \infty`, and BFGS
    stops wherever its gradient tolerance is met, coefficients possibly in the thousands). Each fit checks
    for it exactly by a linear programme (:func:`~ordrank.algorithms.batch.separation.separating_direction`);
    separated data warn with a :class:`~ordrank.algorithms.batch.separation.SeparationWarning` and set
    ``status_ = "separated"``.

    Prediction is the most probable rank, :math:`\arg\max_r P(y = r \mid x)`.

    Parameters
    ----------
    distr : {"logit", "probit"}, default="logit"
        The link: logistic or standard normal latent noise.
    maxiter : int, default=1000
        BFGS iterations.
    alpha : float >= 0, default=0
        L2 penalty on the coefficients (not the thresholds); 0 is plain maximum likelihood.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        :math:`\beta` (0 for dropped columns).
    thresholds_ : ndarray of shape (n_classes - 1,)
        :math:`\theta_1 < \dots < \theta_{K-1}` in the latent scale.
    support_ : ndarray of shape (n_features,), dtype=bool
        The columns used in the fit.
    converged_ : bool
        Whether the fit reached the estimate it defines: BFGS reported convergence and, with
        ``alpha = 0``, the maximum-likelihood estimate exists (``status_ == "converged"``).
    status_ : {"converged", "not converged", "separated"}
        ``"converged"``: BFGS converged to the (penalized) maximum-likelihood estimate;
        ``"not converged"``: BFGS stopped at ``maxiter`` (warns with a ConvergenceWarning);
        ``"separated"``: ``alpha = 0`` and the ranks are (quasi-)completely separated, so the estimate
        does not exist and the coefficients are wherever BFGS stopped (warns with a SeparationWarning,
        a ConvergenceWarning).
    separating_direction_ : ndarray of shape (n_features,) or None
        With ``status_ == "separated"``, a unit direction d along which the likelihood never decreases
        (0 on dropped columns); else None.
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
        "alpha": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, distr="logit", *, maxiter=1000, alpha=0.0):
        self.distr = distr
        self.maxiter = maxiter
        self.alpha = alpha

    def fit(self, X, y):
        """(Penalized) maximum-likelihood fit of coefficients and thresholds (BFGS, statsmodels)."""
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
                if self.alpha > 0:  # alpha/2 ||coef_||^2 in the inputs' units: column j fitted as X_j / 2^e_j
                    weights = self.alpha * np.ldexp(1.0, -2 * exponent[self.support_])
                    model = penalized_model(ranks, X[:, self.support_], self.distr, weights)
                else:
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
        self.result_ = result
        self.separating_direction_ = None
        if self.alpha == 0 and (d := separating_direction(X[:, self.support_], ranks)) is not None:
            self.separating_direction_ = np.zeros(X.shape[1])
            self.separating_direction_[self.support_] = np.ldexp(d, -exponent[self.support_])
            self.separating_direction_ /= np.linalg.norm(self.separating_direction_)
            self.converged_, self.status_ = False, "separated"
            top = np.argsort(-np.abs(self.separating_direction_))[:3].tolist()
            warnings.warn(f"{name}: the maximum-likelihood estimate does not exist: the ranks are "
                          f"(quasi-)completely separated by a linear score (direction weighted most on "
                          f"features {top}), so the likelihood keeps improving as ||coef_|| grows; BFGS stopped "
                          f"at ||coef_|| = {np.linalg.norm(self.coef_):.4g}. Set alpha > 0 (L2 penalty) for "
                          "finite, unique coefficients", SeparationWarning, stacklevel=2)
            return self
        self.converged_ = bool(result.mle_retvals["converged"])
        self.status_ = "converged" if self.converged_ else "not converged"
        if not self.converged_:
            warnings.warn(f"{name} did not converge in maxiter={self.maxiter} BFGS iterations",
                          ConvergenceWarning, stacklevel=2)
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
