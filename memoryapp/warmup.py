"""Load the embedding model when a process starts, not on its first request.

Loading takes seconds and holds the GIL: inside Daphne's running event loop that stalls every
websocket's channel-layer reads until Redis times out.
"""
from __future__ import annotations

import logging

logger = logging.getLogger(__name__)


def warm_embedder() -> None:
    try:
        from memoryapp.providers.embeddings import get_embedder

        get_embedder().embed_one("warm up")
    except Exception:  # a misconfigured embedder is reported where it is used, not here
        logger.warning("could not preload the embedding model", exc_info=True)
