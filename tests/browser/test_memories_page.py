"""Settings > Memories in Chromium against a real Daphne: filters, search, actions, live updates, import."""

from __future__ import annotations

import json
import re

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect

from memoryapp.engine.memories import imports
from memoryapp.engine.memories.write import add_memory, delete_memory, set_importance
from memoryapp.models import Memory
from tests.conftest import PASSWORD
from tests.support.threads import off_loop

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def open_memories(page: Page, app_server, query: str = "") -> None:
    page.goto(f"{app_server.url}/accounts/login/?next=/settings/memories{query}")
    page.fill("#id_username", "alice")
    page.fill("#id_password", PASSWORD)
    page.locator("main button[type=submit]").click()
    expect(page.locator("h1")).to_have_text("Memories")
    # Scripts are deferred: act only once htmx runs and the live socket is open, as a person would
    # after the page settles (a click before that takes the no-JavaScript path and reloads).
    expect(page.locator("#live-status[data-state=on]")).to_have_count(1)
    page.wait_for_function("window.htmx !== undefined")


def card(page: Page, text: str):
    return page.locator(".memory-card", has_text=text)


def seed(alice) -> None:
    off_loop(_seed, alice)


def _seed(alice) -> None:
    add_memory(alice, "Prefers concise answers with code examples", kind="preference", importance=0.8)
    add_memory(alice, "Works as a piano teacher in Leipzig", kind="fact", importance=0.6)
    add_memory(alice, "Wants to run a half marathon this autumn", kind="goal", importance=0.7)
    add_memory(alice, "Always double-check time zones when scheduling", kind="lesson", importance=0.5)


def test_it_filters_by_type_and_searches(page: Page, app_server, alice, shots):
    seed(alice)
    open_memories(page, app_server)
    expect(page.locator(".memory-card")).to_have_count(4)
    page.set_viewport_size({"width": 1100, "height": 900})
    page.screenshot(path=str(shots / "memories.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: filters and cards wrap, nothing overflows
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(shots / "memories-mobile.png"))
    page.set_viewport_size({"width": 1100, "height": 900})

    page.select_option("select[name=kind]", "goal")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator(".memory-card")).to_have_count(1)
    expect(page.locator(".memory-card")).to_contain_text("half marathon")

    page.select_option("select[name=kind]", "")
    page.fill("input[name=q]", "what is my music job")
    page.keyboard.press("Enter")
    expect(page.locator(".memory-card").first).to_contain_text("piano teacher")


def test_it_keeps_chat_episodes_in_their_own_tab(page: Page, app_server, alice, shots):
    """Saved memories and chat episodes are listed apart, each with its count; an episode learnt while
    the saved list is open does not land in it."""
    seed(alice)
    off_loop(
        add_memory,
        alice,
        "[2026-11-21 10:00] We decided to move the staging stack to Kubernetes next week.",
        kind="episode",
    )
    open_memories(page, app_server)
    expect(page.locator(".memory-card")).to_have_count(4)
    expect(page.locator("#stat-total")).to_have_text("4")
    expect(page.locator("#stat-episodes")).to_have_text("1")
    off_loop(
        add_memory,
        alice,
        "[2026-11-22 09:00] The release went out yesterday and the billing page crashed.",
        kind="episode",
    )
    expect(page.locator("#stat-episodes")).to_have_text("2", timeout=15_000)
    expect(page.locator(".memory-card")).to_have_count(4)

    page.locator("#tab-episodes").click()
    expect(page.locator("#tab-episodes")).to_have_attribute("aria-current", "page")
    expect(page.locator(".memory-card")).to_have_count(2)
    expect(card(page, "staging stack")).to_be_visible()
    page.screenshot(path=str(shots / "memories-episodes.png"), full_page=True)


def test_it_searches_words_only_by_either_number_and_says_how_many_it_found(page: Page, app_server, alice):
    seed(alice)
    off_loop(add_memory, alice, "Runs every service in a Docker container", kind="fact")
    off_loop(add_memory, alice, "[2026-11-21 10:00] Talked about: can you help me plan a trip to Kyoto", kind="episode")
    open_memories(page, app_server)
    page.fill("input[name=q]", "containers")
    page.select_option("select[name=method]", "keyword")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator(".memory-card")).to_have_count(1)
    expect(page.locator(".memory-card")).to_contain_text("Docker container")
    expect(page.locator("#result-count")).to_have_text("1 memory")

    page.fill("input[name=q]", "")
    page.select_option("select[name=kind]", "fact")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator(".memory-card")).to_have_count(2)
    expect(page.locator("#result-count")).to_have_text("2 memories")


