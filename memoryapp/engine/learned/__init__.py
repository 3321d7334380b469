"""The small models trained here that decide, with no language model configured, what to learn, what a
statement replaces and what a chat needs. Trained by `python -m bench.train`; run with numpy alone."""
