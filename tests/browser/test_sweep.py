"""Every full page the URLconf serves by GET, in English and Chinese, on a desktop window and a 390-px phone.

Each page must load with no console error, no failed request (an error status included), nothing sticking
out sideways, and no axe-core violation of WCAG 2.x A or AA. The pages are not listed here: they come from
the URLconf (`django.urls.get_resolver()`, walked through every include), each route's parameters filled
from objects made for the test, and each route probed with GET as a visitor and, where it asks for a login,
as alice. A route that answers with a whole HTML document is swept; one that refuses GET (405) is a form's
target; one that only sends the browser elsewhere (set_language) is swept where it lands; anything
else must be named in NOT_PAGES with the reason, so a new page is swept without anyone listing it, and a new
fragment fails here until someone says what it is. Where a page's form answers in place (the memories
page's import), the page is checked again after it (AFTER_FORMS).

axe-core is the npm dev dependency scripts/build-static.sh installs into node_modules/.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest
from django.conf import settings
from django.contrib.auth.tokens import default_token_generator
from django.test import Client
from django.urls import Resolver404, URLPattern, URLResolver, get_resolver, resolve, reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from oauth2_provider.models import get_application_model
from playwright.sync_api import Browser, BrowserContext, Page

from conversations.models import Citation, Conversation, Message, Role
from memoryapp.api.auth import create_token
from memoryapp.engine.chat_state import store as chat_state
from memoryapp.engine.memories import conflicts
from memoryapp.engine.memories.write import add_memory, delete_memory, edit_memory
from memoryapp.lib import clients
from memoryapp.models import Actor, EventAction, MemoryEvent
from memoryapp.pipeline.models import HistoryImport, HistoryImportStatus, ImportJob, MemorySuggestion, RunStatus
from tests.support.servers import offline_server  # noqa: F401  (a fixture)
from tests.support.threads import off_loop

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(settings.BASE_DIR) / "node_modules" / "axe-core" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
LANGUAGES = {"en": "en-US", "zh-hans": "zh-CN"}  # the language cookie, and the browser's own locale
# Every swept page as a picture, to look at by hand: MEMORYAPP_SWEEP_SHOTS=/tmp/shots ./test tests/browser/test_sweep.py
SHOTS = os.environ.get("MEMORYAPP_SWEEP_SHOTS")

# Whole URLconf subtrees that are not the app's pages: Django's admin has its own look and tests, and the
# API (its docs page included) answers JSON, checked against its schema by tests/integration/api.
EXCLUDED_PREFIXES = {"admin/": "Django's admin", "api/": "the REST API and its docs"}
# Routes that answer GET with something other than a page. Routes that refuse GET (405) need no entry.
NOT_PAGES = {
    "healthz": "JSON for compose's health check",
    "conversation_list": "fragment: the chat sidebar's list, swapped in by its search box",
    "memories-stats": "fragment: the counts above the memories list",
    "memories-graph-data": "JSON: the memory graph page's nodes and links, fetched by graph.js",
    "memory-card": "fragment: one memory's card, swapped back in by Cancel on its edit form",
    "memories-export": "a file to download (JSON or Markdown), not a page",
    "memories-import-job": "fragment: an import job's report, polled by the memories page that started it",
    "memories-history-progress": "fragment: an import's line from ChatGPT or Claude, polled by the memories page",
    "oauth2_provider:oauth-server-metadata": "JSON: the OAuth authorization server's metadata (RFC 8414)",
    "oauth2_provider:oauth-resource-metadata": "JSON: the origin's protected resource metadata (RFC 9728)",
    "oauth2_provider:oauth-resource-metadata-mcp": "JSON: /mcp's protected resource metadata (RFC 9728)",
    "oauth2_provider:oauth-resource-metadata-api": "JSON: the REST API's protected resource metadata (RFC 9728)",
    "oauth2_provider:dcr-register-management": "JSON: a client's registration (RFC 7592), read with its token",
}
# Routes that are a page only with a query: the consent page needs a client's authorization request.
QUERIES = {"oauth2_provider:authorize": "oauth_request"}
# The pages the sweep must find, whatever else it finds: a classifier that sweeps nothing fails here.
# (Sign-up is swept as whatever it serves: a form, or where it sends a visitor when sign-up is closed.)
MUST_SWEEP = {
    "home",
    "conversation",
    "memories",
    "memories-graph",
    "memory-history",
    "memory-edit",
    "settings",
    "activity",
    "login",
    "password_change",
    "oauth2_provider:authorize",
}

# Problems a teammate's branch fixes; each entry matches the text of one problem. The lead removes them
# after merging those branches.
SEED = {
    "en": {
        "title": "Training plan for the Leipzig half marathon in October",
        "question": "I want to run the Leipzig half marathon this autumn. Can you draft a 12-week plan?",
        "answer": "Here is a **12-week plan**:\n\n1. Weeks 1–4: easy runs.\n2. Weeks 5–8: intervals.\n\n"
        "Registration: https://www.leipzig-marathon.de/en/registration-and-race-information\n\n"
        "```python\nweekly_km = [22, 24, 26, 20, 28, 30, 32, 25, 34, 36, 30, 20]  "
        "# planned distance per week\n```",
        "memories": [
            ("Wants to run a half marathon this autumn", "goal"),
            ("Prefers concise answers with code examples", "preference"),
            ("Always double-check time zones when scheduling lessons abroad", "lesson"),
        ],
        "edited": "Prefers concise answers with short code examples",
        "deleted": ("Lives in Berlin", "fact"),
        "suggestion": "Can run four days a week",
        "homes": ("I live in Leipzig", "We moved to Dresden in the spring"),
        "token": "Work laptop (Firefox)",
        "program": "Keeps the spare key under the blue flowerpot",
        "chats": ("Moving plans and a bike", "Old tax question"),
        "keeping": {
            "destination": "Leipzig",
            "date": "2026-10-18",
            "budget": "about 150 EUR for the entry fee and the train",
            "weekly runs": {"easy": 3, "long": 1},
        },
    },
    "zh-hans": {
        "title": "为十月的莱比锡半程马拉松制定训练计划",
        "question": "我想参加今年秋天的莱比锡半程马拉松，能帮我制定一个十二周的训练计划吗？",
        "answer": "这是一个**十二周计划**：\n\n1. 第1–4周：轻松跑。\n2. 第5–8周：间歇跑。\n\n"
        "报名：https://www.leipzig-marathon.de/en/registration-and-race-information\n\n"
        "```python\nweekly_km = [22, 24, 26, 20, 28, 30, 32, 25, 34, 36, 30, 20]  # 每周计划跑量\n"
        "```",
        "memories": [
            ("想在今年秋天跑一次半程马拉松", "goal"),
            ("喜欢简洁、带代码示例的回答", "preference"),
            ("和国外的学生约课时一定要再核对一次时区", "lesson"),
        ],
        "edited": "喜欢简洁、带简短代码示例的回答",
        "deleted": ("住在柏林", "fact"),
        "suggestion": "每周可以跑四天",
        "homes": ("我住在莱比锡", "我们春天搬到了德累斯顿"),
        "token": "工作用的笔记本电脑（Firefox）",
        "program": "备用钥匙放在蓝色花盆下面",
        "chats": ("搬家以后的周末安排", "以前的报税问题"),
        "keeping": {
            "destination": "莱比锡",
            "date": "2026年10月18日",
            "budget": "报名费和火车票大约一千二百元",
            "每周跑步": {"轻松跑": 3, "长距离": 1},
        },
    },
}

# Everything that sticks out past the viewport's right edge (or starts left of it), and the page's own width.
# Code blocks scroll sideways on purpose; what is clipped by a scrolling or hidden-overflow box is inside it.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (el.classList.length ? '.' + [...el.classList].join('.') : '');
  const clipped = (el) => {
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement)
      if (getComputedStyle(up).overflowX !== 'visible') return true;
    return false;
  };
  const found = [];
  if (document.documentElement.scrollWidth > width)
    found.push(`the page is ${document.documentElement.scrollWidth} px wide in a ${width} px window`);
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('pre') || clipped(el)) continue;
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (box.width === 0 || box.height === 0 || style.visibility === 'hidden') continue;
    if (style.position === 'absolute' && style.clip === 'rect(0px, 0px, 0px, 0px)') continue;  // screen-reader text
    if (box.right > width + 0.5 || box.left < -0.5)
      found.push(`${name(el)} spans ${Math.round(box.left)}..${Math.round(box.right)} px`);
  }
  return found;
}"""

