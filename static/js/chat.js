// The judge's chat: Enter sends, Shift+Enter adds a new line; the input clears once sent
// and is disabled while the system replies. Messages arrive as htmx out-of-band swaps.
(function () {
  "use strict";

  function composer() { return document.getElementById("chat-form"); }
  function input() { return document.getElementById("chat-input"); }

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
    if (field.value.trim() && !field.form.classList.contains("busy")) {
      field.form.requestSubmit();
    }
  });

  document.addEventListener("htmx:wsConfigSend", function (event) {
    const form = composer();
    if (!form || !form.contains(event.detail.elt)) { return; }
    if (!input().value.trim() || form.classList.contains("busy")) { event.preventDefault(); }
  });

  document.addEventListener("htmx:wsAfterSend", function () {
    const form = composer();
    if (!form) { return; }
    input().value = "";
    form.classList.add("busy");
    document.getElementById("send-button").disabled = true;
  });

  document.addEventListener("htmx:wsAfterMessage", function () {
    const form = composer();
    const status = document.getElementById("chat-status");
    const replying = status && !status.querySelector(".typing").hidden;
    if (form && !replying) {
      form.classList.remove("busy");
      document.getElementById("send-button").disabled = false;
      input().focus();
    }
    scrollToEnd();
  });

  document.addEventListener("DOMContentLoaded", scrollToEnd);
})();
