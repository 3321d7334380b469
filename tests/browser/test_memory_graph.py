"""The memory graph page in Chromium against a real Daphne: filter, "as of", click-through, the list by
keyboard, and live changes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from conversations.models import Conversation
from memoryapp.engine.memories.write import add_memory, edit_memory
from memoryapp.models import Memory
from tests.browser.test_sweep import AXE, AXE_RUN, AXE_TAGS
from tests.conftest import PASSWORD
from tests.support.threads import off_loop

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

JANUARY = datetime(2026, 1, 10, 9, 0, tzinfo=UTC)


def open_graph(page: Page, app_server, heading: str = "Memory graph") -> None:
    page.goto(f"{app_server.url}/accounts/login/?next=/settings/memories/graph")
    page.fill("#id_username", "alice")
    page.fill("#id_password", PASSWORD)
    page.locator("main button[type=submit]").click()
    expect(page.locator("h1")).to_have_text(heading)
    expect(page.locator("#graph-root[data-listed]")).to_have_count(1)
    expect(page.locator("#live-status[data-state=on]")).to_have_count(1)


def _seed(alice) -> dict[str, Memory]:
    chat = Conversation.objects.create(user=alice, title="Moving to Leipzig")
    hamburg = add_memory(alice, "Lives in Hamburg near the harbour", valid_from=JANUARY).memory
    leipzig = edit_memory(hamburg, {"content": "Lives in Leipzig near the Zoo"}).memory
    piano = add_memory(alice, "Teaches piano at a music school in Leipzig", source_conversation_id=chat.pk).memory
    marathon = add_memory(alice, "Wants to run a half marathon this autumn", kind="goal").memory
    return {"hamburg": hamburg, "leipzig": leipzig, "piano": piano, "marathon": marathon}


def item(page: Page, text: str):
    """A memory's list item, by its own words (not those of the versions it links to)."""
    return page.locator("#graph-list > li").filter(has=page.locator("button.node", has_text=text))


def test_it_filters_replays_and_opens_cards_from_the_drawing_and_the_list(page: Page, app_server, alice, shots):
    memories = off_loop(_seed, alice)
    page.context.add_init_script(path=AXE)
    open_graph(page, app_server)

    expect(page.locator("#graph-list > li:visible")).to_have_count(4)
    expect(item(page, "Hamburg").locator(".state")).to_have_text("Replaced")
    expect(item(page, "Leipzig near the Zoo").locator(".state")).to_have_text("Current")
    expect(item(page, "Leipzig near the Zoo")).to_contain_text("Replaces: Lives in Hamburg")
    expect(item(page, "piano")).to_contain_text("From the chat: Moving to Leipzig")
    expect(page.locator("#graph-connectors")).to_contain_text("Shared name: Leipzig")
    page.screenshot(path=str(shots / "memory-graph-en.png"), full_page=True)

    # Filter by kind: the goal leaves the list and the drawing.
    page.get_by_label("Goal").uncheck()
    expect(item(page, "marathon")).to_be_hidden()
    _wait_drawn(page, memories["marathon"], False)
    page.get_by_label("Goal").check()
    expect(item(page, "marathon")).to_be_visible()

    # As of the first change (by keyboard on the slider): only the Hamburg version, and current then.
    page.locator("#graph-asof").focus()
    page.keyboard.press("Home")
    expect(page.locator("#graph-list > li:visible")).to_have_count(1)
    expect(item(page, "Hamburg").locator(".state")).to_have_text("Current")
    expect(page.locator("#graph-asof-value")).not_to_have_text("Now")
    _wait_drawn(page, memories["leipzig"], False)
    page.keyboard.press("End")
    expect(page.locator("#graph-asof-value")).to_have_text("Now")
    expect(page.locator("#graph-list > li:visible")).to_have_count(4)

    # Click-through from the drawing: the memory's own card, with its actions.
    # Where the node is drawn now: the page redraws on a live mark from the worker (the suite's worker may
    # still be busy with earlier tests' jobs), so the drawing is read once the last load has settled.
    card = page.locator(f"#graph-card #memory-{memories['piano'].pk}")
    for _attempt in range(3):  # a live redraw between reading the node's place and the click moves it: again
        page.wait_for_function(
            "() => document.getElementById('graph-root').dataset.listed"
            " === document.getElementById('graph-root').dataset.drawn"
        )
        x, y = page.evaluate(
            """(id) => {
            const cy = document.getElementById('graph-root').graph, p = cy.getElementById(id).renderedPosition();
            const box = cy.container().getBoundingClientRect();
            return [box.left + p.x, box.top + p.y];
        }""",
            f"m{memories['piano'].pk}",
        )
        page.mouse.click(x, y)
        try:
            card.wait_for(timeout=5000)
            break
        except PlaywrightTimeoutError:
            continue
    expect(card).to_contain_text("Teaches piano at a music school in Leipzig")
    expect(card.get_by_role("button", name="Delete", exact=True)).to_be_visible()

    # The list by keyboard: Tab reaches a memory, Enter opens its card and moves there.
    page.locator("#graph-list button.node").first.focus()
    page.keyboard.press("Tab")  # past the first memory's own links, to the next memory or link
    focused = page.evaluate("document.activeElement.closest('#graph-list') !== null")
    assert focused
    page.locator("#graph-list button.node", has_text="Wants to run").focus()
    page.keyboard.press("Enter")
    expect(page.locator(f"#graph-card #memory-{memories['marathon'].pk}")).to_be_visible()
    expect(page.locator("#graph-card-box")).to_be_focused()
    marathon = memories["marathon"].pk
    expect(page.locator("#graph-card-open")).to_have_attribute(
        "href", f"/settings/memories?focus={marathon}#memory-{marathon}"
    )
    assert page.evaluate(AXE_RUN, AXE_TAGS) == []  # with the list built and a card open