# On a Chinese page: visible text that is still English (three words in a row, outside code, links' own URLs
# and what is marked translate="no"), or a Western colon, semicolon or mark right after Chinese text.
# User-written content is seeded in Chinese; names and product words are a word or two, below the bar.
UNTRANSLATED = r"""() => {
  const found = new Set();
  const english = /[A-Za-z]{2,}(?:[ '’-]+[A-Za-z]{2,}){2,}/;
  const western = /[\u4e00-\u9fff][:;!?,](?![/])/;
  const skip = (el) => el.closest('pre, code, kbd, samp, script, style, [translate=no], [hidden], template');
  const visible = (el) => { const box = el.getBoundingClientRect(); return box.width > 0 && box.height > 0; };
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (el && !skip(el) && visible(el)) texts.push(node.textContent);
  }
  for (const el of document.body.querySelectorAll('[title], [placeholder], [aria-label], img[alt]'))
    if (!skip(el)) for (const name of ['title', 'placeholder', 'aria-label', 'alt'])
      if (el.getAttribute(name)) texts.push(el.getAttribute(name));
  for (const raw of texts) {
    const text = raw.replace(/https?:\/\/\S+/g, ' ').replace(/\s+/g, ' ').trim();
    const words = text.match(english);
    if (words) found.add(`English on a Chinese page: "${words[0]}" in "${text.slice(0, 80)}"`);
    const mark = text.match(western);
    if (mark) found.add(`a Western "${mark[0].slice(-1)}" after Chinese: "${text.slice(0, 80)}"`);
  }
  return [...found];
}"""

