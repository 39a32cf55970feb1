"""Figures drawn from results tables only (never from a model)."""
from ordrank.plotting.cd import benchmark_cd_figure, cd_diagram
from ordrank.plotting.curves import online_figure, plot_curves
from ordrank.plotting.scatter import benchmark_scatter_figure, scatter_versus

__all__ = ["plot_curves", "online_figure", "scatter_versus", "benchmark_scatter_figure", "cd_diagram",
           "benchmark_cd_figure"]
