"""The parts of the benchmark scripts that do not fit in their script (benchmarks/bench_*.py): each
module here measures one part, and its script, the usage doc, imports it (Python searches a script's
own folder first when it runs it). Not run on their own."""
