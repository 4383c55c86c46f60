// What every page shares, kept out of the markup so that pages need no inline script:
// a <select data-submit-on-change> submits its form when a value is chosen, and a button
// with data-confirm asks before it submits.
(function () {
  "use strict";
  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target && target.hasAttribute("data-submit-on-change") && target.form) {
      target.form.submit();
    }
  });
  document.addEventListener("click", function (event) {
    var button = event.target && event.target.closest ? event.target.closest("[data-confirm]") : null;
    if (button && !window.confirm(button.getAttribute("data-confirm"))) {
      event.preventDefault();
    }
  });
})();
