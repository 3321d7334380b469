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
  // An export from ChatGPT or Claude goes up in parts (memoryapp/web/history.py history_part): the web
  // server holds one part at a time, not a file of hundreds of MB. Without this script the form posts it whole.
  const historyForm = document.getElementById("history-form");
  if (historyForm && window.fetch) historyForm.addEventListener("submit", async (e) => {
    const file = historyForm.querySelector("input[type=file]").files[0];
    if (!file) return;
    e.preventDefault();
    const PART = 8 * 1024 * 1024;
    const base = historyForm.dataset.parts;
    const status = document.getElementById("history-upload-status");
    const button = historyForm.querySelector("button[type=submit]");
    const csrf = historyForm.querySelector("[name=csrfmiddlewaretoken]").value;
    const post = (url, body) => fetch(url, { method: "POST", body, credentials: "same-origin", headers: { "X-CSRFToken": csrf } });
    const say = (text, alert) => { status.textContent = text; status.setAttribute("role", alert ? "alert" : "status"); };
    const fail = async (answer) => {
      let text = historyForm.dataset.failed;
      try { text = (await answer.json()).problem || text; } catch (_) { /* not JSON: the general sentence */ }
      say(text, true);
      button.disabled = false;
    };
    button.disabled = true;
    let token = "";
    for (let offset = 0; offset === 0 || offset < file.size; offset += PART) {
      const answer = await post(`${token ? `${base}/${token}` : base}?offset=${offset}`, file.slice(offset, offset + PART));
      if (!answer.ok) return fail(answer);
      token = (await answer.json()).token;
      say(`${historyForm.dataset.uploading} ${Math.min(100, Math.round((100 * (offset + PART)) / Math.max(file.size, 1)))}%`);
    }
    const named = new FormData();
    named.append("name", file.name);
    const done = await post(`${base}/${token}/done`, named);
    if (!done.ok) return fail(done);
    const read = await done.json();
    if (read.preview) { window.location.assign(read.preview); return; }
    say(read.problem, true);
    button.disabled = false;
  });
})();
