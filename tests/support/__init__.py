"""Test helpers shared across suites: the scripted OpenAI-protocol server and its fixtures."""
