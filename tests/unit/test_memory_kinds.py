"""Every page shows a memory kind with the same icon and the model's own (translated) label."""

from __future__ import annotations

from django.template import Context, Template
from django.template.loader import render_to_string
from django.utils import translation

from memoryapp.models import MemoryKind


def test_it_gives_every_kind_its_own_icon_on_the_memories_page_and_in_chat_chips():
    chip = Template("{% load memory_kinds %}{{ kind|kind_icon }}")
    icons = {kind: chip.render(Context({"kind": kind.value})) for kind in MemoryKind}
    assert len(set(icons.values())) == len(MemoryKind) and "" not in icons.values()
    for kind, icon in icons.items():
        assert f'aria-hidden="true">{icon}</span> {kind.label}' in render_to_string(
            "memoryapp/_kind_icon.html", {"kind": kind.value}
        )


def test_it_labels_kinds_in_chinese():
    with translation.override("zh-hans"):
        assert "背景" in render_to_string("memoryapp/_kind_icon.html", {"kind": "context"})
        assert "经历" in render_to_string("memoryapp/_kind_icon.html", {"kind": "episode"})


def test_it_shows_an_unknown_kind_as_itself():
    assert ">•</span> mystery</span>" in render_to_string("memoryapp/_kind_icon.html", {"kind": "mystery"})
