"""Training the learned default: one module per model in this package, each with `NAME` and
`train(seed: int) -> dict` (writes memoryapp/engine/learned/weights/<NAME>.npz, returns its report).
`python -m bench.train [NAME ...]` runs them; scikit-learn comes with `pip install -e .[train]`."""
