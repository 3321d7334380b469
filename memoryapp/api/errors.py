"""Every /api/ answer is JSON, the errors given outside the API's exception handlers included.

Inside a route, memoryapp/api/routes.py maps each exception to the one error body. Some answers come from
before or around the routes: the URL resolver's 404 (an unknown path, or an id that is not a positive
integer: `/api/memories/abc`), ninja's 405 for a method the path does not have, Django's 400 for a
request it refuses (too many query fields) and its 500. Django renders those as HTML pages; under
/api/ this middleware turns them into the same `{"detail": "Not Found"}` body, headers (Allow,
Retry-After) kept. Pages outside /api/ keep their HTML.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.deprecation import MiddlewareMixin

API_PREFIX = "/api/"  # where memoryapp/urls.py mounts the API
KEPT_AS_IS = {"content-type", "content-length"}


def is_json(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").split(";")[0].strip() == "application/json"


class ApiErrorsAsJson(MiddlewareMixin):
    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if (
            not request.path_info.startswith(API_PREFIX)
            or response.status_code < 400
            or getattr(response, "streaming", False)
            or is_json(response)
        ):
            return response
        answer = JsonResponse({"detail": response.reason_phrase}, status=response.status_code)
        for name, value in response.items():
            if name.lower() not in KEPT_AS_IS:
                answer[name] = value
        answer.cookies = response.cookies
        return answer
