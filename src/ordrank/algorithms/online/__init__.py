"""Online ordinal learners: PRank and the two baselines of its paper."""
from ordrank.algorithms.online.mcp import MulticlassPerceptron
from ordrank.algorithms.online.prank import PRank
from ordrank.algorithms.online.widrow_hoff import WidrowHoff

__all__ = ["PRank", "MulticlassPerceptron", "WidrowHoff"]
