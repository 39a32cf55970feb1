"""Tidy (long) results tables: the schema, atomic writes, publishing, aggregation of many runs.

One row per (experiment, dataset, algorithm, <protocol keys>, metric) with the measured ``value``,
then any extra columns a protocol adds (``user``, ``params``, ``status``), then the run's resolved
configuration as ``config.*`` columns. The protocol keys are ``seed, step`` for online curves,
``bins, split`` for train/test partitions and ``seed, n_train, m, p`` for subset ranking: each
protocol class declares them (its ``keys`` attribute) and :func:`finalize` writes them between
``algorithm`` and ``metric``, so a table says which of its columns are keys (:func:`protocol_keys`)
and a new protocol needs no edit here. Figures and reports are group-bys of these tables.

- :mod:`~ordrank.results.tables`: the schema (key and config columns, finalize, summarize);
- :mod:`~ordrank.results.files`: atomic writes, publishing, timings tables, partial tables, ERROR;
- :mod:`~ordrank.results.sweeps`: a sweep's jobs and ``python -m ordrank.results collect``;
- :mod:`~ordrank.results.external_cache`: external learners' pieces, computed once per library version, kept
  beside the results (made by a run with ``external=rerun``, then collected).
"""
from ordrank.results.files import (atomic_path, library_versions, partial_path, publish, read_table,
                                   read_timings, split_timings, table_versions, timings_path, write_error,
                                   write_table)
from ordrank.results.sweeps import Job, collect, duplicate_key_columns, expected_jobs, main, sweep_jobs
from ordrank.results.tables import (COLUMNS, CORE, ERROR, FINISHED, KEYS, concat_tables, curve_records, finalize,
                                    flatten_config, key_columns, protocol_keys, summarize)

__all__ = ["COLUMNS", "CORE", "ERROR", "FINISHED", "KEYS", "Job", "atomic_path", "collect", "concat_tables",
           "curve_records", "duplicate_key_columns", "expected_jobs", "finalize", "flatten_config", "key_columns",
           "library_versions", "main", "partial_path", "protocol_keys", "publish", "read_table", "read_timings",
           "split_timings", "summarize", "sweep_jobs", "table_versions", "timings_path", "write_error", "write_table"]
