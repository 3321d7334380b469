"""Every /api/ answer is JSON and is what the live OpenAPI schema says it is (issue #29, item 13): a
client generated from the schema must be able to read every error. The whole API under schemathesis'
conformance checks is test_openapi_fuzz.py; these name the answers it once found undocumented."""

from __future__ import annotations

import jsonschema_rs  # schemathesis' validator, in the test extra with it
import pytest
from django.test import Client

from memoryapp.engine.memories import listing
from memoryapp.engine.memories.write import add_memory

pytestmark = pytest.mark.django_db


@pytest.fixture
def openapi(client: Client) -> dict:
    return client.get("/api/openapi.json").json()


def documented(openapi: dict, method: str, path: str, status: int) -> dict:
    """The schema's answer for one status of one route (KeyError when it is not documented)."""
    return openapi["paths"][f"/api{path}"][method]["responses"][str(status)]


def assert_conforms(openapi: dict, body, answer: dict) -> None:
    schema = answer["content"]["application/json"]["schema"]
    jsonschema_rs.validate({**schema, "components": openapi["components"]}, body)


@pytest.mark.parametrize(
    "path",
    [
        "/memories/abc",
        "/memories/-1",
        "/memories/1.5/history",
        "/conversations/abc",
        "/conversations/null/messages",
        "/no-such-route",
    ],
)
def test_it_answers_a_path_it_does_not_serve_with_a_json_404(api, path):
    response = api.get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "Not Found"}


def test_it_answers_a_missing_memory_with_the_documented_404(api, openapi):
    response = api.get("/memories/999999")
    assert response.status_code == 404
    assert_conforms(openapi, response.json(), documented(openapi, "get", "/memories/{memory_id}", 404))


@pytest.mark.parametrize(
    "method, path, body, field",
    [
        ("get", "/memories?until=AAA", None, "until"),
        ("get", "/memories?limit=0", None, "limit"),
        ("get", "/memories/export?format=pdf", None, "format"),
        ("post", "/memories", {"content": 42}, "content"),
        ("post", "/memories/search", {}, "query"),
        ("post", "/memories/import", {"memories": "tea"}, "memories"),
        ("post", "/conversations", {"title": "a\x00b"}, "title"),
        ("post", "/memories/search", {"query": "a\x00b"}, "query"),  # the field the client sent, not the engine's name
        # what the schema does not allow, though pydantic would read it: a number as a date, 0 as false
        ("get", "/memories?until=0.5", None, "until"),
        ("post", "/memories/search", {"query": "tea", "since": 0}, "since"),
        ("post", "/memories", {"content": "Likes tea", "importance": False}, "importance"),
        ("post", "/conversations", {"temporary": 0}, "temporary"),
    ],
)
def test_it_answers_invalid_input_with_the_documented_422_body(api, openapi, method, path, body, field):
    response = getattr(api, method)(path, body)
    assert response.status_code == 422
    error = response.json()
    assert isinstance(error["detail"], str) and error["detail"].startswith(f"{field}: ")
    assert error["field"] == field
    assert_conforms(openapi, error, documented(openapi, method, path.split("?")[0], 422))


def test_it_answers_a_body_that_is_not_an_object_with_a_422(api, openapi):
    response = api.post("/conversations", "5")
    assert response.status_code == 422
    assert response.json()["detail"].startswith("the request body: Input should be a valid dictionary")
    assert response.json()["field"] is None
    assert_conforms(openapi, response.json(), documented(openapi, "post", "/conversations", 422))


def test_it_documents_the_markdown_export(api, alice, openapi):
    add_memory(alice, "Likes green tea")
    answer = documented(openapi, "get", "/memories/export", 200)
    response = api.get("/memories/export?format=markdown")
    assert response.status_code == 200
    assert response["Content-Type"].split(";")[0] in answer["content"]
    assert "Content-Disposition" in answer["headers"]
    assert set(answer["content"]) == {"application/json", "text/markdown"}


@pytest.mark.parametrize(
    "method, path",
    [
        ("get", "/memories"),
        ("post", "/memories"),
        ("post", "/memories/search"),
        ("post", "/conversations"),
        ("get", "/conversations/{conversation_id}"),
        ("post", "/conversations/{conversation_id}/retry"),
    ],
)
def test_it_documents_the_errors_every_route_can_give(openapi, method, path):
    statuses = openapi["paths"][f"/api{path}"][method]["responses"]
    assert {"400", "401"} <= set(statuses)
    if method != "get":
        assert "403" in statuses  # a session write without its CSRF token
    if "{" in path:
        assert "404" in statuses
    for status in set(statuses) - {"200", "201", "204"}:
        assert statuses[status]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorOut"}


def test_it_documents_the_retry_after_of_a_429(openapi):
    answer = documented(openapi, "post", "/memories", 429)
    assert answer["headers"]["Retry-After"]["schema"]["type"] == "integer"


def test_it_answers_a_method_a_path_lacks_with_a_json_405(api):
    response = api.put("/memories/search")
    assert response.status_code == 405
    assert response.json() == {"detail": "Method Not Allowed"}
    assert response["Allow"] == "POST"


def test_it_answers_a_crash_with_a_json_500(monkeypatch, alice_token):
    def crash(user):
        raise RuntimeError("a bug")

    monkeypatch.setattr(listing, "stats", crash)
    client = Client(raise_request_exception=False)
    response = client.get("/api/memories/stats", HTTP_AUTHORIZATION=f"Bearer {alice_token}")
    assert response.status_code == 500
    assert response.json() == {"detail": "Internal Server Error"}


def test_pages_outside_the_api_keep_their_html_404(client):
    response = client.get("/no-such-page")
    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")
