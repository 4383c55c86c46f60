// What every page does without inline script (the Content-Security-Policy allows none):
// selects marked data-submit-on-change submit their form, forms marked data-confirm ask
// first, and an element watching a job over a socket (data-watch-socket) records whether
// the socket is open, so that its polling (data-poll-unless-socket) pauses while it is.
// A part marked data-refresh-on-change, inside an element whose socket says that the record
// it shows changed (evalsite/live_changes.py), fetches itself again at once: its hx-trigger
// lists the "live-change" event. It does so too whenever the socket opens, since a change made
// before (between the page's render and the socket, or while it was down) sent no notice.
// Its polling pauses while the socket is open, or only slows to data-poll-while-open seconds
// when the server says that notices from every process may not reach this socket. A table too wide for the screen scrolls sideways in its
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

  function refreshParts(root) {
    root.querySelectorAll("[data-refresh-on-change]").forEach(function (part) {
      part.dataset.pushed = "1";
      htmx.trigger(part, "live-change");
    });
  }

  function socketState(state) {
    return function (event) {
      const watcher = event.detail && event.detail.elt;
      if (watcher && watcher.hasAttribute && watcher.hasAttribute("data-watch-socket")) {
        watcher.dataset.socket = state;
        if (state === "open") { refreshParts(watcher); }
      }
    };
  }
  document.addEventListener("htmx:wsOpen", socketState("open"));
  document.addEventListener("htmx:wsClose", socketState("closed"));

  document.addEventListener("htmx:wsAfterMessage", function (event) {
    refreshParts(event.target);
  });

  // When each polling part last fetched itself, by its id (a swap replaces the element).
  const fetchedAt = {};

  document.addEventListener("htmx:beforeRequest", function (event) {
    const poller = event.detail.elt;
    if (poller.dataset && poller.dataset.pushed) {
      delete poller.dataset.pushed;
      fetchedAt[poller.id] = Date.now();
      return;
    }
    if (!poller.hasAttribute("data-poll-unless-socket")) { return; }
    const watcher = poller.closest("[data-socket='open']");
    if (watcher) {
      const every = Number(watcher.dataset.pollWhileOpen || 0) * 1000;
      if (!every || Date.now() - (fetchedAt[poller.id] || 0) < every) {
        event.preventDefault();
        return;
      }
    }
    fetchedAt[poller.id] = Date.now();
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
