"""The memory engine: plain Python over the ORM, a package per thing it does: recall/, memories/, learning/, chat/, llm/."""
