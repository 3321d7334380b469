"""The graph's settings as one typed object, re-read when Django settings change (override_settings works:
backend.py forgets it, with the adapter built from it).

    GRAPH_BACKEND            graphiti (default) | zep | off
    FALKORDB_URL             graphiti's store (the embedded Redis+FalkorDB by default)
    GRAPH_NAMESPACE          prefix of each user's graph name (several deployments on one FalkorDB)
    ZEP_API_URL, ZEP_API_KEY the Zep server, for GRAPH_BACKEND=zep
    GRAPH_SYNC_TIMEOUT_SECONDS   one memory's sync (several model calls), default 300
    GRAPH_TIMEOUT_SECONDS        any other graph operation, default 30
    GRAPH_SYNC_BATCH         memories of one user written to the graph together without a model, default 200
    GRAPH_LLM_STRUCTURED_OUTPUT  json_schema (default) | json_object, for servers without json_schema
    GRAPH_EXTRACTION         rules (default: entities and facts without a model) | model (graphiti's own
                             extraction with the configured model)
    GRAPH_RECALL             auto (default: recall asks the graph when a model built its facts) | on | off
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

BACKENDS = ("graphiti", "zep", "off")
STRUCTURED_OUTPUTS = ("json_schema", "json_object")
EXTRACTIONS = ("rules", "model")
RECALLS = ("auto", "on", "off")


@dataclass(frozen=True)
class GraphConfig:
    backend: str
    falkordb_url: str
    namespace: str
    zep_api_url: str
    zep_api_key: str
    sync_timeout_s: float
    op_timeout_s: float
    llm_structured_output: str
    extraction: str = "rules"
    recall: str = "auto"
    sync_batch: int = 200

    def graph_name(self, user_id: int) -> str:
        # graphiti accepts [A-Za-z0-9_-] as a group id, which on FalkorDB is also the graph's name.
        return f"{self.namespace}_user_{int(user_id)}"


@functools.lru_cache(maxsize=1)
def graph_config() -> GraphConfig:
    backend = str(getattr(settings, "GRAPH_BACKEND", "") or "graphiti").lower()
    if backend not in BACKENDS:
        raise ImproperlyConfigured(f"GRAPH_BACKEND must be one of {', '.join(BACKENDS)}, not {backend!r}")
    namespace = str(getattr(settings, "GRAPH_NAMESPACE", "") or "memoryapp")
    if not namespace.replace("_", "").replace("-", "").isalnum() or not namespace.isascii():
        raise ImproperlyConfigured(f"GRAPH_NAMESPACE may hold only ASCII letters, digits, - and _, not {namespace!r}")
    structured = str(getattr(settings, "GRAPH_LLM_STRUCTURED_OUTPUT", "") or "json_schema")
    if structured not in STRUCTURED_OUTPUTS:
        raise ImproperlyConfigured(
            f"GRAPH_LLM_STRUCTURED_OUTPUT must be json_schema or json_object, not {structured!r}"
        )
    extraction = str(getattr(settings, "GRAPH_EXTRACTION", "") or "rules").lower()
    if extraction not in EXTRACTIONS:
        raise ImproperlyConfigured(f"GRAPH_EXTRACTION must be rules or model, not {extraction!r}")
    recall = str(getattr(settings, "GRAPH_RECALL", "") or "auto").lower()
    if recall not in RECALLS:
        raise ImproperlyConfigured(f"GRAPH_RECALL must be auto, on or off, not {recall!r}")
    sync_batch = int(getattr(settings, "GRAPH_SYNC_BATCH", 200))
    if sync_batch < 1:
        raise ImproperlyConfigured(f"GRAPH_SYNC_BATCH must be at least 1, not {sync_batch}")
    return GraphConfig(
        backend=backend,
        falkordb_url=str(getattr(settings, "FALKORDB_URL", "") or ""),
        namespace=namespace,
        zep_api_url=str(getattr(settings, "ZEP_API_URL", "") or "").rstrip("/"),
        zep_api_key=str(getattr(settings, "ZEP_API_KEY", "") or ""),
        sync_timeout_s=float(getattr(settings, "GRAPH_SYNC_TIMEOUT_SECONDS", 300)),
        op_timeout_s=float(getattr(settings, "GRAPH_TIMEOUT_SECONDS", 30)),
        llm_structured_output=structured,
        extraction=extraction,
        recall=recall,
        sync_batch=sync_batch,
    )
