"""Markdown from the model, rendered to HTML that is safe to put in the page."""

from __future__ import annotations

import nh3
from markdown_it import MarkdownIt

# Raw HTML in the source stays text (html=False); nh3 is the second fence for links and attributes.
_md = MarkdownIt("commonmark", {"html": False, "linkify": False, "breaks": True}).enable("table")
_TAGS = {
    "p",
    "br",
    "strong",
    "em",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "a",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "del",
}


def render_markdown(text: str) -> str:
    html = _md.render(text or "")
    html = nh3.clean(
        html,
        tags=_TAGS,
        attributes={"a": {"href", "title"}, "code": {"class"}},
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
    # A code block scrolls sideways when its lines are long: focusable, so a keyboard can scroll it (WCAG 2.1.1).
    return html.replace("<pre>", '<pre tabindex="0">')