def _used_in_a_chat(alice, content: str, title: str, message: str) -> None:
    from conversations.models import Conversation
    from memoryapp.engine.chat.chat import start_turn
    from memoryapp.engine.recall import access
    from tasks.extraction import extract_messages

    add_memory(alice, content, kind="fact")
    access.wait_for_pending_notes()
    access.flush_access()
    start_turn(
        Conversation.objects.create(user=alice, title=title),
        message,
        enqueue_extraction=extract_messages.delay_on_commit,
    )
    access.wait_for_pending_notes()
    access.flush_access()


def test_it_shows_in_a_memorys_history_the_chat_that_used_it(page: Page, app_server, alice):
    off_loop(
        _used_in_a_chat,
        alice,
        "My daughter Emma is allergic to peanuts",
        "Birthday cake ideas",
        "Which cake can I bake for my daughter's party?",
    )
    open_memories(page, app_server)
    memory = card(page, "allergic to peanuts")
    expect(memory).to_contain_text("Used 1 time")
    memory.get_by_role("link", name="History").click()
    timeline = memory.locator(".timeline")
    expect(timeline).to_contain_text("Used in a chat")
    expect(timeline.get_by_role("link", name="Birthday cake ideas")).to_be_visible()
    expect(timeline).not_to_contain_text("“”")
    expect(timeline).not_to_contain_text("System")


def test_it_deletes_then_restores_a_memory(page: Page, app_server, alice):
    seed(alice)
    open_memories(page, app_server)
    target = card(page, "piano teacher")
    target.get_by_role("button", name="Delete", exact=True).click()
    expect(target.locator(".badge.status")).to_have_text("Deleted")
    target.get_by_role("button", name="Restore").click()
    expect(target.get_by_role("button", name="Delete", exact=True)).to_be_visible()
    assert Memory.objects.get(content__contains="piano").status == "active"


def test_it_clears_all_then_undoes(page: Page, app_server, alice):
    seed(alice)
    open_memories(page, app_server)
    page.get_by_role("button", name="Clear all").click()
    expect(page.locator(".memory-card")).to_have_count(0)
    expect(page.locator(".notice.undo")).to_contain_text("4 memories were cleared")
    page.get_by_role("button", name="Undo").click()
    expect(page.locator(".memory-card")).to_have_count(4)
    assert Memory.objects.filter(user=alice, status="active").count() == 4


def test_it_shows_a_memory_added_elsewhere_without_a_reload(page: Page, app_server, alice, shots):
    off_loop(add_memory, alice, "Keeps a sourdough starter called Bubbles", kind="fact")
    open_memories(page, app_server)
    expect(page.locator("#live-status")).to_have_attribute("data-state", "on")
    page.evaluate("window.__sameDocument = true")
    off_loop(add_memory, alice, "Is allergic to cats", kind="fact", importance=0.9)
    expect(card(page, "allergic to cats")).to_be_visible(timeout=15000)
    assert page.evaluate("window.__sameDocument") is True  # no reload happened
    page.screenshot(path=str(shots / "memories-live.png"))


def test_it_fetches_nothing_after_a_live_event(page: Page, app_server, alice):
    """The server sends the card and the counts rendered: the page swaps them, and asks for no HTML again."""
    seed(alice)
    open_memories(page, app_server)
    page.wait_for_load_state("networkidle")
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    off_loop(add_memory, alice, "Is allergic to cats", kind="fact", importance=0.9)
    expect(card(page, "allergic to cats")).to_be_visible(timeout=15_000)
    expect(counts(page).locator("#stat-total")).to_have_text("5")
    teacher = Memory.objects.get(user=alice, content__contains="piano teacher")
    off_loop(delete_memory, teacher)
    expect(card(page, "piano teacher")).to_contain_text("Deleted", timeout=15_000)
    expect(counts(page).locator(".stat-status")).to_contain_text("Deleted 1")
    page.wait_for_timeout(1000)  # a fetch that a live event set off would have started by now
    assert requests == []


def test_it_shows_an_import_made_in_another_tab(page: Page, app_server, celery_worker, alice, tmp_path):
    seed(alice)
    open_memories(page, app_server)
    other = page.context.new_page()
    open_memories_in(other, app_server)
    upload = tmp_path / "memories.json"
    upload.write_text(
        json.dumps({"memories": [{"content": f"Imported fact number {n}", "kind": "fact"} for n in range(3)]})
    )
    other.set_input_files("input[name=file]", str(upload))
    other.get_by_role("button", name="Import", exact=True).click()
    expect(other.locator(".import-report")).to_contain_text("Imported 3 memories.", timeout=15_000)
    expect(page.locator("#live-notice")).to_contain_text("3 memories were imported elsewhere.", timeout=15_000)
    expect(page.locator(".import-report")).to_have_count(0)  # the report is the importing tab's
    expect(counts(page).locator("#stat-total")).to_have_text("7")
    page.locator("#live-notice").get_by_role("link", name="Show them").click()
    expect(card(page, "Imported fact number 2")).to_be_visible()


