"""The memory engine: plain Python over the ORM. Write path, recall, extraction, forgetting, context."""
