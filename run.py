"""Entry point: `python run.py +experiment=prank_synthetic` (add -m and comma lists to sweep)."""
import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from ordrank.app import run


@hydra.main(config_path="conf", config_name="config", version_base="1.3")
def main(cfg: DictConfig) -> None:
    hydra_cfg = HydraConfig.get()
    if cfg.publish and hydra_cfg.mode.name == "MULTIRUN":
        raise ValueError("publish=true is for single runs; collect a sweep's tables with "
                         "`python -m ordrank.results collect`")
    run(cfg, hydra_cfg.runtime.output_dir)


if __name__ == "__main__":
    main()
