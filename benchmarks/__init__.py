"""Benchmarks and load scripts: each prints figures (ratios against a reference in the same run),
run as `python -m benchmarks.NAME`; none is a test. docs/benchmarks.md lists them with their commands."""