def test_it_marks_a_card_being_edited_when_it_changes_elsewhere(page: Page, app_server, alice):
    seed(alice)
    open_memories(page, app_server)
    card(page, "piano teacher").get_by_role("link", name="Edit").click()
    editor = page.locator(".memory-card.editing")
    editor.locator("textarea[name=content]").fill("Works as a piano teacher in Dresden")
    teacher = Memory.objects.get(user=alice, content__contains="piano teacher")
    off_loop(delete_memory, teacher)
    expect(editor.locator(".changed-elsewhere")).to_contain_text("changed elsewhere", timeout=15_000)
    expect(editor.locator("textarea[name=content]")).to_have_value(
        "Works as a piano teacher in Dresden"
    )  # not replaced


def open_memories_in(page: Page, app_server) -> None:
    """A second tab of the same browser, signed in already."""
    page.goto(f"{app_server.url}/settings/memories")
    expect(page.locator("#live-status[data-state=on]")).to_have_count(1)
    page.wait_for_function("window.htmx !== undefined")


def test_it_reports_a_bad_import_row_and_imports_nothing(page: Page, app_server, alice, tmp_path, shots):
    rows = [
        {"content": "Speaks Portuguese", "kind": "fact"},
        {"content": "Loves jazz", "kind": "hobby"},
        {"content": "Moved to Porto in 2024", "importance": 0.4},
    ]
    upload = tmp_path / "memories.json"
    upload.write_text(json.dumps({"memories": rows}))
    open_memories(page, app_server)
    page.set_input_files("input[name=file]", str(upload))
    page.get_by_role("button", name="Import", exact=True).click()
    report = page.locator(".import-report")
    expect(report).to_contain_text("1 row is invalid, so nothing was imported")
    expect(report).to_contain_text("Row 2")
    expect(page.locator("#import-progress")).to_have_attribute("value", "100")
    page.screenshot(path=str(shots / "memories-import.png"))
    assert not Memory.objects.filter(user=alice).exists()


def test_it_creates_a_token_shown_once_in_chinese(page: Page, app_server, alice, shots):
    open_memories(page, app_server)
    page.context.add_cookies([{"name": "django_language", "value": "zh-hans", "url": app_server.url}])
    off_loop(_seed, alice)
    page.goto(f"{app_server.url}/settings/memories")
    expect(page.get_by_role("button", name="全部清除")).to_be_visible()
    page.screenshot(path=str(shots / "memories-zh.png"), full_page=True)
    page.goto(f"{app_server.url}/settings/")
    page.fill("input[name=name]", "laptop")
    page.get_by_role("button", name="创建令牌").click()
    secret = page.locator("#new-token").inner_text()
    assert secret.startswith("mem_")
    page.screenshot(path=str(shots / "memories-settings.png"), full_page=True)
    page.goto(f"{app_server.url}/settings/")  # the secret is never stored, so it cannot be shown again
    expect(page.locator("#new-token")).to_have_count(0)
    expect(page.locator(".tokens")).to_contain_text("laptop")


@pytest.mark.parametrize("language, revoke, asks", [("en", "Revoke", "stops working"), ("zh-hans", "撤销", "立即失效")])
def test_revoking_a_token_asks_first(page: Page, app_server, alice, language, revoke, asks):
    open_memories(page, app_server)
    page.context.add_cookies([{"name": "django_language", "value": language, "url": app_server.url}])
    page.goto(f"{app_server.url}/settings/")
    page.fill("input[name=name]", "backup script")
    page.locator("button[name=create_token]").click()
    asked: list[str] = []

    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.get_by_role("button", name=revoke).click()

    expect(page.locator(".tokens tr.revoked")).to_have_count(0)  # dismissed: the token still works
    assert asks in asked[0] and "backup script" in asked[0]
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name=revoke).click()
    expect(page.locator(".tokens tr.revoked")).to_have_count(1)


