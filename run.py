"""Entry point: `python run.py +experiment=prank_synthetic` (add -m and comma lists to sweep).

`python run.py --help` describes the experiments, config groups, sweeps and launchers
(conf/hydra/help/ordrank.yaml). A bad value — a setting the project validates, an unknown config
key or option, an override Hydra cannot parse — prints one line, ``error: <message>``, on stderr and
exits with status 2; ``ORDRANK_DEBUG=1`` shows the full traceback instead. Any other exception (a
bug) keeps its traceback and exits with status 1.
"""
import os

# numpy advises the kernel to back arrays of 4 MB and more with transparent huge pages; on this
# project's 2-core VM that has at times made page faults a fifth of an abalone job's time (68 s
# against 53 s, the same results), at other times cost nothing: off unless the caller says
# otherwise (benchmarks/bench_svor.py --part selection (d) measures both). Before numpy is imported.
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")

import re
import sys
import textwrap
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.errors import HydraException, MissingConfigException, OverrideParseException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from ordrank.algorithms import FitFailed
from ordrank.app import run
from ordrank.datasets.naming import override_hint
from ordrank.resume import RememberSweep

CONF = Path(__file__).resolve().parent / "conf"
# the project's own errors (bad settings, data files, learners that cannot be fitted) and Hydra's
BAD_INPUT = (ValueError, TypeError, OSError, FitFailed, HydraException, OmegaConfBaseException)


FAILED: list[BaseException] = []  # a single run's bad input, reported by cli()


@hydra.main(config_path="conf", config_name="config", version_base="1.3")
def main(cfg: DictConfig) -> None:
    hydra_cfg = HydraConfig.get()
    sweep = hydra_cfg.mode.name == "MULTIRUN"
    if cfg.publish and sweep:
        raise ValueError("publish=true is for single runs; collect a sweep's tables with "
                         "`python -m ordrank.results collect`")
    try:
        run(cfg, hydra_cfg.runtime.output_dir)
    except BAD_INPUT as error:
        if sweep or debug():  # a sweep's job fails through Hydra, which goes on and reports it
            raise
        FAILED.append(error)  # kept from Hydra, which would print a header line first


def debug() -> bool:
    """ORDRANK_DEBUG=1: tracebacks instead of one-line errors."""
    return os.environ.get("ORDRANK_DEBUG", "").strip().lower() not in ("", "0", "false", "no")


def experiments_help(width: int = 120) -> str:
    """One line per ``conf/experiment/*.yaml``: its name and the gist of its first comment sentence."""
    names = sorted(CONF.glob("experiment/*.yaml"))
    pad = max((len(p.stem) for p in names), default=0) + 2
    lines = (f"  {p.stem:<{pad}}{describe(p, width - pad - 2)}" for p in names)
    return "\n".join(lines).replace("$", "$$")  # the help template is a string.Template


def groups_help(width: int = 110) -> str:
    """The config groups of ``conf/`` (not Hydra's) and their options, wrapped at ``width``."""
    groups = sorted(d for d in CONF.iterdir() if d.is_dir() and d.name != "hydra")
    pad = max((len(d.name) for d in groups), default=0) + 4
    return "\n".join(textwrap.fill(", ".join(sorted(p.stem for p in d.glob("*.yaml"))), width,
                                   initial_indent=f"  {d.name + ':':<{pad - 2}}",
                                   subsequent_indent=" " * pad, break_on_hyphens=False)
                     for d in groups).replace("$", "$$")


def describe(path: Path, width: int) -> str:
    """The first sentence of the comment at the top of a config file, without its long bracketed
    asides (over 20 characters), cut to ``width`` at the last '; ', ', ' or ': ' outside brackets
    (at a word when that would drop over 30 % of the width)."""
    words = []
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        if not line.startswith("# @package"):
            words.append(line.lstrip("#").strip())
    sentence = re.split(r"(?<=[.!?])\s", " ".join(words), maxsplit=1)[0].rstrip(".")
    kept, depth, aside = [], 0, ""
    for char in sentence:
        depth += char in "([{"
        if depth:
            aside += char
        else:
            kept.append(char)
        depth -= char in ")]}"
        if depth == 0 and aside:
            kept.append(aside if len(aside) <= 22 else "")
            aside = ""
    sentence = re.sub(r"\s+([,;:])", r"\1", re.sub(r"\s{2,}", " ", "".join(kept) + aside)).strip()
    if len(sentence) <= width:
        return sentence
    cuts = [i for i in range(width - 1) if sentence[i:i + 2] in ("; ", ", ", ": ")
            and sentence[:i].count("(") == sentence[:i].count(")")]
    cut = (cuts or [0])[-1]
    if cut < 0.7 * width:  # a separator too early: cut at a word instead
        cut = sentence.rindex(" ", 0, width - 1)
    return sentence[:cut] + " …"


