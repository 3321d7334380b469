// The chat page's few behaviours htmx does not cover: keyboard, scrolling, and the
// "memory updated" notices from /ws/memories/ (JSON events, rendered here with textContent).
(function () {
  "use strict";
  const chat = document.getElementById("chat");
  if (!chat) return;
  const composer = document.getElementById("composer");
  const messages = document.getElementById("messages");
  const notices = document.getElementById("notices");
  const conversationId = Number(chat.dataset.conversationId);
  const t = chat.dataset;

  const scrollDown = () => { messages.scrollTop = messages.scrollHeight; };
  scrollDown();

  // On a phone the list of chats folds to one line ("Your chats"), so the message box is in view on load.
  const chatList = document.getElementById("chat-list");
  const phone = window.matchMedia("(max-width: 700px)");
  const fitList = () => { chatList.open = !phone.matches; };
  fitList();
  phone.addEventListener("change", fitList);

  composer.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { // isComposing: CJK input methods
      e.preventDefault();
      composer.requestSubmit();
    }
  });
  // A fresh chat opens at / and takes its own address (/c/<id>/) with its first message, in place of /
  // in the history: reload, back and forward, a bookmark and the language picker all come back to it.
  function ownAddress() {
    if (location.pathname === t.chatUrl) return;
    history.replaceState(history.state, "", t.chatUrl);
    for (const next of document.querySelectorAll("input[name=next]")) next.value = t.chatUrl;
  }
  document.body.addEventListener("htmx:wsAfterSend", (e) => {
    if (e.target !== composer) return;
    composer.reset();
    ownAddress();
  });
  document.body.addEventListener("htmx:wsAfterMessage", scrollDown);

  // What this chat learnt lately, shown as one line: the newest memory with [view] [undo], a count when
  // there were several, and the memories page (where each one can be undone) one click away. A line that
  // offers an action stays until it is closed (×) or replaced; a plain line (after an undo) stays long
  // enough to read (WCAG 2.2.1), and hovering or focusing it holds it.
  const inNotice = new Map();  // id -> memory, newest last
  let fadeTimer = null;

  function noticeBox() {
    let box = notices.querySelector(".memory-notice");
    if (!box) {
      box = document.createElement("div");
      box.className = "memory-notice";
      box.addEventListener("mouseenter", holdNotice);
      box.addEventListener("focusin", holdNotice);
      box.addEventListener("mouseleave", () => setTimeout(fadeLater));  // once :hover no longer matches
      box.addEventListener("focusout", () => setTimeout(fadeLater));
      notices.append(box);
    }
    return box;
  }

  function closeNotice() {
    clearTimeout(fadeTimer);
    notices.querySelector(".memory-notice")?.remove();
    inNotice.clear();
  }

  function closeButton() {
    const close = document.createElement("button");
    close.type = "button";
    close.className = "link close";
    close.textContent = "×";
    close.title = t.tClose;
    close.setAttribute("aria-label", t.tClose);
    close.addEventListener("click", closeNotice);
    return close;
  }

  function holdNotice() { clearTimeout(fadeTimer); notices.querySelector(".memory-notice")?.classList.remove("fading"); }

  // Only a plain line fades: at least 20 s, longer for a longer text.
  function fadeLater() {
    clearTimeout(fadeTimer);
    const box = notices.querySelector(".memory-notice");
    if (!box || !box.classList.contains("plain")) return;
    if (box.matches(":hover, :focus-within")) return;  // held
    const seconds = Math.max(20, box.textContent.length / 8);
    fadeTimer = setTimeout(() => {
      box.classList.add("fading");  // chat.css fades it out over a second
      fadeTimer = setTimeout(closeNotice, 1000);
    }, seconds * 1000);
  }

  function link(href, label, className) {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = label;
    if (className) a.className = className;
    return a;
  }

  function notice(memory) {
    inNotice.delete(memory.id);  // an update of one already shown counts once, as the newest
    inNotice.set(memory.id, memory);
    const box = noticeBox();
    holdNotice();
    box.className = "memory-notice";
    box.dataset.memoryId = memory.id;
    const text = document.createElement("span");
    text.className = "notice-text";
    const lead = inNotice.size > 1 ? t.tUpdatedMany.replace("{count}", inNotice.size) : t.tUpdated;
    text.textContent = `${lead} «${memory.content}»`;
    text.title = memory.content;
    const undo = document.createElement("button");
    undo.type = "button";
    undo.className = "link undo";
    undo.textContent = `[${t.tUndo}]`;
    undo.addEventListener("click", () => undoMemory(memory.id, box, undo));
    const view = link(`/settings/memories?focus=${encodeURIComponent(memory.id)}`, `[${t.tView}]`);
    box.replaceChildren(text, " ", view, " ", undo);
    if (inNotice.size > 1) {
      const all = link("/settings/memories", `[${t.tAll}]`, "all-memories");
      all.title = t.tAllTitle;
      box.append(" ", all);
    }
    box.append(closeButton());
  }

  async function undoMemory(id, box, button) {
    button.disabled = true;
    const url = t.undoUrl.replace(/\/0\/undo\/$/, `/${id}/undo/`);
    const response = await fetch(url, { method: "POST", headers: { "X-CSRFToken": t.csrf }, credentials: "same-origin" });
    if (response.ok) inNotice.delete(id);
    const text = document.createElement("span");
    text.className = "notice-text";
    text.textContent = response.ok ? t.tUndone : t.tUndoFailed;
    box.replaceChildren(text, closeButton());
    box.classList.add("plain", response.ok ? "undone" : "failed");
    fadeLater();
  }

  // The htmx ws extension keeps the socket open (reconnecting with backoff); its frames are JSON,
  // handled here and kept from htmx's swap.
  const events = document.getElementById("memory-events");
  events.addEventListener("htmx:wsBeforeMessage", (e) => {
    e.preventDefault();
    const data = JSON.parse(e.detail.message);
    const memory = data.memory || {};
    const learnt = data.event === "memory.created" || data.event === "memory.updated";
    if (learnt && memory.source_conversation_id === conversationId && memory.status === "active") notice(memory);
  });
})();
