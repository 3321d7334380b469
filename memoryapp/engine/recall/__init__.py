"""Recall: what to fetch for a query, from which sources, fused and scored (recall.py runs it; recipes.py names the presets)."""
