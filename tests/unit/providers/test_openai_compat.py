"""OpenAICompatibleLLM against the real HTTP ScriptedLLMServer: real SDK, retries, timeouts."""

from __future__ import annotations

import base64
import json
import struct

import openai
import pytest
from pydantic import BaseModel, Field

from memoryapp.providers.llm import OpenAICompatibleLLM, ProviderError, ProviderOutputError, get_llm, reset_llm
from tests.support.fixtures import configure_llm, llm_server, scripted_llm  # noqa: F401
from tests.support.llm_server import Delay, Fail, Garbage, ScriptedLLMServer, pseudo_embedding

PROMPT = [{"role": "system", "content": "Answer with a JSON object."}, {"role": "user", "content": "Which style?"}]
GOOD_EXTRACTION = json.dumps(
    {
        "candidates": [
            {"content": " Prefers functional style ", "kind": "preference", "importance": 0.8, "confidence": 0.9}
        ]
    }
)


class Pick(BaseModel):
    content: str
    importance: float = Field(ge=0, le=1)


class Picks(BaseModel):
    """Any pydantic schema will do: the provider knows none of the engine's."""

    candidates: list[Pick]


def test_it_completes(llm_server: ScriptedLLMServer, scripted_llm: OpenAICompatibleLLM) -> None:
    llm_server.script(None, "Hello, Ann.")
    assert scripted_llm.complete([{"role": "user", "content": "Hi"}]) == "Hello, Ann."
    assert scripted_llm.calls == 1
    assert llm_server.requests[0]["model"] == "scripted-model"


def test_it_echoes_when_nothing_is_scripted(scripted_llm: OpenAICompatibleLLM) -> None:
    assert scripted_llm.complete([{"role": "user", "content": "echo me"}]) == "echo me"


def test_it_streams_deltas(llm_server: ScriptedLLMServer, scripted_llm: OpenAICompatibleLLM) -> None:
    llm_server.script(None, "Functional style it is, as you prefer.")
    deltas = list(scripted_llm.stream([{"role": "user", "content": "Which style?"}]))
    assert len(deltas) >= 5
    assert "".join(deltas) == "Functional style it is, as you prefer."
    assert llm_server.requests[0]["stream"] is True


def test_it_completes_json_validated_against_the_schema(
    llm_server: ScriptedLLMServer, scripted_llm: OpenAICompatibleLLM
) -> None:
    llm_server.script(None, GOOD_EXTRACTION)
    result = scripted_llm.complete_json(PROMPT, Picks)
    assert result == Picks(candidates=[Pick(content=" Prefers functional style ", importance=0.8)])
    request = llm_server.requests[0]
    assert request["response_format"] == {"type": "json_object"}
    assert request["messages"] == PROMPT


def test_it_reads_json_inside_a_code_fence(llm_server: ScriptedLLMServer, scripted_llm: OpenAICompatibleLLM) -> None:
    llm_server.script(None, f"```json\n{GOOD_EXTRACTION}\n```")
    assert len(scripted_llm.complete_json(PROMPT, Picks).candidates) == 1


def test_it_retries_bad_json_then_succeeds(llm_server: ScriptedLLMServer, scripted_llm: OpenAICompatibleLLM) -> None:
    llm_server.script(None, Garbage("Sure! Here are the memories: {oops"), GOOD_EXTRACTION)
    result = scripted_llm.complete_json(PROMPT, Picks)
    assert [c.content for c in result.candidates] == [" Prefers functional style "]
    assert scripted_llm.calls == 2
    follow_up = llm_server.requests[1]["messages"]
    assert follow_up[-2] == {"role": "assistant", "content": "Sure! Here are the memories: {oops"}
    assert follow_up[-1]["content"].startswith("That answer is not valid: ")