ICON = "() => document.querySelector('link[rel~=icon]')?.href || new URL('/favicon.ico', location.href).href"

AXE_RUN = """async (tags) => {
  const results = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
  return results.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => n.target.join(' ')
      + (n.failureSummary ? ' — ' + n.failureSummary.split('\\n').slice(1).join(' ').trim() : '')),
  }));
}"""


# --- The pages, from the URLconf ------------------------------------------------------------------


@dataclass
class Route:
    name: str  # the route's name (with its namespace), or its pattern when unnamed
    pattern: str  # the whole path pattern, as written in the URLconf

    def path(self, params: dict[str, object]) -> str:
        def fill(match: re.Match[str]) -> str:
            if match["name"] not in params:
                raise KeyError(f"{self.name} ({self.pattern}): no value for <{match['name']}>; add one to the seed")
            return str(params[match["name"]])

        return "/" + re.sub(r"<(?:\w+:)?(?P<name>\w+)>", fill, self.pattern)


def url_routes(resolver: URLResolver | None = None, prefix: str = "", namespace: str = "") -> list[Route]:
    """Every route of the URLconf, includes walked, with its whole pattern."""
    resolver = resolver or get_resolver()
    routes = []
    for entry in resolver.url_patterns:
        pattern = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            routes += url_routes(entry, pattern, inner)
        elif isinstance(entry, URLPattern):
            routes.append(Route(f"{namespace}{entry.name}" if entry.name else pattern, pattern))
    return routes


@dataclass
class Sweep:
    """What the probe made of the URLconf: the pages to sweep (path and who sees it) and what is not one."""

    pages: dict[str, tuple[str, str]] = field(default_factory=dict)  # name: (path, "visitor" or "alice")
    refused_get: list[str] = field(default_factory=list)
    redirects: list[str] = field(default_factory=list)
    unexplained: list[str] = field(default_factory=list)  # neither a page, nor refusing GET, nor excluded
    wrongly_excluded: list[str] = field(default_factory=list)  # in NOT_PAGES, yet a page


def _pattern_at(path: str) -> str:
    """The URLconf pattern that serves `path`, or "" (a static file, say)."""
    try:
        return resolve(path).route
    except Resolver404:
        return ""


def _is_page(response) -> bool:
    return (
        response.status == 200
        and response.headers.get("content-type", "").startswith("text/html")
        and "<html" in response.text()[:1000].lower()
    )


