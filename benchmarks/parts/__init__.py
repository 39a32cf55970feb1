"""The parts of the benchmark scripts that do not fit in their script (benchmarks/bench_*.py): each
module here measures one part, and its script, the usage doc, imports it (a script's own folder is on
``sys.path`` when Python runs it). Not run on their own."""