def test_it_gives_up_after_three_invalid_answers(
    llm_server: ScriptedLLMServer, scripted_llm: OpenAICompatibleLLM
) -> None:
    too_important = GOOD_EXTRACTION.replace("0.8", "1.5")
    llm_server.script(None, Garbage("nope"), Garbage("[]"), too_important, GOOD_EXTRACTION)
    with pytest.raises(ProviderOutputError) as caught:
        scripted_llm.complete_json(PROMPT, Picks)
    assert scripted_llm.calls == 3
    assert caught.value.raw == too_important
    assert "candidates.0.importance" in caught.value.message
    assert caught.value.task == "Picks"
    assert not caught.value.retryable


def test_it_maps_server_errors_to_retryable(llm_server: ScriptedLLMServer, scripted_llm: OpenAICompatibleLLM) -> None:
    llm_server.script(None, Fail(500), Fail(500))  # the SDK retries once
    with pytest.raises(ProviderError) as caught:
        scripted_llm.complete([{"role": "user", "content": "Hi"}])
    assert caught.value.retryable
    assert "answered HTTP 500: scripted failure 500" in caught.value.message
    assert isinstance(caught.value.__cause__, openai.InternalServerError)


def test_it_maps_client_errors_to_permanent(llm_server: ScriptedLLMServer, scripted_llm: OpenAICompatibleLLM) -> None:
    llm_server.script(None, Fail(401, {"error": {"message": "bad key", "type": "auth"}}))
    with pytest.raises(ProviderError) as caught:
        list(scripted_llm.stream([{"role": "user", "content": "Hi"}]))
    assert not caught.value.retryable
    assert caught.value.message.endswith("answered HTTP 401: bad key")


def test_it_times_out_with_a_clear_message(llm_server: ScriptedLLMServer) -> None:
    llm = OpenAICompatibleLLM(base_url=llm_server.url, api_key=None, model="m", timeout=0.3)
    llm_server.script(None, Delay(3, "late"), Delay(3, "late"))
    with pytest.raises(ProviderError) as caught:
        llm.complete([{"role": "user", "content": "Hi"}])
    assert caught.value.retryable
    assert caught.value.message == f"The language model at {llm_server.url} did not answer within 0.3 s."


def test_it_reports_an_unreachable_server() -> None:
    llm = OpenAICompatibleLLM(base_url="http://127.0.0.1:9/v1", api_key="k", model="m", timeout=2, max_retries=0)
    with pytest.raises(ProviderError) as caught:
        llm.complete([{"role": "user", "content": "Hi"}])
    assert caught.value.retryable
    assert "could not be reached" in caught.value.message


def test_it_serves_embeddings_and_models(llm_server: ScriptedLLMServer) -> None:
    client = openai.OpenAI(base_url=llm_server.url, api_key="k")
    first = client.embeddings.create(model="e", input=["I like tea", "I like tea", "我喜欢喝茶"])
    vectors = [d.embedding for d in first.data]
    assert len(vectors[0]) == 384 and vectors[0] == vectors[1] and vectors[0] != vectors[2]
    assert abs(sum(v * v for v in vectors[2]) - 1) < 1e-6
    packed = client.embeddings.create(model="e", input="I like tea", encoding_format="base64", dimensions=8)
    raw = base64.b64decode(packed.data[0].embedding)  # asked for explicitly, the SDK leaves it encoded
    assert struct.unpack("<8f", raw) == pytest.approx(pseudo_embedding("I like tea", 8))
    assert [m.id for m in client.models.list()] == ["scripted-model"]


def test_it_picks_the_openai_provider_when_configured(
    llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure_llm(
        monkeypatch, OPENAI_BASE_URL=llm_server.url, OPENAI_API_KEY=None, LLM_MODEL="scripted", LLM_TIMEOUT_SECONDS="5"
    )
    reset_llm()
    try:
        llm = get_llm()
        assert isinstance(llm, OpenAICompatibleLLM)
        assert (llm.model, llm.timeout) == ("scripted", 5.0)
        assert llm.complete([{"role": "user", "content": "ping"}]) == "ping"
    finally:
        reset_llm()