def test_it_edits_a_memory_and_shows_the_old_wording_in_its_history(page: Page, app_server, alice):
    seed(alice)
    open_memories(page, app_server)
    card(page, "piano teacher").get_by_role("link", name="Edit").click()
    editor = page.locator(".memory-card.editing")
    editor.locator("textarea[name=content]").fill("Works as a violin teacher in Leipzig")
    editor.get_by_role("button", name="Save").click()
    edited = card(page, "violin teacher")
    expect(edited).to_be_visible()
    expect(card(page, "piano teacher")).to_have_count(0)
    edited.get_by_role("link", name="History").click()
    expect(edited.locator(".timeline")).to_contain_text("Superseded")
    expect(edited.locator(".timeline")).to_contain_text("piano teacher")


def test_it_loads_more_with_the_cursor(page: Page, app_server, alice):
    def many() -> None:
        for i in range(23):
            vector = [0.0] * settings.EMBEDDING_DIM
            vector[i] = 1.0
            add_memory(alice, f"Numbered memory {i:02d}", embedding=vector)

    off_loop(many)
    open_memories(page, app_server)
    expect(page.locator(".memory-card")).to_have_count(20)
    page.get_by_role("link", name="Load more").click()
    expect(page.locator(".memory-card")).to_have_count(23)
    expect(page.get_by_role("link", name="Load more")).to_have_count(0)


@pytest.mark.parametrize(("language", "just_now"), [("en", "just now"), ("zh-hans", "刚刚")])
def test_it_says_just_now_for_a_memory_under_a_minute_old(page: Page, app_server, alice, language, just_now):
    open_memories(page, app_server)
    page.context.add_cookies([{"name": "django_language", "value": language, "url": app_server.url}])
    off_loop(add_memory, alice, "Keeps a sourdough starter called Bubbles", kind="fact")
    page.goto(f"{app_server.url}/settings/memories")
    expect(card(page, "sourdough").locator("header time")).to_have_text(just_now)


def counts(page: Page):
    return page.locator("#mem-stats")


def test_it_keeps_the_counts_in_step_with_every_change(page: Page, app_server, alice):
    seed(alice)
    open_memories(page, app_server)
    stats = counts(page)
    expect(stats.locator(".stat-status")).to_contain_text("Active 4")

    card(page, "piano teacher").get_by_role("button", name="Delete", exact=True).click()
    expect(stats.locator(".stat-status")).to_contain_text("Active 3")
    expect(stats.locator(".stat-status")).to_contain_text("Deleted 1")
    expect(stats.locator("#stat-total")).to_have_text("3")

    card(page, "piano teacher").get_by_role("button", name="Restore").click()
    expect(stats.locator(".stat-status")).to_contain_text("Deleted 0")
    expect(stats.locator("a[href='?kind=fact']")).to_have_text(re.compile(r"Fact\s+1$"))

    card(page, "half marathon").get_by_role("link", name="Edit").click()
    page.locator(".memory-card.editing select[name=kind]").select_option("fact")
    page.locator(".memory-card.editing").get_by_role("button", name="Save").click()
    expect(stats.locator("a[href='?kind=fact']")).to_have_text(re.compile(r"Fact\s+2$"))
    expect(stats.locator("a[href='?kind=goal']")).to_have_text(re.compile(r"Goal\s+0$"))

    # Changes made elsewhere (a chat, the API) arrive over the websocket.
    off_loop(add_memory, alice, "Is allergic to cats", kind="fact", importance=0.9)
    expect(stats.locator("#stat-total")).to_have_text("5", timeout=15_000)
    tea = off_loop(add_memory, alice, "Drinks green tea every morning", kind="preference").memory
    expect(stats.locator("#stat-total")).to_have_text("6", timeout=15_000)
    off_loop(delete_memory, Memory.objects.get(pk=tea.pk))
    expect(stats.locator(".stat-status")).to_contain_text("Deleted 1", timeout=15_000)
    expect(stats.locator("#stat-total")).to_have_text("5")

    page.get_by_role("button", name="Clear all").click()
    expect(stats.locator(".stat-status")).to_contain_text("Active 0")
    expect(stats.locator(".stat-status")).to_contain_text("Deleted 6")


def test_it_keeps_a_history_open_while_the_memory_changes_elsewhere(page: Page, app_server, alice):
    seed(alice)
    open_memories(page, app_server)
    piano = card(page, "piano teacher")
    piano.get_by_role("link", name="History").click()
    expect(piano.locator(".timeline")).to_be_visible()
    memory = Memory.objects.get(user=alice, content__contains="piano teacher")
    off_loop(set_importance, memory, 0.3, action="demoted", actor="user")  # a live event re-renders the card
    expect(piano).to_contain_text("30%")
    expect(piano.locator(".timeline")).to_be_visible()


