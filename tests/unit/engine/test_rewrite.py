"""Query rewriting without a model, and dates as words (pure functions)."""
from __future__ import annotations

from datetime import datetime, timezone

from memoryapp.engine import rewrite, text

AT = datetime(2026, 3, 10, 9, tzinfo=timezone.utc)


def test_a_date_reads_as_month_and_year():
    assert text.date_words(datetime(2023, 5, 8, tzinfo=timezone.utc)) == "may 2023"
    assert text.date_words(None) == ""
    assert text.search_context("Trip to Kyoto!", datetime(2024, 12, 1, tzinfo=timezone.utc)) == "trip to kyoto december 2024"


def test_relative_dates_count_back_from_when_the_question_is_asked():
    assert rewrite.rewrite_terms("what did I do last month?", AT)[-2:] == ["february", "2026"]
    assert rewrite.rewrite_terms("where was I yesterday", AT)[-2:] == ["march", "2026"]
    assert rewrite.rewrite_terms("who did I meet three months ago", AT)[-2:] == ["december", "2025"]
    assert "2025" in rewrite.rewrite_terms("what did I read last year", AT)
    assert rewrite.rewrite_terms("我上个月去了哪里", AT)[-2:] == ["february", "2026"]


def test_a_question_without_a_date_gets_none():
    assert rewrite.rewrite_terms("what tea do I like", AT) == ["tea", "like"]


def test_chat_meta_words_are_dropped_but_the_subject_stays():
    assert rewrite.rewrite_terms("Do you remember what I told you about my sister?", AT) == ["sister"]
    assert rewrite.rewrite_terms("What kind of music would I likely enjoy?", AT, dates=False) == ["music", "would", "enjoy"]
    assert "remember" in rewrite.rewrite_terms("remember the milk", AT, drop_meta=False)
