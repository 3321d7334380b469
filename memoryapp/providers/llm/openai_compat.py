"""Any OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, llama.cpp, DeepSeek, Qwen).

`complete_json` asks for `response_format={"type": "json_object"}`, validates the answer with the
caller's pydantic schema, and on failure sends the error back as a follow-up user message, at most
`max_json_retries` times, before raising `ProviderOutputError`. SDK errors become
`ProviderError` with a sentence a person can act on and a `retryable` flag. Prompts and what the
answers mean are the engine's (memoryapp/engine/llm/).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from typing import TypeVar

import httpx
import openai
from pydantic import BaseModel, ValidationError

from .errors import ProviderError, ProviderOutputError

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL | re.IGNORECASE)


class OpenAICompatibleLLM:
    def __init__(
        self,
        base_url: str | None,
        api_key: str | None,
        model: str,
        timeout: float = 30,
        max_json_retries: int = 2,
        max_retries: int = 1,
    ) -> None:
        # max_retries is the SDK's own retry of timeouts, 429 and 5xx (with backoff).
        self.client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "none", timeout=timeout, max_retries=max_retries
        )
        self.base_url = str(self.client.base_url).rstrip("/")
        self.model = model
        self.timeout = timeout
        self.max_json_retries = max_json_retries
        self.name = f"openai-compatible:{model}"
        self.calls = 0  # completions requested (SDK-internal retries not counted); read by bench/
        self._json_mode = True  # turned off if the server rejects response_format

    # -- the seam (base.LLMProvider) ---------------------------------------

    def complete(self, messages: list[dict]) -> str:
        return self._complete(messages)

    def stream(self, messages: list[dict]) -> Iterator[str]:
        self.calls += 1
        with self._errors_mapped():
            stream = self.client.chat.completions.create(model=self.model, messages=messages, stream=True)
        finished = False
        try:
            with self._errors_mapped():
                for chunk in stream:
                    if not chunk.choices:
                        continue
                    finished = finished or chunk.choices[0].finish_reason is not None
                    if chunk.choices[0].delta.content:
                        yield chunk.choices[0].delta.content
        finally:
            stream.close()  # also when the consumer stops early (client went away)
        # The SDK ends quietly when the connection drops mid-stream, and skips a body that is not
        # server-sent events at all (a proxy's error page): either would pass for a short, complete
        # reply. Every OpenAI-compatible server ends a reply with a finish_reason.
        if not finished:
            raise ProviderError(
                f"The language model at {self.base_url} stopped before finishing its reply "
                "(the stream was cut off or was not an OpenAI-compatible stream).",
                retryable=True,
            )

    def complete_json(self, messages: list[dict], schema: type[T]) -> T:
        task = schema.model_config.get("title") or schema.__name__  # what the errors and logs call it
        conversation = list(messages)
        raw = ""
        problem = ""
        for _attempt in range(self.max_json_retries + 1):
            raw = self._complete(conversation, json_mode=True)
            try:
                return schema.model_validate_json(_strip_fence(raw))
            except (ValidationError, ValueError) as exc:
                problem = format_first_error(exc)
                log.warning("LLM %s answer failed validation: %s", task, problem)
            conversation = [
                *conversation,
                {"role": "assistant", "content": raw},
                {
                    "role": "user",
                    "content": f"That answer is not valid: {problem}. Reply again with only the corrected JSON object.",
                },
            ]
        raise ProviderOutputError(
            f"The language model's {task} answer was still invalid after {self.max_json_retries + 1} tries: {problem}",
            raw=raw,
            task=task,
        )

    # -- plumbing -----------------------------------------------------------

    def _complete(self, messages: list[dict], json_mode: bool = False) -> str:
        self.calls += 1
        kwargs: dict = {}
        if json_mode and self._json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        try:
            with self._errors_mapped():
                response = self.client.chat.completions.create(model=self.model, messages=messages, **kwargs)
        except ProviderError as exc:
            # Some local servers reject response_format; the prompt already demands JSON.
            if kwargs and not exc.retryable and "response_format" in exc.message:
                self._json_mode = False
                return self._complete(messages, json_mode=False)
            raise
        if not hasattr(response, "choices"):  # the SDK hands back the body as text when it is not JSON
            raise ProviderError(
                f"The language model at {self.base_url} answered with something that is not an "
                f"OpenAI-compatible reply: {' '.join(str(response).split())[:120]!r}",
                retryable=True,
            )
        if not response.choices:
            return ""
        return response.choices[0].message.content or ""

    def _errors_mapped(self) -> _ErrorMap:
        return _ErrorMap(self.base_url, self.timeout)


class _ErrorMap:
    """Context manager turning SDK and transport errors into ProviderError."""

    def __init__(self, base_url: str, timeout: float) -> None:
        self.base_url = base_url
        self.timeout = timeout

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: type | None, exc: BaseException | None, tb: object) -> bool:
        if exc is None or isinstance(exc, (ProviderError, GeneratorExit)):
            return False
        where = f"The language model at {self.base_url}"
        # httpx errors can surface raw while a stream is being read.
        if isinstance(exc, (openai.APITimeoutError, httpx.TimeoutException)):
            raise ProviderError(f"{where} did not answer within {self.timeout:g} s.", retryable=True) from exc
        if isinstance(exc, (openai.APIConnectionError, httpx.TransportError)):
            raise ProviderError(f"{where} could not be reached ({_cause(exc)}).", retryable=True) from exc
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            retryable = status in (408, 409, 429) or status >= 500
            raise ProviderError(f"{where} answered HTTP {status}: {_detail(exc)}", retryable=retryable) from exc
        if isinstance(exc, openai.APIError):
            raise ProviderError(f"{where} returned an error: {exc.message}", retryable=False) from exc
        if isinstance(exc, json.JSONDecodeError):  # a body cut off mid-way, or not JSON at all
            raise ProviderError(
                f"{where} answered with a reply that is not valid JSON ({exc.msg}).", retryable=True
            ) from exc
        return False


def _cause(exc: BaseException) -> str:
    inner = exc.__cause__ or exc.__context__
    return str(inner or exc) or type(exc).__name__


def _detail(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        body = body.get("error", body)
        if isinstance(body, dict):
            body = body.get("message", body)
    text = " ".join(str(body or exc.message).split())
    return text[:300]


def _strip_fence(raw: str) -> str:
    match = _FENCE.match(raw)
    return match.group(1) if match else raw.strip()


def format_first_error(exc: Exception) -> str:
    """One readable sentence for the first validation problem (quoted back to the model)."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        message = str(first.get("msg", exc))
        return f"{where}: {message}" if where else message
    return str(exc)