def one_line(error: BaseException) -> str:
    """The error as one line: the key, the value and what is allowed when the error says so, and
    its notes (what a failed run kept, where its ERROR file is)."""
    notes = "; ".join(getattr(error, "__notes__", ()))
    return _message(error) + (f" ({notes})" if notes else "")


def _message(error: BaseException) -> str:
    if isinstance(error, MissingConfigException) and error.options is not None:
        group, _, name = (error.missing_cfg_file or "").rpartition("/")
        return (f"{group}={name}: no such option of config group {group!r} (conf/{group}/); choose "
                f"from {', '.join(error.options)}")
    if isinstance(error, OverrideParseException):
        lines = str(error).splitlines()
        return f"{lines[0]}: {lines[1]}" if len(lines) > 1 else lines[0]
    text = "; ".join(line.strip().rstrip(".") for line in str(error).splitlines()
                     if line.strip() and not line.startswith(("Config search path", "\tprovider=")))
    if isinstance(error, HydraException) and isinstance(error.__cause__, OmegaConfBaseException):
        text += f" ({str(error.__cause__).splitlines()[0]})"
    text = " ".join(text.split())
    return text + override_hint(text) if text else type(error).__name__


def stopped_sweep(folder: Path, reason: KeyboardInterrupt) -> str:
    """After a sweep was stopped: an ERROR file in each job it interrupted; what was kept, in words."""
    from ordrank.resume import mark_interrupted_jobs
    from ordrank.results import sweep_jobs

    if not folder.is_dir():
        return "kept: nothing (no job had started)"
    marked = mark_interrupted_jobs(folder, reason)
    finished = sum(job.state == "finished" for job in sweep_jobs(folder))
    return (f"kept: {finished} finished jobs under {folder}; {len(marked)} interrupted jobs have an ERROR "
            "file; the same command with resume=true runs only the unfinished ones")


def cli() -> int:
    """Run :func:`main`; a bad input becomes ``error: <one line>`` on stderr and status 2."""
    previous = os.environ.get("HYDRA_FULL_ERROR")
    os.environ["HYDRA_FULL_ERROR"] = "1"  # Hydra raises its errors here instead of printing them
    try:
        main()
        if FAILED:
            raise FAILED[0]
    except BrokenPipeError:  # stdout's reader stopped early (`python run.py --help | head`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit's flush
        return 0
    except BAD_INPUT as error:
        if debug():
            raise
        print(f"error: {one_line(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as error:  # Ctrl-C (or SIGTERM, see ordrank.app): what was kept, no traceback
        if debug():
            raise
        how = str(error) or "stopped by Ctrl-C"
        notes = "; ".join(getattr(error, "__notes__", ())) or "kept: nothing (no run had started)"
        if RememberSweep.folder is not None:  # a sweep was launched from this process
            notes = stopped_sweep(RememberSweep.folder, KeyboardInterrupt(how))
        print(f"{how}: {notes}", file=sys.stderr)
        return 130
    finally:
        if previous is None:
            os.environ.pop("HYDRA_FULL_ERROR", None)
        else:
            os.environ["HYDRA_FULL_ERROR"] = previous
    return 0


for _name, _resolver in (("ordrank_experiments", experiments_help), ("ordrank_groups", groups_help)):
    if not OmegaConf.has_resolver(_name):  # used by conf/hydra/help/ordrank.yaml
        OmegaConf.register_new_resolver(_name, _resolver)


if __name__ == "__main__":
    sys.exit(cli())
