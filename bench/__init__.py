"""Benchmarks: LoCoMo recall quality with peers (bench.locomo) and latency at scale (bench.scale)."""
