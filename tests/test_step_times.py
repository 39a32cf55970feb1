"""StepTimes (reproduce.py --timings, the speed page): a step's CPU seconds count every process that
did its work, pool workers that live on after the step included, and nothing done before it."""
import os
import time
from concurrent.futures import ProcessPoolExecutor

import psutil
from joblib import Parallel, delayed
from joblib.externals.loky import get_reusable_executor

from ordrank.progress import StepTimes

TASKS, TASK_CPU = 4, 0.3  # CPU seconds each task burns


def burn(seconds: float) -> tuple[float, int]:
    """Spin until this process has used ``seconds`` more CPU; the CPU seconds it used, and its pid."""
    start = time.process_time()
    while time.process_time() - start < seconds:
        sum(range(1000))
    return time.process_time() - start, os.getpid()


def test_a_step_counts_joblibs_workers_that_live_on():
    """subset_ranking's case: joblib's loky workers are reused by later steps, never waited for."""
    times = StepTimes()
    times.start("pool")
    done = Parallel(n_jobs=2)(delayed(burn)(TASK_CPU) for _ in range(TASKS))
    times.stop()
    used, workers = sum(cpu for cpu, _ in done), {pid for _, pid in done}
    assert os.getpid() not in workers and workers <= {p.pid for p in psutil.Process().children()}
    assert times.steps[0]["cpu"] >= 0.9 * used, (times.steps, used)  # getrusage alone: about 0


def test_a_step_counts_only_its_own_share_of_long_lived_workers():
    executor = get_reusable_executor(max_workers=2)
    times = StepTimes()
    times.start("pool")
    done = list(executor.map(burn, [TASK_CPU] * TASKS))
    times.stop()
    used, workers = sum(cpu for cpu, _ in done), {pid for _, pid in done}
    assert workers <= {p.pid for p in psutil.Process().children()}  # alive, not waited for
    assert times.steps[0]["cpu"] >= 0.9 * used, (times.steps, used)
    # the next step: the same workers, idle; what they did before it is not its CPU
    times.start("idle")
    time.sleep(0.3)
    times.stop()
    assert times.steps[1]["cpu"] < 0.2, times.steps
    # they end within a step and are waited for (getrusage then counts their whole life): still ~0
    times.start("shutdown")
    executor.shutdown(wait=True)
    times.stop()
    assert not workers & {p.pid for p in psutil.Process().children()}
    assert -0.1 <= times.steps[2]["cpu"] < 0.3, times.steps


def test_a_step_counts_a_pool_it_waits_for():
    times = StepTimes()
    times.start("pool")
    with ProcessPoolExecutor(2) as pool:
        used = sum(cpu for cpu, _ in pool.map(burn, [TASK_CPU] * TASKS))
    times.stop()
    assert times.steps[0]["cpu"] >= 0.9 * used, (times.steps, used)
    assert times.steps[0]["cpu"] <= 1.05 * used + 1.0, (times.steps, used)  # counted once


def test_no_descendant_no_change():
    times = StepTimes()
    times.start("here")
    used, _ = burn(0.3)
    times.stop()
    assert abs(times.steps[0]["cpu"] - used) <= 0.15, (times.steps, used)
