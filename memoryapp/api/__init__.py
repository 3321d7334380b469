"""The REST API (django-ninja): the routes and their schemas, authentication (Bearer tokens or the
browser session), the write limit and the JSON error bodies. Mounted at /api/ by memoryapp/urls.py."""
