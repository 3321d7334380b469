"""`manage.py train`, which W020 names when the shipped weights do not fit the embedder: on an install
without the source checkout's corpora it says where to get them, instead of a traceback."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memoryapp.management.commands import train


def test_an_install_without_the_corpora_is_told_where_to_train(monkeypatch, tmp_path):
    monkeypatch.setattr(train, "CHECKOUT", tmp_path)

    with pytest.raises(CommandError, match="clone the memoryapp repository"):
        call_command("train")


def test_a_checkout_trains_through_bench_train(monkeypatch):
    ran = []
    monkeypatch.setattr(
        train.subprocess, "run", lambda argv, cwd: ran.append(argv) or type("Done", (), {"returncode": 0})
    )
    monkeypatch.setattr(train.importlib.util, "find_spec", lambda name: object())

    call_command("train", "changes", "--seed", "3")

    assert ran == [[train.sys.executable, "-m", "bench.train", "changes", "--seed", "3"]]
