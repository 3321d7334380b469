"""Search filters and time travel on the API and the memories page: since/until, kinds, status, at, method."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.utils import timezone
from django.utils.formats import date_format

from memoryapp.engine.memories.bulk import bulk_add
from memoryapp.engine.memories.validation import MemoryInput
from memoryapp.engine.memories.write import add_memory, delete_memory, supersede_memory
from memoryapp.models import Memory

pytestmark = pytest.mark.django_db


@pytest.fixture
def moved(alice):
    """Lived in Paris from ten months ago, in Lyon since two months ago."""
    now = timezone.now()
    paris = add_memory(alice, "Lives in Paris", valid_from=now - timedelta(days=300)).memory
    lyon = supersede_memory(paris, "Lives in Lyon", valid_from=now - timedelta(days=60)).memory
    return paris, lyon


def iso(delta: timedelta) -> str:
    return (timezone.now() - delta).isoformat()


def test_listing_as_of_a_date_shows_what_was_true_then_and_what_replaced_it(api, moved):
    paris, lyon = moved
    then = api.get("/memories?" + urlencode({"at": iso(timedelta(days=100))})).json()["items"]
    assert [m["content"] for m in then] == ["Lives in Paris"]
    assert then[0]["replaced_by"]["id"] == lyon.pk and then[0]["replaced_by"]["content"] == "Lives in Lyon"
    now = api.get("/memories").json()["items"]
    assert [(m["content"], m["replaced_by"]) for m in now] == [("Lives in Lyon", None)]
    before_anything = api.get("/memories?" + urlencode({"at": iso(timedelta(days=400))})).json()["items"]
    assert before_anything == []


def test_search_as_of_a_date_finds_the_old_version(api, moved):
    found = api.post("/memories/search", {"query": "which city do I live in", "at": iso(timedelta(days=100))}).json()
    assert [hit["memory"]["content"] for hit in found["items"]] == ["Lives in Paris"]
    assert found["items"][0]["memory"]["replaced_by"]["content"] == "Lives in Lyon"
    current = api.post("/memories/search", {"query": "which city do I live in"}).json()["items"]
    assert [hit["memory"]["content"] for hit in current] == ["Lives in Lyon"]


def test_method_picks_words_or_meaning(api, alice):
    add_memory(alice, "Works as a piano teacher")
    add_memory(alice, "Allergic to peanuts")

    def contents(query: str, method: str) -> list[str]:
        items = api.post("/memories/search", {"query": query, "method": method}).json()["items"]
        return [hit["memory"]["content"] for hit in items]

    assert contents("what music job do I have", "vector")[0] == "Works as a piano teacher"
    assert contents("what music job do I have", "keyword") == []  # no word in common
    assert contents("piano", "keyword") == ["Works as a piano teacher"]
    assert contents("what music job do I have", "hybrid")[0] == "Works as a piano teacher"


GARDEN_NOTES = [
    "Prunes the garden roses every March",
    "The red garden roses came from my grandmother",
    "Feeds the garden roses with banana peels",
    "Aphids attacked the garden roses last summer",
    "Wants the garden roses to climb the south fence",
    "Photographs the garden roses for Instagram",
    "Garden roses need six hours of sun in my yard",
    "Gave cuttings of the garden roses to the neighbours",
]


def test_the_time_filter_applies_inside_search_not_after_its_top_results(api, alice):
    for note in GARDEN_NOTES:  # older notes that match the query better than the one asked for
        add_memory(alice, note)
    Memory.objects.filter(user=alice).update(created_at=timezone.now() - timedelta(days=20))
    assert Memory.objects.filter(user=alice).count() > 5  # more than one page of better matches
    recent = add_memory(alice, "The garden hose is in the shed").memory
    found = api.post("/memories/search", {"query": "garden roses", "since": iso(timedelta(days=2)), "limit": 5})
    assert [hit["memory"]["id"] for hit in found.json()["items"]] == [recent.pk]
    older = api.post("/memories/search", {"query": "garden roses", "until": iso(timedelta(days=2)), "limit": 5})
    assert recent.pk not in [hit["memory"]["id"] for hit in older.json()["items"]]
    assert len(older.json()["items"]) == 5


def test_kinds_and_status_filter_search(api, alice):
    add_memory(alice, "Prefers tea over coffee", kind="preference")
    add_memory(alice, "Wants to drink less coffee", kind="goal")
    add_memory(alice, "Coffee gives me headaches", kind="fact")
    gone = add_memory(alice, "Drinks coffee at 7am", kind="fact").memory
    delete_memory(gone)
    kinds = api.post("/memories/search", {"query": "coffee", "kinds": ["preference", "goal"]}).json()["items"]
    assert {hit["memory"]["kind"] for hit in kinds} == {"preference", "goal"}
    deleted = api.post("/memories/search", {"query": "coffee", "status": "deleted"}).json()["items"]
    assert [hit["memory"]["content"] for hit in deleted] == ["Drinks coffee at 7am"]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"query": "x", "method": "bm25"}, "method"),
        ({"query": "x", "kinds": ["mood"]}, "kinds"),
        ({"query": "x", "since": "2026-05-01T00:00:00Z", "until": "2026-04-01T00:00:00Z"}, "since"),
        ({"query": "x", "at": "2999-01-01T00:00:00Z"}, "at"),
    ],
)
def test_bad_filters_get_a_422_that_names_the_field(api, body, field):
    response = api.post("/memories/search", body)
    assert response.status_code == 422
    assert field in response.content.decode()


def test_the_memories_page_shows_a_past_date_with_what_replaced_each_version(alice_client, moved):
    day = (timezone.localdate() - timedelta(days=100)).isoformat()
    page = alice_client.get("/settings/memories", {"at": day}).content.decode()
    assert "Lives in Paris" in page and 'class="replaced-by"' in page and "Lives in Lyon" in page
    assert 'id="as-of"' in page
    today = alice_client.get("/settings/memories").content.decode()
    assert "Lives in Paris" not in today and "Lives in Lyon" in today


def test_the_memories_page_says_why_a_future_date_is_refused(alice_client, moved):
    day = (timezone.localdate() + timedelta(days=3)).isoformat()
    response = alice_client.get("/settings/memories", {"at": day})
    assert response.status_code == 200
    page = response.content.decode()
    assert "the future holds no memories yet" in page and "Lives in Lyon" in page


def test_the_memories_page_searches_by_words_only(alice_client, alice):
    add_memory(alice, "Works as a piano teacher")
    by_meaning = alice_client.get("/settings/memories", {"q": "what music job do I have"}).content.decode()
    by_words = alice_client.get("/settings/memories", {"q": "what music job do I have", "method": "keyword"})
    assert "Works as a piano teacher" in by_meaning
    assert "Works as a piano teacher" not in by_words.content.decode()


@pytest.fixture
def words(alice):
    """A tea memory learnt from a message about coffee, a piano goal, an episode about a trip."""
    add_memory(alice, "Drinks green tea every morning", context="user: I stopped drinking coffee, it kept me awake")
    add_memory(alice, "Coffee gives me headaches")
    add_memory(alice, "Learning to play the piano", kind="goal")
    add_memory(alice, "[2026-11-21 10:00] Talked about: can you help me plan a trip to Kyoto", kind="episode")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("coffee", ["Coffee gives me headaches"]),  # not the tea memory, whose context spoke of coffee
        ("plan", ["[2026-11-21 10:00] Talked about: can you help me plan a trip to Kyoto"]),  # not "play the piano"
        (timezone.now().strftime("%B"), []),  # this month's name: no memory says it, though all were learnt in it
    ],
)
def test_it_finds_by_words_only_what_the_memory_itself_says(api, alice_client, words, query, expected):
    items = api.post("/memories/search", {"query": query, "method": "keyword"}).json()["items"]
    assert [hit["memory"]["content"] for hit in items] == expected
    page = alice_client.get("/settings/memories", {"q": query, "method": "keyword"}).content.decode()
    for content in (
        "Drinks green tea every morning",
        "Coffee gives me headaches",
        "Learning to play the piano",
        "help me plan a trip",
    ):
        assert (content in page) == any(content in hit for hit in expected)


@pytest.mark.parametrize(
    ("stored", "query"),
    [
        ("Runs every service in a Docker container", "containers"),
        ("Keeps spare parts in two plastic containers", "container"),
        ("Takes the night bus home on Fridays", "buses"),
        ("Rides one of the old city buses to work", "bus"),
        ("Keeps one sharp kitchen knife", "knives"),
        ("Reads every data analysis twice", "analyses"),
        ("Volunteers at a reading club for children", "child"),
    ],
)
@pytest.mark.parametrize("status", ["active", "deleted"])
@pytest.mark.parametrize("method", ["keyword", "hybrid"])
def test_it_finds_a_plural_by_its_singular_and_the_other_way_round(api, alice, stored, query, status, method):
    memory = add_memory(alice, stored).memory
    add_memory(alice, "Likes hiking in the Alps")
    if status == "deleted":
        delete_memory(memory)
    items = api.post("/memories/search", {"query": query, "method": method, "status": status}).json()["items"]
    assert [hit["memory"]["content"] for hit in items][:1] == [stored]


def test_the_memories_page_says_how_many_memories_a_search_or_a_filter_found(alice_client, alice, words):
    found = alice_client.get("/settings/memories", {"q": "coffee", "method": "keyword"}).content.decode()
    assert "1 memory" in found
    goals = alice_client.get("/settings/memories", {"kind": "goal"}).content.decode()
    assert "1 memory" in goals
    everything = alice_client.get("/settings/memories", {"range": "week"}, HTTP_ACCEPT_LANGUAGE="zh-Hans")
    assert "3 条记忆" in everything.content.decode()  # the saved ones: the episode has its own tab
    nothing = alice_client.get("/settings/memories", {"q": "volcano", "method": "keyword"}).content.decode()
    assert "No memories match your search." in nothing and "0 memories" not in nothing


def test_the_count_covers_every_page_of_a_filter(alice_client, alice):
    bulk_add(alice.pk, [MemoryInput(content=f"Fact number {n} about the garden", kind="fact") for n in range(23)])
    page = alice_client.get("/settings/memories", {"kind": "fact"}).content.decode()
    assert page.count('class="memory-card') == 20 and "23 memories" in page


def test_the_as_of_banner_names_the_day_picked_not_the_next(alice_client, moved):
    day = timezone.localdate() - timedelta(days=100)
    page = alice_client.get("/settings/memories", {"at": day.isoformat()}).content.decode()
    banner = page[page.index('id="as-of"') :].split("</p>")[0]
    assert date_format(day, "DATE_FORMAT") in banner
    assert date_format(day + timedelta(days=1), "DATE_FORMAT") not in banner
