// The judge's chat: Enter sends, Shift+Enter adds a new line. The judge may keep typing and
// sending while the system replies: the server answers their messages in order, one at a time.
// Messages arrive as htmx out-of-band swaps.
//
// A sent message is only the server's once it says so: each message carries a number, and
// the server acknowledges it on this socket as stored or refused (#chat-ack). Until then its
// text stays in this page and in the draft kept in this browser per conversation, so a reload
// keeps it. A refused message, or one whose socket closed before the acknowledgement (the
// server process died, the network dropped), goes back into the composer to be sent again.
// On reconnect the server sends the whole stored history, notices included.
(function () {
  "use strict";

  // Unacknowledged messages, in the order sent: {sent, text, onWire}.
  let pending = [];
  let counter = Date.now() % 1000000;

  function composer() { return document.getElementById("chat-form"); }
  function input() { return document.getElementById("chat-input"); }
  function draftKey() {
    const panel = document.querySelector(".chat-panel[data-session]");
    return panel ? "evalsite-draft-" + panel.dataset.session : null;
  }

  function joined(texts) { return texts.filter(function (text) { return text; }).join("\n"); }

  function saveDraft() {
    const key = draftKey();
    const field = input();
    if (!key || !field) { return; }
    const draft = joined(pending.map(function (item) { return item.text; }).concat([field.value]));
    try {
      if (draft) { localStorage.setItem(key, draft); } else { localStorage.removeItem(key); }
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

  function giveBack(items) {
    // Messages the server did not take go back before what the judge has typed since.
    const field = input();
    if (!items.length || !field) { return; }
    field.value = joined(items.map(function (item) { return item.text; }).concat([field.value]));
    saveDraft();
  }

  function scrollToEnd() {
    const log = document.getElementById("chat-log");
    if (log) { log.scrollTop = log.scrollHeight; window.scrollTo(0, document.body.scrollHeight); }
  }

  // Reconnecting: exponential back-off from 1 s up to 30 s, each wait drawn between half and
  // all of it, so that pages cut off together by a restart or an overload do not all return
  // at the same instant (and a refused open is not retried at once).
  function reconnectDelay(retries) {
    const ceiling = Math.min(30000, 1000 * Math.pow(2, Math.min(retries, 5)));
    return ceiling / 2 + Math.random() * ceiling / 2;
  }
  if (window.htmx) { window.htmx.config.wsReconnectDelay = reconnectDelay; }

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
    const field = input();
    const text = field.value;
    if (!text.trim()) { event.preventDefault(); return; }
    counter += 1;
    event.detail.parameters.sent = counter;
    pending.push({ sent: counter, text: text, onWire: false });
    field.value = "";
    saveDraft();
    field.focus();
  });

  document.addEventListener("htmx:wsAfterSend", function (event) {
    let sent = null;
    try { sent = JSON.parse(event.detail.message).sent; } catch (error) { return; }
    pending.forEach(function (item) { if (item.sent === sent) { item.onWire = true; } });
  });

  document.addEventListener("htmx:wsClose", function () {
    // Sent but not acknowledged: the server may never have stored them. Messages htmx still
    // queues for the next socket stay pending; they are sent when it opens.
    const lost = pending.filter(function (item) { return item.onWire; });
    pending = pending.filter(function (item) { return !item.onWire; });
    giveBack(lost);
  });

  function acknowledged() {
    const ack = document.getElementById("chat-ack");
    if (!ack || !ack.dataset.sent) { return; }
    const sent = Number(ack.dataset.sent);
    const refused = pending.filter(function (item) {
      return item.sent === sent && ack.dataset.outcome !== "stored";
    });
    pending = pending.filter(function (item) { return item.sent !== sent; });
    ack.dataset.sent = "";
    giveBack(refused);
    saveDraft();
  }

  document.addEventListener("htmx:wsAfterMessage", function () {
    acknowledged();
    // An ended conversation swaps the composer out: its draft has nowhere to go.
    if (!composer()) {
      const key = draftKey();
      try { if (key) { localStorage.removeItem(key); } } catch (error) { /* storage disabled */ }
    }
    scrollToEnd();
  });

  document.addEventListener("DOMContentLoaded", function () {
    if (window.htmx) { window.htmx.config.wsReconnectDelay = reconnectDelay; }
    restoreDraft();
    scrollToEnd();
  });
})();
