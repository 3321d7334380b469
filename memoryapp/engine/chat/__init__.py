"""A chat turn: recall for the turn, the context budget, memory commands, compaction, and the end of a chat."""
