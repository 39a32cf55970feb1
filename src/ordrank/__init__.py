"""ordrank: reproductions of online and batch ordinal regression and ranking results."""
__version__ = "0.1.0"
