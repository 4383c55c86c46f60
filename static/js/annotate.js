// The annotator's workspace, keyboard first. The page works without this file: the forms
// post normally and the server measures time from when it served the item.
(function () {
  "use strict";

  var shownAt = performance.now();
  // How long the undo of a skip stays on the page; the skipped list keeps it after that.
  var UNDO_SECONDS = 8;

  function workspace() {
    return document.getElementById("workspace");
  }

  function questions() {
    return Array.prototype.slice.call(document.querySelectorAll("#workspace .question"));
  }

  function questionOf(element) {
    return element && element.closest ? element.closest(".question") : null;
  }

  function focusQuestion(question, scroll) {
    if (!question) {
      return;
    }
    var target =
      question.querySelector("input[type=radio]:checked") ||
      question.querySelector("input[type=radio]") ||
      question.querySelector("textarea");
    if (target) {
      target.focus({ preventScroll: true });
      if (scroll !== false) {
        question.scrollIntoView({ block: "nearest" });
      }
    }
  }

  // Says in the page what a key press did not do; the sentences come translated from the
  // template's data attributes, with {key}, {keys} and {question} filled in here.
  function say(kind, values) {
    var box = document.getElementById("key-feedback");
    if (!box) {
      return;
    }
    var text = box.getAttribute("data-" + kind) || "";
    Object.keys(values).forEach(function (name) {
      text = text.split("{" + name + "}").join(values[name]);
    });
    box.textContent = text;
    box.hidden = false;
  }

  function quiet() {
    var box = document.getElementById("key-feedback");
    if (box) {
      box.hidden = true;
      box.textContent = "";
    }
  }

  function questionName(question) {
    var legend = question.querySelector("legend");
    return legend ? legend.textContent.replace(/\s+/g, " ").trim() : "";
  }

  function unanswered() {
    return questions().filter(function (question) {
      return question.querySelector("input[type=radio]") && !question.querySelector("input[type=radio]:checked");
    });
  }

  function move(step) {
    var all = questions();
    if (!all.length) {
      return;
    }
    var index = all.indexOf(questionOf(document.activeElement));
    var next = index === -1 ? (step > 0 ? 0 : all.length - 1) : index + step;
    focusQuestion(all[Math.max(0, Math.min(all.length - 1, next))]);
  }

  function answer(key) {
    var all = questions();
    var question = questionOf(document.activeElement) || all[0];
    if (!question) {
      return false;
    }
    var option = question.querySelector('input[type=radio][data-key="' + key + '"]');
    if (!option) {
      var keys = Array.prototype.map.call(question.querySelectorAll("input[type=radio]"), function (input) {
        return input.getAttribute("data-key");
      });
      say("off-scale", { key: key, keys: keys.join(", "), question: questionName(question) });
      return true;
    }
    quiet();
    option.checked = true;
    option.dispatchEvent(new Event("change", { bubbles: true }));
    var index = all.indexOf(question);
    // Answering moves on, so that a whole rubric is a run of digits and then Enter.
    focusQuestion(index < all.length - 1 ? all[index + 1] : question);
    return true;
  }

  function submitForm(id) {
    var form = document.getElementById(id);
    if (form) {
      form.requestSubmit();
    }
  }

  function toggleShortcuts(open) {
    var help = document.getElementById("shortcuts");
    if (help) {
      help.open = open === undefined ? !help.open : open;
      if (help.open) {
        help.scrollIntoView({ block: "nearest" });
      }
    }
  }

  // Answers given but not yet submitted are kept in this browser per item, so that a reload
  // or a lost connection does not lose them; submitting the item forgets them.
  function draftKey() {
    var form = document.getElementById("answer-form");
    return form ? "evalsite-answers-" + form.getAttribute("action") : null;
  }

  function saveDraft() {
    var key = draftKey();
    var form = document.getElementById("answer-form");
    if (!key || !form) {
      return;
    }
    var answers = {};
    form.querySelectorAll("input[type=radio]:checked, textarea").forEach(function (field) {
      if (field.value) {
        answers[field.name] = field.value;
      }
    });
    try {
      localStorage.setItem(key, JSON.stringify(answers));
    } catch (error) {
      /* storage full or disabled: the answers live in the page only */
    }
  }

  function forgetDraft() {
    var key = draftKey();
    try {
      if (key) {
        localStorage.removeItem(key);
      }
    } catch (error) {
      /* storage disabled */
    }
  }

  function restoreDraft() {
    var key = draftKey();
    var form = document.getElementById("answer-form");
    var answers = null;
    try {
      answers = key ? JSON.parse(localStorage.getItem(key) || "null") : null;
    } catch (error) {
      answers = null;
    }
    if (!form || !answers) {
      return;
    }
    Object.keys(answers).forEach(function (name) {
      var fields = Array.prototype.filter.call(form.elements, function (field) {
        return field.name === name;
      });
      if (fields.some(function (field) { return field.checked; })) {
        return;
      }
      fields.forEach(function (field) {
        if (field.type === "radio") {
          field.checked = field.value === answers[name];
        } else if (field.tagName === "TEXTAREA" && !field.value) {
          field.value = answers[name];
        }
      });
    });
  }

  document.addEventListener("change", function (event) {
    if (event.target && event.target.closest && event.target.closest("#answer-form")) {
      saveDraft();
    }
  });

  document.addEventListener("input", function (event) {
    if (event.target && event.target.tagName === "TEXTAREA" && event.target.closest("#answer-form")) {
      saveDraft();
    }
  });

  function start() {
    if (!workspace()) {
      return;
    }
    restoreDraft();
    shownAt = performance.now();
    var all = questions();
    var firstOpen = all.filter(function (question) {
      var box = question.querySelector("textarea");
      return box ? !box.value.trim() : !question.querySelector("input[type=radio]:checked");
    })[0];
    // Focus without scrolling: the page opens at its top, with the transcript in view.
    focusQuestion(firstOpen || all[0], false);
    var undo = document.querySelector("#workspace .undo-skip");
    if (undo) {
      window.setTimeout(function () {
        undo.remove();
      }, UNDO_SECONDS * 1000);
    }
  }

  document.addEventListener("keydown", function (event) {
    if (!workspace() || event.altKey || event.isComposing) {
      return;
    }
    var target = event.target;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      submitForm("answer-form");
      return;
    }
    if (event.ctrlKey || event.metaKey) {
      return;
    }
    var typing =
      target.tagName === "TEXTAREA" ||
      target.tagName === "SELECT" ||
      target.isContentEditable ||
      (target.tagName === "INPUT" && target.type !== "radio" && target.type !== "checkbox");
    if (typing) {
      if (event.key === "Escape") {
        target.blur();
        var around = questionOf(target);
        // A free-text question's answer is the box itself: leaving it leaves the question.
        if (around && around.querySelector("input[type=radio]")) {
          focusQuestion(around);
        }
      }
      return;
    }
    if (/^[0-9]$/.test(event.key)) {
      if (answer(event.key)) {
        event.preventDefault();
      }
      return;
    }
    // Buttons and links handle their own Enter.
    var pressable = target.tagName === "BUTTON" || target.tagName === "A" || target.tagName === "SUMMARY";
    switch (event.key) {
      case "j":
      case "J":
        event.preventDefault();
        move(1);
        break;
      case "k":
      case "K":
        event.preventDefault();
        move(-1);
        break;
      case "Enter":
        if (!pressable) {
          event.preventDefault();
          submitForm("answer-form");
        }
        break;
      case "s":
      case "S":
        event.preventDefault();
        submitForm("skip-form");
        break;
      case "u":
      case "U":
        var undoForm = document.querySelector("#workspace .undo-skip");
        if (undoForm) {
          event.preventDefault();
          undoForm.requestSubmit();
        }
        break;
      case "?":
        event.preventDefault();
        toggleShortcuts();
        break;
      case "Escape":
        toggleShortcuts(false);
        break;
    }
  });

  // Capture phase: runs before htmx reads the form, so the measured time is sent with it.
  document.addEventListener(
    "submit",
    function (event) {
      var form = event.target;
      if (form.id !== "answer-form") {
        return;
      }
      var open = unanswered();
      if (open.length) {
        // Name the first unanswered question in the page instead of a browser tooltip.
        event.preventDefault();
        event.stopImmediatePropagation();
        open.forEach(function (question) {
          question.classList.add("has-error");
        });
        say("unanswered", { question: questionName(open[0]) });
        focusQuestion(open[0]);
        return;
      }
      var field = form.querySelector("[name=time_on_task_ms]");
      if (field) {
        field.value = String(Math.round(performance.now() - shownAt));
      }
      forgetDraft();
    },
    true
  );

  document.addEventListener("htmx:load", function (event) {
    var element = event.detail && event.detail.elt;
    if (element && (element.id === "workspace" || (element.querySelector && element.querySelector("#workspace")))) {
      start();
    }
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
