"""The memory graph page's drawing reads on a desktop window and a 390-px phone, in English and Chinese:
every label drawn is whole, over no other label or node and large enough to read, the rest show on hover;
and its summary counts in the plural each number takes."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from conversations.models import Conversation
from memoryapp.engine.memories.write import add_memory
from tests.support.browser import log_in
from tests.support.threads import off_loop

from .test_memory_graph import _seed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


# Three chats with long titles and memories learnt at one moment: their labels meet at one place in time.
CROWDED = {
    "en": {
        "chats": (
            "Planning the spring trip to Saxon Switzerland with the climbing club",
            "Questions about the lesson plan for the Monday piano students in Leipzig",
            "Comparing half marathon training plans for a first race in October",
        ),
        "memories": (
            "Climbs with a club in Saxon Switzerland near Dresden",
            "Teaches piano to children in Leipzig on Mondays",
            "Runs the Leipzig half marathon in October",
        ),
        "more": ("Goes to Dresden for concerts twice a year", "Keeps a Leipzig allotment with bees"),
    },
    "zh-hans": {
        "chats": (
            "和登山俱乐部一起计划春天去萨克森小瑞士的旅行，顺便看看德累斯顿的老城",
            "关于莱比锡周一钢琴课学生的课程安排和期末演出曲目的问题",
            "比较十月第一次半程马拉松的几种训练计划和每周跑量",
        ),
        "memories": ("和俱乐部在萨克森小瑞士攀岩", "每周一在莱比锡教孩子弹钢琴", "十月要跑莱比锡半程马拉松"),
        "more": ("每年去德累斯顿听两次音乐会", "在莱比锡有一块养蜂的小园子"),
    },
}

# Every label the drawing shows now (a label smaller than cytoscape's min-zoomed-font-size is not drawn),
# with what is wrong with it: cut off at the drawing's edge, over another label or another node, or too small
# to read; and the size of the nodes on screen.
LABELS = """() => {
  const cy = document.getElementById('graph-root').graph, box = cy.container();
  const width = box.clientWidth, height = box.clientHeight, zoom = cy.zoom();
  const only = { includeNodes: false, includeEdges: false, includeLabels: true };
  const meets = (a, b) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
  const nodes = cy.nodes(':visible');
  const shown = nodes.filter((n) => n.style('label') && parseFloat(n.style('font-size')) * zoom
                                    >= parseFloat(n.style('min-zoomed-font-size')));
  const problems = [];
  shown.forEach((n) => {
    const label = n.renderedBoundingBox(only), name = n.style('label');
    if (label.x1 < 0 || label.y1 < 0 || label.x2 > width || label.y2 > height) problems.push(`${name}: cut off`);
    if (parseFloat(n.style('font-size')) * zoom < 9) problems.push(`${name}: ${parseFloat(n.style('font-size')) * zoom} px`);
    shown.forEach((o) => { if (o !== n && n.id() < o.id() && meets(label, o.renderedBoundingBox(only)))
                             problems.push(`${name}: over the label ${o.style('label')}`); });
    nodes.forEach((o) => { if (o !== n && meets(label, o.renderedBoundingBox({ includeLabels: false })))
                             problems.push(`${name}: over the node ${o.id()}`); });
  });
  return { shown: shown.length, problems, node: Math.min(...nodes.map((n) => n.renderedWidth())) };
}"""


def _seed_crowded(alice, language: str) -> None:
    text = CROWDED[language]
    for title, content in zip(text["chats"], text["memories"], strict=True):
        chat = Conversation.objects.create(user=alice, title=title)
        add_memory(alice, content, source_conversation_id=chat.pk)
    for content in text["more"]:
        add_memory(alice, content)


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_its_labels_are_readable_on_a_desktop_and_a_phone(page: Page, app_server, alice, language, width, shots):
    off_loop(_seed_crowded, alice, language)
    page.set_viewport_size({"width": width, "height": 800 if width > 400 else 844})
    log_in(page, app_server.url, language, "/settings/memories/graph")
    expect(page.locator("#graph-root[data-listed]")).to_have_count(1)
    drawn = page.evaluate(LABELS)
    assert drawn["problems"] == []
    assert drawn["shown"] >= 2  # the chats and names whose labels fit stay labelled; the rest on hover
    assert drawn["node"] >= 9  # a node a finger or a pointer can find

    # A node without a label shows it while the pointer is on it, whole within the drawing.
    memory = page.evaluate("document.getElementById('graph-root').graph.nodes('.memory')[0].id()")
    page.locator("#graph-canvas").scroll_into_view_if_needed()
    x, y = page.evaluate(NODE_AT, memory)
    page.mouse.move(x - 5, y)  # cytoscape takes the first move for where the pointer came from
    page.mouse.move(x, y)
    page.wait_for_function(
        f"() => document.getElementById('graph-root').graph.getElementById('{memory}').style('label')"
    )
    hovered = page.evaluate(LABEL_OF, memory)
    assert hovered["label"] and hovered["inside"], hovered
    page.screenshot(path=str(shots / f"memory-graph-labels-{language}-{width}.png"))


NODE_AT = """(id) => {
  const cy = document.getElementById('graph-root').graph, p = cy.getElementById(id).renderedPosition();
  const box = cy.container().getBoundingClientRect();
  return [box.left + p.x, box.top + p.y];
}"""
LABEL_OF = """(id) => {
  const cy = document.getElementById('graph-root').graph, node = cy.getElementById(id), box = cy.container();
  const label = node.renderedBoundingBox({ includeNodes: false, includeEdges: false, includeLabels: true });
  return { label: node.style('label'), inside: label.x1 >= 0 && label.y1 >= 0 && label.x2 <= box.clientWidth
                                              && label.y2 <= box.clientHeight };
}"""

SUMMARY = {
    "en": ("Shown: 4 memories (1 replaced), 4 links.", "Shown: 1 memory (0 replaced), 0 links."),
    "zh-hans": ("显示：4 条记忆（其中 1 条已替换），4 条联系。", "显示：1 条记忆（其中 0 条已替换），0 条联系。"),
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_its_summary_counts_in_the_right_plural(page: Page, app_server, alice, language):
    off_loop(_seed, alice)
    log_in(page, app_server.url, language, "/settings/memories/graph")
    everything, one = SUMMARY[language]
    expect(page.locator("#graph-summary")).to_have_text(everything)
    for box in page.locator("#graph-filters input[name=kind]").all():  # only the goal: one memory, no link
        box.set_checked(box.get_attribute("value") == "goal")
    expect(page.locator("#graph-summary")).to_have_text(one)