@pytest.mark.parametrize(
    ("language", "line"),
    [("en", "Import done: 600 new, 0 already here"), ("zh-hans", "导入完成：新增 600 条，0 条已存在")],
)
def test_it_shows_a_long_import_progress_as_it_goes(page: Page, app_server, alice, language, line):
    """An import of hundreds of memories (through the engine, as an API client's) moves the bar of an open
    memories page batch by batch, and says how far it got."""
    open_memories(page, app_server)
    if language != "en":
        page.select_option("select[name=language]", language)
        expect(page.locator("html")).to_have_attribute("lang", language)
        expect(page.locator("#live-status[data-state=on]")).to_have_count(1)
    rows = [{"content": f"Imported fact number {n}", "kind": "fact"} for n in range(600)]
    off_loop(imports.import_memories, alice, rows)
    expect(page.locator("#import-status")).to_have_text(line, timeout=15_000)
    expect(page.locator("#import-progress")).to_have_attribute("value", "600")


def test_an_import_of_rows_already_here_does_not_count_them_as_written(page: Page, app_server, alice):
    rows = [{"content": f"Already known fact number {n}", "kind": "fact"} for n in range(6)]
    off_loop(imports.import_memories, alice, rows)
    open_memories(page, app_server)

    off_loop(imports.import_memories, alice, rows)

    expect(page.locator("#import-status")).to_have_text("Import done: 0 new, 6 already here", timeout=15_000)


def test_a_card_shows_its_cues_and_the_editor_changes_them(page: Page, app_server, alice):
    off_loop(
        add_memory,
        alice,
        "Docker builds on the office network need HTTPS_PROXY set",
        kind="lesson",
        cues=["building Docker images", "构建镜像"],
    )
    open_memories(page, app_server)
    docker = card(page, "HTTPS_PROXY")
    expect(docker.locator(".mem-cues")).to_contain_text("building Docker images")
    expect(docker.locator(".mem-cues")).to_contain_text("构建镜像")
    docker.get_by_role("link", name="Edit").click()
    editor = page.locator(".memory-card.editing")
    expect(editor.get_by_label("Helps with")).to_have_value("building Docker images\n构建镜像")
    editor.get_by_label("Helps with").fill("docker compose up\nmy password is hunter2")
    editor.get_by_role("button", name="Save").click()
    expect(editor.locator(".errorlist")).to_contain_text("password")  # refused, nothing saved
    editor.get_by_label("Helps with").fill("docker compose up\n\npulling images")
    editor.get_by_role("button", name="Save").click()
    expect(card(page, "HTTPS_PROXY").locator(".mem-cues")).to_have_text(
        re.compile(r"docker compose up\s*·\s*pulling images")
    )
    assert Memory.objects.get(user=alice).cues == ["docker compose up", "pulling images"]


@pytest.mark.parametrize(
    ("language", "counting", "report"),
    [
        ("en", re.compile(r"Import: \d+ of 1000 rows checked"), "Imported 1000 memories."),
        ("zh-hans", re.compile(r"导入：已检查 \d+ / 1000 行"), "已导入 1000 条记忆。"),
    ],
)
def test_an_uploaded_import_shows_its_count_as_the_worker_writes_then_its_report(
    page: Page, app_server, celery_worker, alice, tmp_path, language, counting, report
):
    """The page's own upload: the worker writes the file batch by batch; the page counts along, then
    reports, and the list shows the memories once they are all written."""
    upload = tmp_path / "memories.json"
    upload.write_text(
        json.dumps({"memories": [{"content": f"Uploaded fact number {n}", "kind": "fact"} for n in range(1000)]})
    )
    open_memories(page, app_server)
    if language != "en":
        page.select_option("select[name=language]", language)
        expect(page.locator("html")).to_have_attribute("lang", language)
        expect(page.locator("#live-status[data-state=on]")).to_have_count(1)
    seen = []  # every line the status showed, in order: the count moves before the report comes
    page.expose_function("statusChanged", lambda line: seen.append(line))
    page.evaluate("""() => new MutationObserver(() => {
        const status = document.getElementById("import-status");
        if (status) window.statusChanged(status.textContent);
    }).observe(document.querySelector(".mem-tools"), {subtree: true, childList: true, characterData: true})""")
    page.set_input_files("input[name=file]", str(upload))
    page.locator("#import-form button[type=submit]").click()
    expect(page.locator(".import-report")).to_contain_text(report, timeout=60_000)
    assert len({line for line in seen if counting.fullmatch(line)}) >= 2, seen  # a count that moved
    assert Memory.objects.filter(user=alice).count() == 1000
    page.locator(".import-report a").click()
    expect(card(page, "Uploaded fact number 999")).to_be_visible()
