// Settings > Memories: live updates over /ws/memories/, focus, and the import progress bar.
// The page works without this file; it only adds what a plain page cannot do.
(function () {
  "use strict";
  const root = document.getElementById("memories-root");
  if (!root) return;
  const list = document.getElementById("memory-list");
  const live = document.getElementById("live-status");
  const cardUrl = (id) => root.dataset.cardUrl.replace("/0/", "/" + encodeURIComponent(id) + "/");

  function setLive(on) {
    live.dataset.state = on ? "on" : "off";
    live.textContent = on ? live.dataset.on : live.dataset.off;
  }

  // The same fields, formatted the same way, as the card's data-sig (see _memory_card.html).
  function signature(m) {
    return [m.status, m.kind, Number(m.importance).toFixed(4), m.valid_until ? 0 : 1, m.access_count].join("|");
  }

  function refreshCard(card, id) {
    const historyOpen = card.querySelector(".mem-history").childElementCount > 0;
    htmx.ajax("GET", cardUrl(id), { target: card, swap: "outerHTML" }).then(() => {
      const link = historyOpen && document.querySelector("#memory-" + id + " a[href$='/history']");
      if (link) htmx.trigger(link, "click");  // keep the history the reader had open
    });
  }

  function insertCard(id) {
    fetch(cardUrl(id), { headers: { "HX-Request": "true" }, credentials: "same-origin" })
      .then((r) => (r.ok ? r.text() : ""))
      .then((html) => {
        if (!html || document.getElementById("memory-" + id)) return;
        list.insertAdjacentHTML("afterbegin", html);
        const card = list.firstElementChild;
        htmx.process(card);
        card.classList.add("fresh");
        dropDuplicates();
        const empty = document.getElementById("empty-state");
        if (empty) empty.remove();
      });
  }

  // An edit's reply and the live event of the version it created can both bring the new card (the event
  // may land while the edit's request is in flight): keep the card the user acted on, drop the live copy.
  function dropDuplicates() {
    const byId = new Map();
    for (const card of list.querySelectorAll(".memory-card")) {
      const other = byId.get(card.id);
      if (!other) { byId.set(card.id, card); continue; }
      const extra = other.classList.contains("fresh") ? other : card;
      if (extra === other) byId.set(card.id, card);
      extra.remove();
    }
  }
  document.body.addEventListener("htmx:afterSettle", dropDuplicates);

  function onEvent(message) {
    const memory = message.memory || {};
    if (!memory.id) return;
    htmx.trigger(document.body, "memories-changed");  // the counts above the list refetch (_stats.html)
    const card = document.getElementById("memory-" + memory.id);
    if (card && memory.action === "purged") card.remove();  // gone for good: no card to fetch
    else if (card && !card.classList.contains("editing")) {
      if (card.dataset.sig !== signature(memory)) refreshCard(card, memory.id);  // else: already shows it
    }
    // New memories join the list only when it shows everything current (no filter would hide them).
    else if (!card && message.event === "memory.created" && root.dataset.liveInsert === "1") insertCard(memory.id);
  }

  // The htmx ws extension keeps the socket open (reconnecting with backoff); its frames are JSON,
  // handled here and kept from htmx's swap.
  const events = document.getElementById("memory-events");
  events.addEventListener("htmx:wsOpen", () => { setLive(true); root.dataset.live = "1"; });
  events.addEventListener("htmx:wsClose", () => { setLive(false); root.dataset.live = "0"; });
  events.addEventListener("htmx:wsBeforeMessage", (e) => {
    e.preventDefault();
    try { onEvent(JSON.parse(e.detail.message)); } catch (err) { console.warn(err); }
  });

  const focused = document.querySelector(".memory-card.focus");
  if (focused) { focused.scrollIntoView({ block: "center" }); focused.focus(); }

  const bar = document.getElementById("import-progress");
  document.body.addEventListener("htmx:xhr:progress", (e) => {
    if (!bar || e.target.id !== "import-form" || !e.detail.lengthComputable) return;
    bar.hidden = false;
    bar.value = Math.round((e.detail.loaded / e.detail.total) * 100);
  });
  document.body.addEventListener("htmx:afterRequest", (e) => {
    if (bar && e.target.id === "import-form") bar.value = 100;
  });
})();
