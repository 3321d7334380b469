// Settings > Memories: what htmx does not do itself. The page works without this file.
(function () {
  "use strict";
  const live = document.getElementById("live-status");
  if (!live) return;
  // Live frames (memoryapp/web/consumers.py) are htmx oob fragments; each names in data-live-if the element it
  // needs, and one this page does not hold (a card it does not show, or shows being edited) is dropped.
  htmx.defineExtension("live-if", { transformResponse(text) {
    const frame = document.createElement("template");
    frame.innerHTML = text;
    for (const part of [...frame.content.children]) {
      if (part.dataset.liveIf && !document.querySelector(part.dataset.liveIf)) part.remove();
    }
    return frame.innerHTML;
  } });
  const events = document.getElementById("memory-events");
  for (const [type, state] of [["htmx:wsOpen", "on"], ["htmx:wsClose", "off"]]) {
    events.addEventListener(type, () => { live.dataset.state = state; live.textContent = live.dataset[state]; });
  }
  // The upload's bytes; then the rows the server has written, which replace the bar as they come.
  const bar = () => document.getElementById("import-progress");
  document.body.addEventListener("htmx:xhr:progress", (e) => {
    if (e.target.id !== "import-form" || !e.detail.lengthComputable) return;
    bar().hidden = false;
    bar().value = Math.round((e.detail.loaded / e.detail.total) * bar().max);
  });
})();
