"""Running a sweep's jobs on an engine and adding their rows to the results table as they finish.

A sweep (an experiment's ``hydra.sweeper.params``) is split into **jobs**: one sweep point x one
learner (``only=<learner>``). The results table is the resume point: a job whose rows the table
already holds, made with the same configuration, is skipped; every other job runs on the chosen
engine (:mod:`ordrank.launch.engines`: ``local`` joblib/loky processes, ``ray``, ``slurm`` through
submitit), its rows travel back to the driver (:mod:`ordrank.launch.driver`), which alone writes the
tables, atomically, under a lock. ``experiments/reproduce.py ENTRY --launcher NAME`` is the command.
"""
