// Behaviour every page shares. It lives here, not in inline handlers, so the Content-Security-Policy
// can refuse all inline script.
document.addEventListener("change", (event) => {
  if (event.target.matches("select[data-autosubmit]")) event.target.form.requestSubmit();
});
document.addEventListener("submit", (event) => {
  const question = event.target.dataset.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
});
// Ctrl+Shift+T opens a temporary chat from any page; on the chat page it flips the toggle beside the input.
document.addEventListener("keydown", (event) => {
  if (!event.ctrlKey || !event.shiftKey || event.key.toLowerCase() !== "t") return;
  const toggle = document.getElementById("temporary-toggle");  // beside the chat's input
  const form = document.getElementById("temporary-chat");  // in the header when logged in (base.html)
  if (toggle || form) { event.preventDefault(); toggle ? toggle.click() : form.requestSubmit(); }
});
// The htmx ws extension reconnects after abnormal closes (1006, 1011-1013) with its own backoff; a
// server that ends a socket cleanly (Daphne's websocket timeout: 1000; a restart: 1001) gets one more try,
// whose failure (1006) the extension then retries.
document.addEventListener("htmx:wsClose", (event) => {
  const { event: close, socketWrapper } = event.detail;
  if (close.code === 1000 || close.code === 1001) setTimeout(socketWrapper.reconnect, 1000 + Math.random() * 1000);
});