def probe(
    routes: list[Route], params: dict[str, object], visitor: BrowserContext, alice: BrowserContext, base: str
) -> Sweep:
    """GET each route as a visitor and, where that lands on the login page, as alice; redirects followed."""
    sweep = Sweep()
    login = reverse("login")
    for route in routes:
        if route.pattern.startswith(tuple(EXCLUDED_PREFIXES)):
            continue
        path = route.path(params)
        url = path + (f"?{params[QUERIES[route.name]]}" if route.name in QUERIES else "")
        who, response = "visitor", visitor.request.get(base + url)
        if urlsplit(response.url).path == login and path != login:
            who, response = "alice", alice.request.get(base + url)
        landed = urlsplit(response.url).path
        if route.name in NOT_PAGES:
            if _is_page(response):
                sweep.wrongly_excluded.append(f"{route.name} ({path}), excluded as {NOT_PAGES[route.name]!r}")
        elif response.status == 405:
            sweep.refused_get.append(route.name)
        elif landed != path and _pattern_at(landed) != route.pattern:
            # Only sends the browser on (set_language, a static file): swept where it lands, if that is a page.
            sweep.redirects.append(route.name)
        elif _is_page(response):
            sweep.pages[route.name] = (url, who)
        else:
            kind = response.headers.get("content-type", "").split(";")[0]
            what = "an HTML fragment" if response.status == 200 and kind == "text/html" else f"{response.status} {kind}"
            sweep.unexplained.append(f"{route.name} ({path}) answers GET with {what}")
    return sweep


# --- The test's objects ------------------------------------------------------------------------------


def _seed(alice, language: str) -> dict[str, object]:
    """A chat with a cited answer, memories (one edited, so its history has two versions; one deleted),
        a pending suggestion, a question about two homes, a finished import, an API token and an OAuth client asking
    for consent: the parameters every route of the URLconf needs."""
    text = SEED[language]
    memories = [add_memory(alice, content, kind=kind, importance=0.7).memory for content, kind in text["memories"]]
    edited = edit_memory(memories[1], {"content": text["edited"]}).memory
    delete_memory(add_memory(alice, text["deleted"][0], kind=text["deleted"][1]).memory)
    chat = Conversation.objects.create(user=alice, title=text["title"])
    Message.objects.create(conversation=chat, role=Role.USER, content=text["question"])
    answer = Message.objects.create(conversation=chat, role=Role.ASSISTANT, content=text["answer"])
    for rank, memory in enumerate([memories[0], edited], start=1):
        Citation.objects.create(message=answer, memory=memory, score=0.9 - rank / 10, rank=rank)
    chat_state.put(alice.pk, chat_state.chat_session(chat.pk), text["keeping"], by="chat")  # "Keeping in mind"
    suggestion = MemorySuggestion.objects.create(
        user=alice, conversation=chat, content=text["suggestion"], kind="fact", importance=0.5, confidence=0.8
    )
    question = conflicts.ask(alice.pk, *(add_memory(alice, home, kind="fact").memory for home in text["homes"]))
    token = create_token(alice, text["token"])[0]
    client = get_application_model().objects.create(
        name="Claude",
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="https://claude.ai/api/mcp/auth_callback",
    )
    with clients.acting_for(clients.token_client(token.pk)):  # App activity and a history name programs
        add_memory(alice, text["program"], kind="fact")
    MemoryEvent.objects.create(
        user=alice,
        memory=memories[0],
        memory_ref=memories[0].pk,
        action=EventAction.ACCESSED,
        actor=Actor.API,
        client=clients.app_client(client.pk),
        after={"uses": 2, "reads": 1, "conversations": []},
    )
    oauth_request = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": client.redirect_uris,
        "state": "sweep",
        "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        "code_challenge_method": "S256",
        "scope": "memories:read memories:write",
        "resource": "http://127.0.0.1/mcp",
    }
    job = ImportJob.objects.create(user=alice, status=RunStatus.DONE, total=2, done=2, imported=2)
    # An export from ChatGPT waiting for its preview's Start, and an earlier one learnt (the memories page
    # shows its line and Undo).
    rows = [
        [f"c{n}", title, f"2024-0{n}-02T10:00:00+00:00", 3, 6, n == 2, False, 300]
        for n, title in enumerate(text["chats"], 1)
    ]
    history = HistoryImport.objects.create(user=alice, format="chatgpt", name="chatgpt-export.zip", rows=rows)
    HistoryImport.objects.create(
        user=alice,
        format="claude",
        name="claude.zip",
        status=HistoryImportStatus.DONE,
        total=2,
        done=2,
        created=3,
        superseded=1,
        finished_at=timezone.now(),
        skipped=[f"“{text['chats'][0]}”: a message over 1 MB was left out"],
    )
    return {
        "conversation_id": chat.pk,
        "message_id": answer.pk,
        "memory_id": edited.pk,
        "suggestion_id": suggestion.pk,
        "question_id": question.pk,
        "answer": "keep",
        "job_id": job.pk,
        "history_id": history.pk,
        "uidb64": urlsafe_base64_encode(force_bytes(alice.pk)),
        "token": default_token_generator.make_token(alice),
        "client_id": client.client_id,
        "oauth_request": urlencode(oauth_request),
    }


