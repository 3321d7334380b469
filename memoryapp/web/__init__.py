"""The pages: settings, the memories page and its graph, login, language, delete-forever, and the
websocket that carries `memory.*` events to open pages. Thin views over the engine."""
