from __future__ import annotations

from memoryapp.engine import text
from memoryapp.engine.recall.retrievers import tsquery_text


def test_it_segments_chinese_into_words():
    assert {"喜欢", "乌龙茶"} <= set(text.segment("我喜欢喝乌龙茶"))


def test_it_keeps_english_words_and_numbers():
    assert text.segment("I like Vue 3!") == ["i", "like", "vue", "3"]


def test_it_drops_function_words_from_queries():
    assert text.query_terms("what do I like to drink?") == ["like", "drink"]
    assert "我" not in text.query_terms("我喜欢什么茶")


def test_it_gives_equal_keys_to_the_same_wording():
    assert text.content_key("I like tea.") == text.content_key("  i LIKE   tea ")
    assert text.content_key("I like tea") != text.content_key("I like coffee")


def test_it_counts_a_token_per_chinese_character():
    assert text.count_tokens("我喜欢茶") == 4
    assert text.count_tokens("a" * 40) == 10


def test_it_builds_a_tsquery_that_cannot_be_malformed():
    hostile = "tea') | !(x & y:* <-> 'z"
    query = tsquery_text(hostile)
    assert all(term.isalnum() or "_" in term for term in query.split(" | "))
    assert tsquery_text("??? ...") == ""


def test_it_searches_a_word_in_both_numbers_where_the_stemmer_does_not():
    assert tsquery_text("buses") == "buses | bus | busis"
    assert tsquery_text("bus") == "bus | buses"
    assert "knife" in tsquery_text("knives") and "analysis" in tsquery_text("analyses")
    assert "children" in tsquery_text("child") and "child" in tsquery_text("children")
    assert tsquery_text("containers") == "containers"  # the stemmer already gives both one stem
    assert tsquery_text("乌龙茶") == "乌龙 | 乌龙茶"  # Chinese: jieba's words, no number