def _session(user) -> str:
    """A signed-in session for `user`, without the login form's password hashing (the form is swept too)."""
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def import_a_bad_file(page: Page) -> None:
    """The memories page's import, given rows that do not validate: the report lists each bad row."""
    page.set_input_files(
        "#import-form input[type=file]",
        files=[
            {
                "name": "memories.json",
                "mimeType": "application/json",
                "buffer": b'[{"content": ""}, {"content": "Likes tea", "kind": "nonsense"}]',
            }
        ],
    )
    page.locator("#import-form button[type=submit]").click()
    page.locator("#import-report .row-errors li").first.wait_for()


def preview_pasted_memories(page: Page) -> None:
    """The memories page's paste box: the preview page lists each line, a refused one with its reason."""
    page.locator("#paste-box summary").click()
    page.fill("#paste-input", "- 2023-05-02: Lives in Chengdu\n• 我对花生过敏（2023年5月）\n- My password is hunter2")
    page.locator("#paste-box button[type=submit]").click()
    page.locator("#paste-preview tr.refused").wait_for()


# What a GET page becomes after one of its forms answers (in place, or with a page of its own).
def upload_what_is_not_an_export(page: Page) -> None:
    """The memories page's import from ChatGPT or Claude, given a file of neither: sent in parts, read, and
    one sentence under the form; nothing kept."""
    page.locator("#history-box summary").click()
    page.set_input_files(
        "#history-file", files=[{"name": "notes.json", "mimeType": "application/json", "buffer": b'{"notes": []}'}]
    )
    page.locator("#history-upload").click()
    page.locator("#history-upload-status[role=alert]").wait_for()


def open_what_the_chat_keeps_in_mind(page: Page) -> None:
    """The chat's "Keeping in mind" panel whole (folded on a phone), with its Add form and an entry's Edit open."""
    page.locator("#chat-state .state-entry").first.wait_for(state="attached")
    page.evaluate(
        "for (const box of document.querySelectorAll('#chat-state, #chat-state .state-add, #chat-state .state-edit'))"
        " box.open = true"
    )


AFTER_FORMS = {
    "conversation": [("keeping in mind", open_what_the_chat_keeps_in_mind)],
    "memories": [
        ("import-report", import_a_bad_file),
        ("paste-preview", preview_pasted_memories),
        ("history-upload-status", upload_what_is_not_an_export),
    ],
}


# --- One page, checked ----------------------------------------------------------------------------


