/*! formd client helper. Include it once; it enhances every <form data-formd>. */
(function () {
  "use strict";
  // Without these the browser posts the form itself (the 303 flow).
  if (!window.fetch || !window.Promise || !window.FormData || !window.crypto || !document.querySelector) {
    return;
  }

  var SENDING = "Sending\u2026";
  var OFFLINE = "The form could not be sent. Check your connection and try again.";
  var formCount = 0;

  function newKey() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return (b < 16 ? "0" : "") + b.toString(16);
    }).join("");
  }

  // The summary lives in a live region so screen readers announce it.
  function statusRegion(form) {
    var region = form.querySelector("[data-formd-status]");
    if (!region) {
      region = document.createElement("div");
      region.setAttribute("data-formd-status", "");
      form.appendChild(region);
    }
    if (!region.hasAttribute("role")) region.setAttribute("role", "status");
    if (!region.hasAttribute("aria-live")) region.setAttribute("aria-live", "polite");
    return region;
  }

  function showStatus(form, state, text) {
    var region = statusRegion(form);
    region.setAttribute("data-state", state);
    region.textContent = text;
  }

  function submitButtons(form) {
    return Array.prototype.filter.call(form.elements, function (el) {
      return (el.tagName === "BUTTON" && (el.type || "submit") === "submit") ||
        (el.tagName === "INPUT" && (el.type === "submit" || el.type === "image"));
    });
  }

  function clearErrors(form, state) {
    state.errors.forEach(function (e) {
      if (e.note.parentNode) e.note.parentNode.removeChild(e.note);
      e.input.removeAttribute("aria-invalid");
      if (e.describedBy === null) e.input.removeAttribute("aria-describedby");
      else e.input.setAttribute("aria-describedby", e.describedBy);
    });
    state.errors = [];
  }

  function fieldElement(form, name) {
    var el = form.elements.namedItem(name);
    if (el && !el.tagName && el.length) el = el[0]; // a radio or checkbox group
    return el && el.tagName ? el : null;
  }

  // showErrors puts each field error next to its input and returns the
  // messages of errors whose field is not in the form.
  function showErrors(form, state, errors) {
    var unplaced = [];
    var first = null;
    errors.forEach(function (err) {
      var input = fieldElement(form, err.field);
      if (!input || input.getAttribute("aria-invalid") === "true") {
        if (!input) unplaced.push(err.field + ": " + err.message);
        return;
      }
      var note = document.createElement("p");
      note.className = "formd-error";
      note.id = "formd-" + state.id + "-error-" + state.errors.length;
      note.textContent = err.message;
      input.insertAdjacentElement("afterend", note);
      var describedBy = input.getAttribute("aria-describedby");
      state.errors.push({ input: input, note: note, describedBy: describedBy });
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", describedBy ? describedBy + " " + note.id : note.id);
      if (!first) first = input;
    });
    if (first && first.focus) first.focus();
    return unplaced;
  }

  // buildRequest turns the form into a fetch request: JSON, or multipart
  // when a file is chosen. It throws when the form cannot be sent this way,
  // and the browser then posts it normally.
  function buildRequest(form, state) {
    if ((form.getAttribute("method") || "get").toLowerCase() !== "post") throw new Error("not a POST form");
    var url = form.action;
    var data = new FormData(form);
    var headers = { Accept: "application/json", "Idempotency-Key": state.key };
    if (form.hasAttribute("data-formd-dry-run")) headers["X-Service-Dry-Run"] = "true";
    var hasFile = false;
    var fields = {};
    data.forEach(function (value, name) {
      if (typeof value !== "string") {
        if (value.name || value.size) hasFile = true;
        return;
      }
      if (!Object.prototype.hasOwnProperty.call(fields, name)) fields[name] = value;
      else if (Array.isArray(fields[name])) fields[name].push(value);
      else fields[name] = [fields[name], value];
    });
    var body = data;
    if (!hasFile) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(fields);
    }
    return { url: url, init: { method: "POST", mode: "cors", credentials: "omit", headers: headers, body: body } };
  }

  function emit(form, name, detail) {
    if (typeof window.CustomEvent === "function") {
      form.dispatchEvent(new CustomEvent(name, { bubbles: true, detail: detail }));
    }
  }

  async function send(form, state, request) {
    state.sending = true;
    var buttons = submitButtons(form).filter(function (b) { return !b.disabled; });
    buttons.forEach(function (b) { b.disabled = true; });
    form.setAttribute("aria-busy", "true");
    showStatus(form, "sending", SENDING);
    try {
      var response = await window.fetch(request.url, request.init);
      var answer = null;
      try {
        answer = await response.json();
      } catch (e) {
        answer = null;
      }
      clearErrors(form, state);
      if (response.ok && answer && answer.success) {
        state.key = null; // the next filled-in form is a new submission
        state.sent = true; // until a field changes, another submit is the same one again
        form.reset();
        showStatus(form, "success", form.getAttribute("data-formd-success") || answer.message);
        emit(form, "formd:success", answer);
        var next = form.getAttribute("data-formd-redirect");
        if (next) window.location.assign(next);
        return;
      }
      answer = answer || {};
      var lines = [answer.message || "The form could not be sent (HTTP " + response.status + ")."];
      lines = lines.concat(showErrors(form, state, answer.errors || []));
      if (answer.requestId) lines.push("Request id: " + answer.requestId);
      showStatus(form, "error", lines.join(" "));
      emit(form, "formd:error", answer);
    } catch (e) {
      // The key is kept: sending again is a retry the server settles.
      showStatus(form, "error", OFFLINE);
      emit(form, "formd:error", { message: OFFLINE });
    } finally {
      state.sending = false;
      buttons.forEach(function (b) { b.disabled = false; });
      form.removeAttribute("aria-busy");
    }
  }

  function enhance(form) {
    if (form.formdState) return;
    var state = { id: ++formCount, key: null, sending: false, sent: false, errors: [] };
    form.formdState = state;
    function changed() { state.key = null; state.sent = false; }
    form.addEventListener("input", changed);
    form.addEventListener("change", changed);
    form.addEventListener("submit", function (event) {
      // A double click: the second click lands while the first post is under
      // way, or (on a fast answer) after it succeeded and the form was reset.
      if (state.sending || state.sent) {
        event.preventDefault();
        return;
      }
      if (!state.key) state.key = newKey();
      var request;
      try {
        request = buildRequest(form, state);
      } catch (e) {
        return; // the browser posts the form the plain way
      }
      event.preventDefault();
      send(form, state, request);
    });
  }

  function enhanceAll() {
    Array.prototype.forEach.call(document.querySelectorAll("form[data-formd]"), enhance);
  }

  window.formd = { enhance: enhance };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", enhanceAll);
  else enhanceAll();
})();
