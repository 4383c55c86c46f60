// What every page does without inline script (the Content-Security-Policy allows none):
// selects marked data-submit-on-change submit their form, forms marked data-confirm ask
// first, and an element watching a job over a socket (data-watch-socket) records whether
// the socket is open, so that its polling (data-poll-unless-socket) pauses while it is.
// A part marked data-refresh-on-change, inside an element whose socket says that the record
// it shows changed (evalsite/live_changes.py), fetches itself again at once: its hx-trigger
// lists the "live-change" event. A table too wide for the screen scrolls sideways in its
// .table-wrap, which then takes keyboard focus so that the keys can scroll it too.
(function () {
  "use strict";

  document.addEventListener("change", function (event) {
    const field = event.target;
    if (field instanceof HTMLSelectElement && field.hasAttribute("data-submit-on-change")) {
      field.form.submit();
    }
  });

  document.addEventListener("focusin", function (event) {
    const field = event.target;
    if (field instanceof HTMLInputElement && field.hasAttribute("data-select-on-focus")) {
      field.select();
    }
  });

  document.addEventListener("submit", function (event) {
    const question = event.target.getAttribute("data-confirm");
    if (question && !window.confirm(question)) { event.preventDefault(); }
  });

  function socketState(state) {
    return function (event) {
      const watcher = event.detail && event.detail.elt;
      if (watcher && watcher.hasAttribute && watcher.hasAttribute("data-watch-socket")) {
        watcher.dataset.socket = state;
      }
    };
  }
  document.addEventListener("htmx:wsOpen", socketState("open"));
  document.addEventListener("htmx:wsClose", socketState("closed"));

  document.addEventListener("htmx:wsAfterMessage", function (event) {
    event.target.querySelectorAll("[data-refresh-on-change]").forEach(function (part) {
      part.dataset.pushed = "1";
      htmx.trigger(part, "live-change");
    });
  });

  document.addEventListener("htmx:beforeRequest", function (event) {
    const poller = event.detail.elt;
    if (poller.dataset && poller.dataset.pushed) {
      delete poller.dataset.pushed;
      return;
    }
    if (poller.hasAttribute("data-poll-unless-socket") && poller.closest("[data-socket='open']")) {
      event.preventDefault();
    }
  });

  function focusableScrolling(root) {
    root.querySelectorAll(".table-wrap").forEach(function (wrap) {
      if (wrap.scrollWidth > wrap.clientWidth + 1) {
        wrap.setAttribute("tabindex", "0");
      } else {
        wrap.removeAttribute("tabindex");
      }
    });
  }
  document.addEventListener("DOMContentLoaded", function () { focusableScrolling(document); });
  window.addEventListener("resize", function () { focusableScrolling(document); });
  document.addEventListener("htmx:afterSettle", function (event) { focusableScrolling(event.target); });
})();
