// Settings > Memory graph. One JSON fetch (memories_graph_data), then everything happens here: the drawing
// (cytoscape on a canvas, a time-by-kind layout computed below, no force simulation), the list of the same
// nodes and links beside it, the kind and time filters, and the "as of" slider, which replays the changes
// one by one from the validity times the JSON carries, so a step asks the server nothing. A live mark on
// the memories channel (#graph-live) fetches the graph again.
(function () {
  "use strict";
  const root = document.getElementById("graph-root");
  if (!root || !window.cytoscape) return;
  const $ = (id) => document.getElementById(id);
  const T = JSON.parse($("graph-strings").textContent);
  const fill = (text, values) => text.replace(/\{(\w+)\}/g, (_, key) => values[key]);
  // A count in the form its number takes in the page's language (the forms come keyed by plural category).
  const plurals = new Intl.PluralRules(document.documentElement.lang || "en");
  const count = (forms, n) => fill(forms[plurals.select(n)] ?? forms.other, { count: n });
  const when = new Intl.DateTimeFormat(document.documentElement.lang || "en", { dateStyle: "medium", timeStyle: "short" });
  const KINDS = [...document.querySelectorAll("#graph-filters input[name=kind]")].map((box) => box.value);
  const COLOURS = { preference: "#c11574", fact: "#3b5bdb", lesson: "#b54708", goal: "#027a48",
                    context: "#0086c9", episode: "#5925dc", chat: "#475467", name: "#7a5af8", entity: "#0e9384" };
  const DAY = 86400000;
  // A name or entity linked to more memories than this is a hub: its lines would hide everything else and
  // cost most of the first frame, so they are drawn only while it, or one of its memories, is chosen (the
  // list always holds them all).
  const HUB = 12;
  // Screen pixels around the drawing, and the widest a resting label is drawn (cut short with "…" beyond):
  // the layout leaves half of it free beside the outermost nodes, so no label is cut off at the edge.
  const PAD = 30, LABEL = 120;
  const slider = $("graph-asof");
  let cy = null, nodes = [], links = [], times = [];

  // --- the data, as nodes that know their links -------------------------------------------------
  function read(json) {
    nodes = []; links = [];
    const byId = new Map();
    const add = (node) => { node.index = nodes.length; node.state = -1; node.members = []; node.joins = [];
                            nodes.push(node); byId.set(node.id, node); };
    for (const m of json.memories) add({ id: m.id, type: "memory", label: m.content, kind: m.kind, pk: m.pk,
                                         from: m.from, until: m.until, replaces: [], replacedBy: [] });
    for (const c of json.chats) add({ id: c.id, type: "chat", label: c.title || T.untitled, pk: c.pk });
    for (const n of json.names) add({ id: n.id, type: "name", label: n.name });
    for (const e of json.entities) add({ id: e.id, type: "entity", label: e.name, facts: (e.facts || []).map((f) => ({ label: f.text })) });
    for (const [source, target, type, label = "", from = null, until = null] of json.links) {
      const a = byId.get(source), b = byId.get(target);
      if (!a || !b) continue;
      const link = { index: links.length, a, b, type, from, until, label };
      links.push(link);
      if (type === "supersedes") { a.replaces.push(b); b.replacedBy.push(a); }
      else if (type === "fact") { a.facts.push(link); }
      else { b.members.push(a); a.joins.push(b); }
    }
    times = [...new Set(json.memories.flatMap((m) => (m.until == null ? [m.from] : [m.from, m.until])))]
      .sort((x, y) => x - y);
    const atNow = slider.max === "0" || slider.value === slider.max;
    slider.max = String(times.length);
    if (atNow) slider.value = slider.max;
    const notes = [json.truncated ? T.truncated : "", json.graph === "unavailable" ? T.graphDown : ""].filter(Boolean);
    $("graph-notes").textContent = notes.join(" ");
    $("graph-notes").hidden = !notes.length;
  }

  // --- where each node goes: time across, one lane per kind, versions of one memory on one line -------
  function hash(text) {
    let h = 2166136261;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
    return ((h >>> 0) % 1000) / 1000;
  }
  function oldest(node) {
    for (let seen = 0; node.replaces.length && seen < 100; seen++) node = node.replaces[0];
    return node.id;
  }
  function place() {
    const memories = nodes.filter((n) => n.type === "memory");
    // From the first change to the last, not to the clock: a reload for a live mark that changed nothing
    // draws every node where it was, so the drawing does not shift under the reader's pointer.
    const start = times.length ? times[0] : 0, end = times.length ? times[times.length - 1] : 0;
    // The drawing's own size in pixels, so a small graph is drawn at full size (on a phone too); a larger one
    // spreads wider, shown zoomed out, in the drawing's proportions.
    const box = $("graph-canvas");
    const room = { x: Math.max(box.clientWidth - 2 * PAD - LABEL, 100), y: Math.max(box.clientHeight - 2 * PAD - 30, 100) };
    const width = Math.max(room.x, Math.sqrt(memories.length) * 110);
    const x = (t) => (end > start ? ((t - start) / (end - start)) * width : width / 2);
    // Lanes top to bottom: chats, each kind present, shared names, entities.
    const lanes = ["chat", ...KINDS.filter((k) => memories.some((m) => m.kind === k)), "name", "entity"];
    const gap = (width * room.y) / room.x / lanes.length;
    const y = (lane, key) => lanes.indexOf(lane) * gap + hash(key) * gap * 0.7;
    // No node on another (memories learnt at one moment, names of the same memories): one that would come
    // within a node's width of one already placed steps down its lane, a few steps at most.
    const STEP = 16, taken = new Set();
    const cell = (p, i = 0, j = 0) => `${Math.round(p.x / STEP) + i},${Math.round(p.y / STEP) + j}`;
    const near = (p) => [-1, 0, 1].some((i) => [-1, 0, 1].some((j) => taken.has(cell(p, i, j))));
    const apart = (p) => {
      for (let tries = 0; tries < 8 && near(p); tries++) p.y += STEP;
      taken.add(cell(p));
      return p;
    };
    for (const m of memories) m.pos = apart({ x: x(m.from), y: y(m.kind, oldest(m)) });
    for (const n of nodes) {
      if (n.type === "memory") continue;
      const xs = n.members.map((m) => m.pos.x);
      n.pos = apart({ x: xs.length ? xs.reduce((s, v) => s + v, 0) / xs.length : width / 2, y: y(n.type, n.id) });
    }
  }

  // --- the drawing ------------------------------------------------------------------------------
  const short = (text) => (text.length > 60 ? text.slice(0, 59) + "…" : text);
  // A label as drawn: short, and breakable after each Chinese character (a zero-width space), as cytoscape
  // wraps a chosen node's label at spaces only.
  const labelText = (text) => short(text).replace(/[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]/g, "$&\u200b");
  // Labels in the page's own font (app.css), Chinese ones included, rather than cytoscape's Helvetica.
  const FONT = getComputedStyle(document.body).fontFamily;
  const STYLE = [
    // Few properties, and colours as data, on the thousand memory nodes: cytoscape works out every
    // element's style in the first frame (the most of it, cold), per selector matched and per property.
    // Memory nodes carry no label until pointed at or chosen (label() sets it): measuring a thousand labels
    // costs a frame. A label is one line, cut short, on white; none is drawn smaller than 8 px (zoom in).
    { selector: "node", style: { width: 12, height: 12, "background-color": "data(colour)" } },
    { selector: "node.chat, node.name, node.entity, node.hover, node:selected", style: { label: "data(label)", "font-size": 12,
      "min-zoomed-font-size": 8, "font-family": FONT, "text-valign": "bottom", "text-margin-y": 2, color: "#1d2330",
      "text-wrap": "ellipsis", "text-max-width": LABEL, "text-background-color": "#fff", "text-background-opacity": 0.85,
      "text-background-padding": 1 } },
    // A label that would cover another label or node waits for the pointer or a click (declutter()).
    { selector: "node.quiet", style: { label: "" } },
    { selector: "node.hover, node:selected", style: { label: "data(label)", "z-index": 10, "text-background-opacity": 1 } },
    // The chosen node's label whole, over a few lines.
    { selector: "node:selected", style: { "text-wrap": "wrap", "text-max-width": 180 } },
    { selector: "node.replaced", style: { "background-opacity": 0.12, "border-width": 2, "border-style": "dashed",
      "border-color": "data(colour)", color: "#667085" } },
    { selector: "node.chat", style: { shape: "round-rectangle", width: 18, height: 12 } },
    { selector: "node.name", style: { shape: "diamond", width: 14, height: 14 } },
    { selector: "node.entity", style: { shape: "hexagon", width: 16, height: 16 } },
    { selector: "edge", style: { width: 1, "line-color": "#b8bfcc", "curve-style": "haystack", "haystack-radius": 0, opacity: 0.55 } },
    { selector: "edge.supersedes", style: { width: 2, "line-color": "#3b5bdb", "curve-style": "straight", opacity: 1,
      "source-arrow-shape": "triangle", "source-arrow-color": "#3b5bdb" } },
    { selector: "edge.fact", style: { "line-color": "#0e9384", opacity: 0.8 } },
    { selector: ".off", style: { display: "none" } },
    { selector: "node:selected", style: { "border-width": 3, "border-style": "solid", "border-color": "#101828" } },
  ];
  function elements() {
    return [
      ...nodes.map((n) => ({ group: "nodes", position: n.pos, classes: n.type,
                             data: { id: n.id, label: n.type === "memory" ? "" : labelText(n.label),
                                     colour: n.type === "memory" ? COLOURS[n.kind] || "#3b5bdb" : COLOURS[n.type] } })),
      ...links.filter((l) => !isHub(l)).map(edge),
    ];
  }
  const isHub = (link) => (link.type === "name" || link.type === "entity") && link.b.members.length > HUB;
  const edge = (link) => ({ group: "edges", data: { id: "l" + link.index, source: link.a.id, target: link.b.id }, classes: link.type });
  function showHubLines(node) {
    cy.remove(".chosen");
    const lines = links.filter((l) => isHub(l) && (l.a === node || l.b === node) && l.a.state > 0 && l.b.state > 0);
    cy.add(lines.map((l) => ({ ...edge(l), classes: l.type + " chosen" })));
  }
  // The viewport that fits every node and its resting label, never above full size, from the positions
  // place() chose: cy.fit() would measure every element's bounding box (labels included), a quarter of a
  // cold first draw at 1,000 memories.
  function view() {
    const box = $("graph-canvas"), pad = PAD, xs = nodes.map((n) => n.pos.x), ys = nodes.map((n) => n.pos.y);
    if (!nodes.length) return { zoom: 1, pan: { x: 0, y: 0 } };
    const [x1, x2, y1, y2] = [Math.min(...xs) - LABEL / 2, Math.max(...xs) + LABEL / 2, Math.min(...ys) - 10, Math.max(...ys) + 30];
    const zoom = Math.min(1, Math.max(0.05, Math.min((box.clientWidth - 2 * pad) / (x2 - x1), (box.clientHeight - 2 * pad) / (y2 - y1))));
    return { zoom, pan: { x: (box.clientWidth - zoom * (x1 + x2)) / 2, y: (box.clientHeight - zoom * (y1 + y2)) / 2 } };
  }
  // Resting labels that would cover another label or a node are left for the pointer (node.quiet): the
  // names and chats linked to the most memories keep theirs. Decided over every node, filtered out or not, so
  // labels do not come and go while the filters or the slider move.
  function declutter() {
    const only = { includeNodes: false, includeEdges: false, includeLabels: true };
    const meets = (a, b) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
    const bodies = nodes.map((n) => ({ node: n, x1: n.pos.x - 9, x2: n.pos.x + 9, y1: n.pos.y - 9, y2: n.pos.y + 9 }));
    const kept = [];
    cy.nodes(".quiet").removeClass("quiet");
    const labelled = nodes.filter((n) => n.type !== "memory").sort((a, b) => b.members.length - a.members.length);
    cy.batch(() => {
      for (const n of labelled) {
        const box = n.ele.boundingBox(only);
        if (kept.some((k) => meets(box, k)) || bodies.some((b) => b.node !== n && meets(box, b))) n.ele.addClass("quiet");
        else kept.push(box);
      }
    });
  }
  let drawnAt = "";  // the drawing's size place() last laid it out for
  const size = () => `${$("graph-canvas").clientWidth}x${$("graph-canvas").clientHeight}`;
  function draw() {
    place();
    const { zoom, pan } = view();
    if (!cy) {
      cy = cytoscape({ container: $("graph-canvas"), elements: elements(), layout: { name: "preset", fit: false }, style: STYLE,
                       zoom, pan,
                       minZoom: 0.05, maxZoom: 4, autoungrabify: true, boxSelectionEnabled: false,
                       textureOnViewport: true, hideEdgesOnViewport: true });
      root.graph = cy;  // for the browser tests and bench.graph_page, which click and time the drawing
      const node = (event) => nodes.find((n) => n.id === event.target.id());
      cy.on("tap", "node", (event) => choose(node(event)));
      cy.on("mouseover", "node", (event) => label(node(event), true));
      cy.on("mouseout", "node", (event) => label(node(event), false));
      // A new size (a phone turned, a window resized): lay the same nodes out for it.
      new ResizeObserver(() => {
        if (!nodes.length || size() === drawnAt) return;
        cy.resize();
        place();
        cy.batch(() => { for (const n of nodes) n.ele.position(n.pos); });
        declutter();
        cy.viewport(view());
        drawnAt = size();
      }).observe($("graph-canvas"));
    } else {
      cy.batch(() => { cy.elements().remove(); cy.add(elements()); });
    }
    for (const n of nodes) n.ele = cy.getElementById(n.id);
    for (const l of links) { l.ele = isHub(l) ? null : cy.getElementById("l" + l.index); l.shown = true; }
    declutter();
    cy.viewport({ zoom, pan });
    drawnAt = size();
  }
  // A memory's label while the pointer is on it or it is chosen; a quiet one's shows through node.hover.
  function label(node, on) {
    if (!node) return;
    node.ele.toggleClass("hover", on);
    if (node.type === "memory") node.ele.data("label", on || node.ele.selected() ? labelText(node.label) : "");
  }
  // The chosen node's whole label inside the drawing: pan by as much as it sticks out.
  function keepInside(ele) {
    const box = $("graph-canvas"), b = ele.renderedBoundingBox({ includeNodes: false, includeEdges: false, includeLabels: true });
    const by = (low, high, length) => (low < 4 ? 4 - low : high > length - 4 ? Math.max(length - 4 - high, 4 - low) : 0);
    const x = by(b.x1, b.x2, box.clientWidth), y = by(b.y1, b.y2, box.clientHeight);
    if (x || y) cy.panBy({ x, y });
  }

  // --- the list of the same nodes and links ------------------------------------------------------
  function el(tag, props, ...children) {
    const node = Object.assign(document.createElement(tag), props);
    node.append(...children.filter((c) => c != null));
    return node;
  }
  const jump = (node) => el("a", { href: "#gl-" + node.index, textContent: short(node.label) });
  function related(label, targets) {
    if (!targets.length) return null;
    const line = el("li", {}, label + " ");
    targets.forEach((t, i) => line.append(...(i ? [T.separator, jump(t)] : [jump(t)])));
    return line;
  }
  function buildList() {
    const memories = document.createDocumentFragment(), others = document.createDocumentFragment();
    const icon = Object.fromEntries([...document.querySelectorAll("#graph-filters .kind")].map(
      (label) => [label.querySelector("input").value, label.querySelector(".icon").textContent]));
    for (const n of nodes) {
      const li = el("li", { id: "gl-" + n.index, tabIndex: -1, className: "graph-item " + n.type });
      n.li = li;
      li.hidden = n.state === 0;  // as apply() left the drawing
      li.classList.toggle("replaced", n.state === 2);
      if (n.type === "memory") {
        n.stateLabel = el("span", { className: "state", textContent: n.state === 2 ? T.replaced : T.current });
        const chats = n.joins.filter((j) => j.type === "chat");
        li.append(
          el("button", { type: "button", className: "link node" }, el("span", { className: "icon", textContent: icon[n.kind] || "•" }),
             " ", n.label),
          " ", n.stateLabel,
          el("ul", { className: "links" }, related(T.replaces, n.replaces), related(T.replacedBy, n.replacedBy),
             chats.length ? el("li", {}, T.fromChat + " ", el("a", { href: chatUrl(chats[0].pk), textContent: chats[0].label })) : null,
             related(T.shares, n.joins.filter((j) => j.type === "name")),
             related(T.mentions, n.joins.filter((j) => j.type === "entity"))));
        li.querySelector("button").dataset.node = String(n.index);
      } else {
        const kind = { chat: T.chat, name: T.name, entity: T.entity }[n.type];
        li.append(el("span", { className: "type", textContent: kind + " " }), el("strong", { textContent: n.label }),
                  n.type === "chat" ? el("span", {}, " · ", el("a", { href: chatUrl(n.pk), textContent: T.openChat })) : "",
                  el("ul", { className: "links" }, related(T.linked, n.members),
                     ...(n.facts || []).map((f) => el("li", { textContent: f.label }))));
      }
      (n.type === "memory" ? memories : others).append(li);
    }
    $("graph-list").replaceChildren(memories);
    $("graph-connectors").replaceChildren(others);
  }
  const chatUrl = (pk) => root.dataset.chat.replace(/\/0\/$/, `/${pk}/`);

  // --- filters and the "as of" slider --------------------------------------------------------------
  function moment() {
    const index = Number(slider.value);
    return index >= times.length ? Infinity : times[index];
  }
  function apply() {
    const at = moment();
    const kinds = new Set([...document.querySelectorAll("#graph-filters input[name=kind]:checked")].map((b) => b.value));
    const range = Number($("graph-range").value);
    const since = range ? Date.now() - range * DAY : -Infinity;
    let shown = 0, replaced = 0, linked = 0, changed = 0;
    const next = new Map();
    for (const n of nodes) {
      if (n.type !== "memory") continue;
      const state = !kinds.has(n.kind) || n.from < since || n.from > at ? 0 : n.until != null && n.until <= at ? 2 : 1;
      next.set(n, state);
      if (state) shown++;
      if (state === 2) replaced++;
    }
    for (const n of nodes) if (n.type !== "memory") next.set(n, n.members.some((m) => next.get(m)) ? 1 : 0);
    cy.batch(() => {
      for (const [n, state] of next) {
        if (state === n.state) continue;
        n.ele.toggleClass("off", state === 0);
        n.ele.toggleClass("replaced", state === 2);
        if (n.li) {
          n.li.hidden = state === 0;
          n.li.classList.toggle("replaced", state === 2);
          if (n.stateLabel) n.stateLabel.textContent = state === 2 ? T.replaced : T.current;
        }
        n.state = state;
        changed++;
      }
      for (const l of links) {
        const on = l.a.state > 0 && l.b.state > 0 && (l.type !== "fact" || ((l.from ?? -Infinity) <= at && (l.until == null || l.until > at)));
        if (on !== l.shown && l.ele) { l.ele.toggleClass("off", !on); changed++; }
        l.shown = on;
        if (on) linked++;
      }
    });
    const label = at === Infinity ? T.now : when.format(at);
    $("graph-asof-value").textContent = label;
    slider.setAttribute("aria-valuetext", label);
    $("graph-summary").textContent = nodes.length
      ? fill(T.summary, { memories: count(T.memories, shown), replaced: count(T.replacedCount, replaced), links: count(T.links, linked) })
      : T.empty;
    // Tell the bench and the tests when this state is on screen: after cytoscape's next frame (a step that
    // changed nothing draws none: the next animation frame, then).
    const stepped = () => { root.dataset.step = slider.value; root.dispatchEvent(new CustomEvent("graph:stepped")); };
    if (changed) cy.one("render", stepped); else requestAnimationFrame(() => requestAnimationFrame(stepped));
  }

  // --- a memory's card, a connector's list item -----------------------------------------------------
  function choose(node) {
    if (!node) return;
    cy.$(":selected").unselect().filter(".memory").data("label", "");
    node.ele.select();
    if (node.type === "memory") node.ele.data("label", labelText(node.label));
    keepInside(node.ele);
    showHubLines(node);
    if (node.type !== "memory") {  // its list item names its memories (the list comes a frame after the drawing)
      node.li?.scrollIntoView({ block: "nearest" });
      node.li?.focus();
      return;
    }
    const box = $("graph-card-box");
    const open = $("graph-card-open");
    open.href = `${root.dataset.memories}?focus=${node.pk}#memory-${node.pk}`;
    htmx.ajax("GET", root.dataset.card.replace(/\/0\/card$/, `/${node.pk}/card`), { target: "#graph-card", swap: "innerHTML" })
      .then(() => {
        // Into view (beside the drawing on a wide screen, under it on a phone) and the focus with it, from
        // the drawing as from the list: the card's buttons are the next Tab.
        box.hidden = false;
        box.scrollIntoView({ block: "nearest" });
        box.focus({ preventScroll: true });
      });
  }
  $("graph-list").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-node]");
    if (button) choose(nodes[Number(button.dataset.node)]);
  });

  // --- loading, and again on a live mark ------------------------------------------------------------
  async function load() {
    const response = await fetch(root.dataset.src);  // as the page's preload asked for it, so it is reused
    if (!response.ok) throw new Error(response.statusText);
    const json = await response.json();
    // Each phase as a performance measure ("graph:draw"...): bench.graph_page reports where the time goes.
    const timed = (name, phase) => {
      const started = performance.now();
      phase();
      performance.measure("graph:" + name, { start: started, end: performance.now() });
    };
    timed("read", () => read(json));
    timed("draw", draw);
    timed("apply", apply);
    const applied = performance.now();
    // The list after the drawing's first frame: its thousand items' styles would otherwise delay that frame.
    return new Promise((resolve) => cy.one("render", () => {
      performance.measure("graph:frame", { start: applied, end: performance.now() });
      root.dataset.drawn = String(Math.round(performance.now()));
      root.dispatchEvent(new CustomEvent("graph:drawn"));
      setTimeout(() => { timed("list", buildList); root.dataset.listed = root.dataset.drawn; resolve(); });
    }));
  }
  load().catch(() => { $("graph-summary").textContent = T.failed; });
  $("graph-filters").addEventListener("input", apply);
  $("graph-filters").addEventListener("submit", (event) => event.preventDefault());
  $("graph-now").addEventListener("click", () => { slider.value = slider.max; apply(); });

  const live = $("live-status");
  const socket = $("memory-events");
  for (const [type, state] of [["htmx:wsOpen", "on"], ["htmx:wsClose", "off"]]) {
    socket.addEventListener(type, () => { live.dataset.state = state; live.textContent = live.dataset[state]; });
  }
  let pending = null;
  socket.addEventListener("htmx:wsAfterMessage", (event) => {
    if (!String(event.detail.message).includes('id="graph-live"')) return;
    clearTimeout(pending);  // a burst of changes (an import) fetches once
    pending = setTimeout(() => load().then(() => {
      $("graph-notes").hidden = false;
      $("graph-notes").textContent = [$("graph-notes").textContent, T.updated].filter(Boolean).join(" ");
      root.dataset.loads = String(Number(root.dataset.loads || 1) + 1);
    }).catch(() => { $("graph-summary").textContent = T.failed; }), 300);
  });
})();
