"""`python -m bench.train` with no names trains every model; a name it does not know is refused by name."""

from __future__ import annotations

import pytest

from bench.train.__main__ import parse_args, trainers


def test_no_names_means_every_model_and_each_is_found():
    available = trainers()
    assert {"extraction", "changes", "relevance"} <= set(available)
    assert parse_args([], available).names == []  # main() then trains them all
    assert parse_args(["changes", "--seed", "3"], available).seed == 3


def test_an_unknown_model_is_refused_with_the_known_ones(capsys):
    with pytest.raises(SystemExit):
        parse_args(["extractoin"], trainers())
    assert "no model named extractoin; known: changes, extraction, relevance" in capsys.readouterr().err
