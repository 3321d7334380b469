"""Recall and the chat turn take their clients as arguments (as graphiti's search() does): an embedder,
a graph and a model handed in are the ones used, and nothing global is patched."""

from __future__ import annotations

import pytest
from django.conf import settings

from conversations.models import Conversation
from memoryapp.engine.chat import chat
from memoryapp.engine.learned import relevance
from memoryapp.engine.learned.model import usable
from memoryapp.engine.memories import write
from memoryapp.engine.recall.config import FullTextConfig, RecallConfig, TrigramConfig
from memoryapp.engine.recall.recall import recall
from memoryapp.graph.port import GraphFact
from memoryapp.models import Memory
from memoryapp.providers.embeddings import get_embedder


def _unit(axis: int) -> list[float]:
    vector = [0.0] * settings.EMBEDDING_DIM
    vector[axis] = 1.0
    return vector


class OneWayEmbedder:
    """Every text points the same way: the memory stored on that axis is the nearest."""

    name, dim = "one-way", settings.EMBEDDING_DIM

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.embedded += texts
        return [_unit(0) for _ in texts]

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]


class ScriptedGraph:
    name = "scripted"

    def __init__(self, *episode_ids: str) -> None:
        self.episode_ids, self.asked = episode_ids, []

    def search(self, user_id, query, **kwargs) -> list[GraphFact]:
        self.asked.append((query, kwargs["query_vector"]))
        return [
            GraphFact(fact=f"fact {i}", episode_ids=(episode,), score=1.0) for i, episode in enumerate(self.episode_ids)
        ]


@pytest.mark.django_db(transaction=True)  # the graph is asked on recall's own thread
def test_recall_uses_the_embedder_and_graph_it_is_given(alice):
    near = write.add_memory(alice, "I live in Berlin", embedding=_unit(0)).memory
    by_graph = write.add_memory(alice, "My sister is called Lena", embedding=_unit(1)).memory
    Memory.objects.filter(pk=by_graph.pk).update(graph_episode_id="episode-lena")
    embedder, graph = OneWayEmbedder(), ScriptedGraph("episode-lena")
    config = RecallConfig(
        limit=5,
        min_cosine=0.5,
        found_is_evidence=True,
        full_text=FullTextConfig(enabled=False),
        trigram=TrigramConfig(enabled=False),
    )

    results = recall(alice, "Who is in my family?", config=config, embedder=embedder, graph=graph, record_access=False)

    assert {item.memory.pk: sorted(item.ranks) for item in results.items} == {
        near.pk: ["vector"],
        by_graph.pk: ["graph", "vector"],
    }
    assert embedder.embedded == ["Who is in my family?"]
    assert graph.asked == [("Who is in my family?", _unit(0))]  # the query's vector, not embedded again


@pytest.mark.django_db
def test_a_chat_turn_uses_the_model_embedder_and_graph_it_is_given(alice):
    write.add_memory(alice, "I live in Berlin", kind="fact", embedding=_unit(0))
    embedder, graph = OneWayEmbedder(), ScriptedGraph()
    conversation = Conversation.objects.create(user=alice)

    turn = chat.start_turn(
        conversation,
        "Where do I live?",
        enqueue_extraction=lambda *args: None,
        llm=None,
        embedder=embedder,
        graph=graph,
    )

    assert [item.memory.content for item in turn.recalled] == ["I live in Berlin"]
    assert embedder.embedded and all(text == "Where do I live?" for text in embedder.embedded)
    assert graph.asked  # about the user: the graph was asked too
    assert turn.llm is None  # no model: the engine's default answers, saying so
    answer = chat.reply(turn)
    assert answer.startswith("No language model is configured") and "- I live in Berlin" in answer


class QuerySided:
    """The configured embedder with a query side of its own, as e5 has ("query: "), recording its searches."""

    def __init__(self) -> None:
        self.inner = get_embedder()
        self.name, self.dim = self.inner.name, self.inner.dim
        self.searches: list[str] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed(texts)

    def embed_one(self, text: str) -> list[float]:
        return self.inner.embed_one(text)

    def embed_query(self, text: str) -> list[float]:
        self.searches.append(text)
        return self.inner.embed_one(text)


@pytest.mark.django_db
def test_a_chat_turn_the_trained_model_decides_embeds_its_query_as_a_search(alice):
    assert usable(relevance.MODEL_NAME) is not None  # the learned path, not the gates
    write.add_memory(alice, "I live in Berlin", kind="fact")
    embedder = QuerySided()

    chat.start_turn(
        Conversation.objects.create(user=alice),
        "Where do I live?",
        enqueue_extraction=lambda *args: None,
        llm=None,
        embedder=embedder,
        graph=ScriptedGraph(),
    )

    assert embedder.searches == ["Where do I live?"]
