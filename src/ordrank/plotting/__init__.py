"""Figures drawn from results tables only (never from a model)."""
from ordrank.plotting.curves import plot_curves, online_figure

__all__ = ["plot_curves", "online_figure"]
