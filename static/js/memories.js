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
        const card = document.getElementById("memory-" + id);
        htmx.process(card);
        card.classList.add("fresh");
        const empty = document.getElementById("empty-state");
        if (empty) empty.remove();
      });
  }

  function onEvent(message) {
    const memory = message.memory || {};
    if (!memory.id) return;
    const card = document.getElementById("memory-" + memory.id);
    if (card && memory.action === "purged") card.remove();  // gone for good: no card to fetch
    else if (card && !card.classList.contains("editing")) {
      if (card.dataset.sig !== signature(memory)) refreshCard(card, memory.id);  // else: already shows it
    }
    // New memories join the list only when it shows everything current (no filter would hide them).
    else if (!card && message.event === "memory.created" && root.dataset.liveInsert === "1") insertCard(memory.id);
  }

  let retry = 1000;
  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + location.host + "/ws/memories/");
    socket.addEventListener("open", () => { setLive(true); retry = 1000; root.dataset.live = "1"; });
    socket.addEventListener("message", (e) => { try { onEvent(JSON.parse(e.data)); } catch (err) { console.warn(err); } });
    socket.addEventListener("close", () => {
      setLive(false);
      root.dataset.live = "0";
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 30000);
    });
  }
  connect();

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
