"""Learning from chats: extraction and decisions, "remember this", episodes (consolidation), forgetting."""
