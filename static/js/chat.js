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

  composer.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { // isComposing: CJK input methods
      e.preventDefault();
      composer.requestSubmit();
    }
  });
  document.body.addEventListener("htmx:wsAfterSend", (e) => {
    if (e.target === composer) composer.reset();
  });
  document.body.addEventListener("htmx:wsAfterMessage", scrollDown);
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey && e.shiftKey && (e.key === "T" || e.key === "t")) {
      e.preventDefault();
      document.getElementById("temporary-toggle").click();
    }
  });

  function notice(memory) {
    const box = document.createElement("div");
    box.className = "memory-notice";
    box.dataset.memoryId = memory.id;
    const text = document.createElement("span");
    text.textContent = `${t.tUpdated} «${memory.content}» `;
    const view = document.createElement("a");
    view.href = `/settings/memories?focus=${encodeURIComponent(memory.id)}`;
    view.textContent = `[${t.tView}]`;
    const undo = document.createElement("button");
    undo.type = "button";
    undo.className = "link undo";
    undo.textContent = `[${t.tUndo}]`;
    undo.addEventListener("click", () => undoMemory(memory.id, box, undo));
    box.append(text, view, " ", undo);
    notices.querySelector(`[data-memory-id="${memory.id}"]`)?.remove();
    notices.append(box);
  }

  async function undoMemory(id, box, button) {
    button.disabled = true;
    const url = t.undoUrl.replace(/\/0\/undo\/$/, `/${id}/undo/`);
    const response = await fetch(url, { method: "POST", headers: { "X-CSRFToken": t.csrf }, credentials: "same-origin" });
    box.textContent = response.ok ? t.tUndone : t.tUndoFailed;
    box.classList.add(response.ok ? "undone" : "failed");
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
