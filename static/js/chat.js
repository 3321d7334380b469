// The chat page's few behaviours htmx does not cover: keyboard, scrolling, a plain notice's fading.
(function () {
  "use strict";
  const chat = document.getElementById("chat");
  if (!chat) return;
  const composer = document.getElementById("composer");
  const messages = document.getElementById("messages");
  const notices = document.getElementById("notices");
  const url = chat.dataset.chatUrl;

  const scrollDown = () => { messages.scrollTop = messages.scrollHeight; };
  scrollDown();
  document.body.addEventListener("htmx:wsAfterMessage", scrollDown);
  // On a phone the list of chats folds to one line ("Your chats"), so the message box is in view on load.
  const phone = window.matchMedia("(max-width: 700px)");
  const fitList = () => {
    for (const id of ["chat-list", "chat-state"]) document.getElementById(id).open = !phone.matches;
  };
  fitList();
  phone.addEventListener("change", fitList);

  // The message box's hint whole: where the long one would be cut off (a phone), the short one. Measured
  // as the box's own text while it is empty, at each new size.
  const box = composer.querySelector("textarea");
  const hints = [box.placeholder, box.dataset.shortPlaceholder];
  new ResizeObserver(() => {
    if (box.value) return;
    box.value = hints[0];
    const fits = box.scrollHeight <= box.clientHeight;
    box.value = "";
    box.placeholder = fits ? hints[0] : hints[1];
  }).observe(box);

  // The "Keeping in mind" list, redrawn when the chat's entries change elsewhere (memoryapp/web/consumers.py),
  // stays as it is while one of its entries is being edited: the edit's own answer brings the list anew.
  document.body.addEventListener("htmx:oobBeforeSwap", (e) => {
    if (e.detail.target.id === "chat-state-list" && e.detail.target.querySelector(".state-edit[open]")) {
      e.detail.shouldSwap = false;
    }
  });

  // An opened citation chip shows its card whole: the last reply's chips sit at the list's lower edge.
  messages.addEventListener("toggle", (e) => {  // toggle does not bubble: caught on the way down
    if (e.target.matches("details.chip") && e.target.open) e.target.scrollIntoView({ block: "nearest" });
  }, true);

  composer.addEventListener("keydown", (e) => {  // isComposing: CJK input methods
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); composer.requestSubmit(); }
  });
  // A fresh chat opens at / and takes its own address (/c/<id>/) with its first message, in place of /
  // in the history: reload, back and forward, a bookmark and the language picker all come back to it.
  document.body.addEventListener("htmx:wsAfterSend", (e) => {
    if (e.target !== composer) return;
    composer.reset();
    if (location.pathname === url) return;
    history.replaceState(history.state, "", url);
    for (const next of document.querySelectorAll("input[name=next]")) next.value = url;
  });

  // The server renders what this chat learnt into #notices (memoryapp/web/consumers.py): a line with [undo]
  // stays until closed; a plain line (after an undo) stays long enough to read (WCAG 2.2.1), 20 s or more
  // for a longer text, and hovering or focusing it holds it (checked again once :hover no longer matches).
  let fadeTimer = null;
  const plain = () => notices.querySelector(".memory-notice.plain");
  const hold = () => { clearTimeout(fadeTimer); plain()?.classList.remove("fading"); };
  function fadeLater() {
    hold();
    const box = plain();
    if (!box || box.matches(":hover, :focus-within")) return;
    const fade = () => { box.classList.add("fading"); fadeTimer = setTimeout(() => box.remove(), 1000); };
    fadeTimer = setTimeout(fade, Math.max(20, box.textContent.length / 8) * 1000);
  }
  notices.addEventListener("htmx:afterSettle", fadeLater);
  for (const type of ["mouseover", "focusin"]) notices.addEventListener(type, hold);
  for (const type of ["mouseleave", "focusout"]) notices.addEventListener(type, () => setTimeout(fadeLater));
})();
