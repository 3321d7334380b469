"""Load what a first request would load, when a process starts, not on that request.

Loading takes seconds and holds the GIL: inside Daphne's running event loop that stalls every
websocket's channel-layer reads until Redis times out, and every chat socket's handshake past Daphne's
5 s limit (bench.load: 46 of 50 sockets were refused while the first turns loaded jieba's dictionary).
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


def warm_chat() -> None:
    """What a chat turn loads on first use besides the embedder: jieba's dictionary and its tagger's
    (~4 s under load), the trained relevance model, and the configured model's client (its imports and
    TLS context, ~0.5 s)."""
    try:
        from memoryapp.engine.chat.chat_query import chat_recall_query
        from memoryapp.engine.learned import relevance
        from memoryapp.engine.learned.model import usable
        from memoryapp.providers.llm import get_llm

        for text in ("What should I cook tonight?", "我喜欢周末去杭州爬山，小雨也去。"):
            chat_recall_query(text, [])
            relevance.names_in(text)
        usable(relevance.MODEL_NAME)
        get_llm()
    except Exception:  # whatever fails here fails again, and is reported, where it is used
        logger.warning("could not preload the chat turn's models", exc_info=True)