def test_it_draws_a_memory_changed_in_another_tab_without_a_reload(page: Page, app_server, alice, shots):
    off_loop(_seed, alice)
    open_graph(page, app_server)
    page.evaluate("window.__sameDocument = true")

    off_loop(add_memory, alice, "Keeps bees on a Leipzig allotment", kind="fact")

    expect(item(page, "Keeps bees")).to_be_visible(timeout=15_000)
    expect(page.locator("#graph-connectors > li.name", has_text="Leipzig")).to_contain_text("Keeps bees")
    assert page.evaluate("window.__sameDocument") is True

    page.set_viewport_size({"width": 390, "height": 844})  # a phone: the list under the drawing, nothing sideways
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(shots / "memory-graph-phone.png"))


@pytest.mark.parametrize("language", ["zh-hans"])
def test_it_speaks_chinese(page: Page, app_server, alice, shots, language):
    off_loop(_seed_zh, alice)
    page.context.add_cookies([{"name": "django_language", "value": "zh-hans", "url": app_server.url}])
    open_graph(page, app_server, heading="记忆图谱")
    expect(page.locator("#graph-list > li:visible")).to_have_count(4)
    expect(page.locator("#graph-summary")).to_contain_text("4 条记忆")
    expect(page.locator("#graph-connectors")).to_contain_text("共有的名字： 朵朵")
    expect(page.locator("#graph-asof-value")).to_have_text("现在")
    page.screenshot(path=str(shots / "memory-graph-zh-hans.png"), full_page=True)


def _seed_zh(alice) -> None:
    old = add_memory(alice, "住在杭州西湖边", valid_from=JANUARY).memory
    edit_memory(old, {"content": "住在上海浦东"})
    add_memory(alice, "周末常和妹妹朵朵去爬山")
    add_memory(alice, "朵朵在上海学钢琴", kind="context")


def _wait_drawn(page: Page, memory: Memory, visible: bool) -> None:
    """The drawing follows the list a frame later (and again after a live redraw): wait until it shows the node or not."""
    page.wait_for_function(
        "([id, visible]) => document.getElementById('graph-root').graph.getElementById(id).visible() === visible",
        arg=[f"m{memory.pk}", visible],
        timeout=10000,
    )
