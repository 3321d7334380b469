"""The no-model defaults, in one place: the small models trained here that decide, with no language
model configured, what a chat teaches (extraction.py), what a statement replaces (changes.py) and which
memories a turn is handed (relevance.py). Each is shipped in weights/ for one embedder and used only under
it (`model.usable`); otherwise its caller falls back to the rules (engine/llm/defaults.py, recall's fixed
gates). Run with numpy alone; retrained by `manage.py train`."""
