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
  const toggle = document.getElementById("temporary-toggle");
  const form = document.getElementById("temporary-chat");  // in the header when logged in (base.html)
  if (!toggle && !form) return;
  event.preventDefault();
  if (toggle) toggle.click();
  else form.requestSubmit();
});
