"""Learners, each a scikit-learn estimator in a module of its own (math in its docstring)."""
from ordrank.algorithms.kernels import PolynomialKernelMap
from ordrank.algorithms.online import MulticlassPerceptron, PRank, WidrowHoff

__all__ = ["PRank", "MulticlassPerceptron", "WidrowHoff", "PolynomialKernelMap"]
