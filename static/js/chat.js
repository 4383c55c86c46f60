// The judge's chat: Enter sends, Shift+Enter adds a new line. The judge may keep typing and
// sending while the system replies: the server answers their messages in order, one at a time.
// The draft is kept in this browser per conversation until it is sent, so a reload keeps it.
// Messages arrive as htmx out-of-band swaps.
(function () {
  "use strict";

  function composer() { return document.getElementById("chat-form"); }
  function input() { return document.getElementById("chat-input"); }
  function draftKey() {
    const panel = document.querySelector(".chat-panel[data-session]");
    return panel ? "evalsite-draft-" + panel.dataset.session : null;
  }

  function saveDraft() {
    const key = draftKey();
    const field = input();
    if (!key || !field) { return; }
    try {
      if (field.value) { localStorage.setItem(key, field.value); } else { localStorage.removeItem(key); }
    } catch (error) { /* storage full or disabled: the draft lives in the page only */ }
  }

  function restoreDraft() {
    const key = draftKey();
    const field = input();
    if (!key || !field || field.value) { return; }
    try {
      const draft = localStorage.getItem(key);
      if (draft) { field.value = draft; }
    } catch (error) { /* storage disabled */ }
  }

  function scrollToEnd() {
    const log = document.getElementById("chat-log");
    if (log) { log.scrollTop = log.scrollHeight; window.scrollTo(0, document.body.scrollHeight); }
  }

  document.addEventListener("keydown", function (event) {
    const field = input();
    if (event.target !== field || event.key !== "Enter" || event.shiftKey || event.isComposing) {
      return;
    }
    event.preventDefault();
    if (field.value.trim()) { field.form.requestSubmit(); }
  });

  document.addEventListener("input", function (event) {
    if (event.target === input()) { saveDraft(); }
  });

  document.addEventListener("htmx:wsConfigSend", function (event) {
    const form = composer();
    if (!form || !form.contains(event.detail.elt)) { return; }
    if (!input().value.trim()) { event.preventDefault(); }
  });

  document.addEventListener("htmx:wsAfterSend", function () {
    const field = input();
    if (!field) { return; }
    field.value = "";
    saveDraft();
    field.focus();
  });

  document.addEventListener("htmx:wsAfterMessage", function () {
    // An ended conversation swaps the composer out: its draft has nowhere to go.
    if (!composer()) {
      const key = draftKey();
      try { if (key) { localStorage.removeItem(key); } } catch (error) { /* storage disabled */ }
    }
    scrollToEnd();
  });

  document.addEventListener("DOMContentLoaded", function () {
    restoreDraft();
    scrollToEnd();
  });
})();
