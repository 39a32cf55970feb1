"""ordrank's config node in Hydra's ConfigStore: ``ordrank_open_algorithms``, which conf/config.yaml's
defaults list merges. Hydra imports this module when it discovers its plugins, before it composes any
config (``python run.py``, a sweep's jobs, the compose API of the tests).

The node is ``algorithms: {}`` with the struct flag off on ``algorithms``. Hydra closes the composed
config (struct mode) before it applies the command line, and a node whose own flag says otherwise stays
open: ``algorithms.NAME.PARAM=VALUE`` sets any parameter of a learner without ``+``, though its
conf/algorithm/*.yaml lists only what differs from the estimator's defaults. A key that is no parameter
of its estimator is refused before any work (``ordrank.config_columns.check_algorithms``, called by
``ordrank.app.build`` and by the sweeper's up-front check).
"""
from hydra.core.config_store import ConfigStore
from omegaconf import DictConfig, OmegaConf

NAME = "ordrank_open_algorithms"


def open_algorithms() -> DictConfig:
    """``{algorithms: {}}``, ``algorithms`` open to new keys whatever its parents' struct flag."""
    node = OmegaConf.create({"algorithms": {}})
    OmegaConf.set_struct(node.algorithms, False)
    return node


ConfigStore.instance().store(name=NAME, node=open_algorithms(), provider="ordrank")
