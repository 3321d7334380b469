"""The background pipeline's bookkeeping rows: runs, suggestions and failed tasks.

Models only: the engine reads and writes them, the Celery tasks (tasks/) and the admin show them.
The tables keep the names they had when these models lived in the `tasks` app.
"""
