"""Online ordinal learners: PRank and the two baselines of its paper, and :class:`Rule`, the
contract of an online rule that the protocols' engines run (:mod:`._base`)."""
from ordrank.algorithms.online._base import Rule
from ordrank.algorithms.online.mcp import MulticlassPerceptron
from ordrank.algorithms.online.prank import PRank
from ordrank.algorithms.online.widrow_hoff import WidrowHoff

__all__ = ["PRank", "MulticlassPerceptron", "WidrowHoff", "Rule"]
