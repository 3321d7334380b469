"""Pluggable backends: language models (llm/) and embeddings (embeddings/)."""
