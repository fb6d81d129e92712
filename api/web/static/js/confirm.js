// A destructive button asks once more on itself: the first click arms it (it says what the
// second click will do), the second does it. It stays armed until it is answered or left: a
// click elsewhere, focus moving away or Escape puts it back. No timer, so nobody is rushed (a
// screen reader reading the new label, a slow machine between two clicks).

const armed = new WeakMap(); // button -> { text, label, danger, stop }

function disarm(button) {
  const saved = armed.get(button);
  if (!saved) return;
  armed.delete(button);
  saved.stop.abort();
  button.textContent = saved.text;
  if (saved.label === null) button.removeAttribute("aria-label");
  else button.setAttribute("aria-label", saved.label);
  button.classList.toggle("btn-danger", saved.danger);
  delete button.dataset.armed;
}

// True when `button` was armed (go ahead); otherwise arms it with `text` (and `label` for
// assistive technology, when the text alone does not say which item) and returns false.
export function confirmed(button, text, label = null) {
  if (armed.has(button)) {
    disarm(button);
    return true;
  }
  const stop = new AbortController();
  armed.set(button, {
    text: button.textContent,
    label: button.getAttribute("aria-label"),
    danger: button.classList.contains("btn-danger"),
    stop,
  });
  button.textContent = text;
  if (label) button.setAttribute("aria-label", label);
  button.classList.add("btn-danger");
  button.dataset.armed = "1";
  const options = { signal: stop.signal, capture: true };
  document.addEventListener("pointerdown", (event) => {
    if (!button.contains(event.target)) disarm(button);
  }, options);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") disarm(button);
  }, options);
  button.addEventListener("focusout", () => disarm(button), { signal: stop.signal });
  return false;
}