def check_page(
    page: Page, url: str, shot: str, action: Callable[[Page], None] | None = None, language: str = "en"
) -> list[str]:
    """Open `url` (and do `action` there) and list what is wrong: console errors, failed requests, overflow,
    axe violations, and on a Chinese page English text or a Western colon after Chinese."""
    problems: list[str] = []
    in_flight: set[object] = set()

    def on_console(msg) -> None:
        if msg.type == "error":
            problems.append(f"console error: {msg.text} (at {msg.location.get('url', '')})")

    def on_failed(request) -> None:
        in_flight.discard(request)
        problems.append(f"request failed: {request.method} {request.url} ({request.failure})")

    def on_response(response) -> None:
        if response.status >= 400:
            problems.append(f"request failed: {response.request.method} {response.url} answered {response.status}")

    listeners = {
        "console": on_console,
        "pageerror": lambda exc: problems.append(f"uncaught error: {exc}"),
        "request": lambda request: in_flight.add(request),
        "requestfinished": lambda request: in_flight.discard(request),
        "requestfailed": on_failed,
        "response": on_response,
    }
    for event, listener in listeners.items():
        page.on(event, listener)
    try:
        page.goto(url)
        if action:
            action(page)
        # What the page loads after `load` (htmx's hx-trigger="load", scripts' fetches) has settled once nothing
        # has been in flight for 150 ms: Playwright's networkidle waits 500 ms for the same.
        quiet = 0
        while quiet < 3:
            page.wait_for_timeout(50)
            quiet = 0 if in_flight else quiet + 1
        # A headless browser does not fetch the tab's icon; a person's browser does, on every page.
        icon = page.evaluate(ICON)
        answer = page.request.get(icon)
        if answer.status >= 400:
            problems.append(f"request failed: GET {icon} (the tab's icon) answered {answer.status}")
        problems += [f"overflow: {item}" for item in page.evaluate(OVERFLOW)]
        if language == "zh-hans":
            problems += page.evaluate(UNTRANSLATED)
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(SHOTS) / f"{shot}.png"), full_page=True)
        for violation in page.evaluate(AXE_RUN, AXE_TAGS):
            nodes = "; ".join(violation["nodes"][:4]) + (" …" if len(violation["nodes"]) > 4 else "")
            problems.append(f"axe {violation['id']} ({violation['impact']}): {violation['help']}: {nodes}")
        page.goto("about:blank")  # leave the page (its socket closes) while the listeners still hear it
    finally:
        for event, listener in listeners.items():
            page.remove_listener(event, listener)
    return problems


def _context(browser: Browser, base: str, language: str, viewport: str, session: str = "") -> BrowserContext:
    context = browser.new_context(viewport=VIEWPORTS[viewport], locale=LANGUAGES[language])
    context.add_cookies(
        [{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": base}]
        + ([{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": base}] if session else [])
    )
    context.add_init_script(path=AXE)  # not a <script> tag, which the pages' CSP (script-src 'self') refuses
    return context


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("language", list(LANGUAGES))
def test_it_sweeps_every_page_clean(browser: Browser, offline_server, alice, language, viewport):
    assert AXE.is_file(), f"{AXE} is missing: run scripts/build-static.sh (npm ci installs axe-core)"
    params = off_loop(_seed, alice, language)
    base = offline_server.url
    visitor = _context(browser, base, language, viewport)
    signed_in = _context(browser, base, language, viewport, off_loop(_session, alice))
    try:
        routes = url_routes()
        sweep = probe(routes, params, visitor, signed_in, base)
        assert not sweep.unexplained, (
            "routes that are neither a page nor refuse GET; sweep them (a whole HTML "
            "document) or name them in NOT_PAGES with why:\n" + "\n".join(sweep.unexplained)
        )
        assert not sweep.wrongly_excluded, (
            "NOT_PAGES names routes that serve a whole page; take them out, "
            "so they are swept:\n" + "\n".join(sweep.wrongly_excluded)
        )
        print(
            f"{len(sweep.pages)} pages: {', '.join(sweep.pages)}; refuse GET: {', '.join(sweep.refused_get)}; "
            f"redirect: {', '.join(sweep.redirects)}"
        )
        assert MUST_SWEEP <= set(sweep.pages), f"pages the sweep did not find: {MUST_SWEEP - set(sweep.pages)}"
        stale = set(NOT_PAGES) - {route.name for route in routes}
        assert not stale, f"NOT_PAGES names routes the URLconf no longer has: {stale}"

        found = {}
        pages = {"visitor": visitor.new_page(), "alice": signed_in.new_page()}
        for name, (path, who) in sweep.pages.items():
            for step, action in [("", None)] + AFTER_FORMS.get(name, []):
                label = f"{name}{' ' + step if step else ''}"
                problems = check_page(
                    pages[who], base + path, f"{label}-{language}-{viewport}".replace(" ", "-"), action, language
                )
                if problems:
                    found[f"{label} {path} as {who}"] = problems
        report = "\n".join(f"{where}:\n  " + "\n  ".join(problems) for where, problems in found.items())
        count = sum(len(problems) for problems in found.values())
        assert not found, (
            f"{count} problems on {len(found)} of {len(sweep.pages)} pages ({language}, {viewport}):\n{report}"
        )
    finally:
        visitor.close()
        signed_in.close()
        off_loop(chat_state.clear_user, alice.pk)
