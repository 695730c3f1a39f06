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
    // data-formd-upload files go to storage first; the post carries their keys.
    var uploads = [];
    Array.prototype.forEach.call(form.querySelectorAll("input[type=file][data-formd-upload]"), function (input) {
      if (!input.name || input.disabled) return;
      Array.prototype.forEach.call(input.files || [], function (file) { uploads.push({ name: input.name, file: file }); });
      data.delete(input.name);
    });
    data.forEach(function (value, name) {
      if (typeof value !== "string") {
        if (value.name || value.size) hasFile = true;
        return;
      }
      if (!Object.prototype.hasOwnProperty.call(fields, name)) fields[name] = value;
      else if (Array.isArray(fields[name])) fields[name].push(value);
      else fields[name] = [fields[name], value];
    });
    var init = { method: "POST", mode: "cors", credentials: "omit", headers: headers, body: data };
    // add sets a field computed after the form was read (the proof of work).
    function add(name, value) {
      if (hasFile) data.set(name, value);
      else {
        fields[name] = value;
        init.body = JSON.stringify(fields);
      }
    }
    if (!hasFile) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(fields);
    }
    return { url: url, init: init, add: add, uploads: uploads, accessKey: fields.access_key || fields.apikey || "" };
  }

  // formdURL is a formd route beside the form's action.
  function formdURL(form, path) {
    var u = new URL(form.action);
    u.pathname = u.pathname.replace(/\/submit(\/[^/]*)?\/?$/, "") + path;
    u.search = u.hash = "";
    return u;
  }

  // upload reserves a key (GET /upload), uploads the file as told and returns the key.
  async function upload(form, request, item) {
    var key = request.accessKey;
    var match = /\/submit\/([^/?#]+)/.exec(new URL(form.action).pathname);
    if (!key && match) key = decodeURIComponent(match[1]);
    var u = formdURL(form, "/upload");
    u.searchParams.set("access_key", key);
    u.searchParams.set("name", item.file.name);
    u.searchParams.set("type", item.file.type || "application/octet-stream");
    u.searchParams.set("size", String(item.file.size));
    var response = await window.fetch(u.href, { mode: "cors", credentials: "omit", headers: { Accept: "application/json" } });
    var answer = await response.json().catch(function () { return {}; });
    if (!response.ok || !answer.key) throw new UploadError(answer.message, item.name);
    var put = await window.fetch(answer.upload.url, { method: answer.upload.method, mode: "cors", credentials: "omit",
      headers: answer.upload.headers, body: item.file });
    if (!put.ok) {
      var refusal = await put.json().catch(function () { return {}; });
      throw new UploadError(refusal.message, item.name);
    }
    return answer.key;
  }

  function UploadError(message, field) {
    this.message = message || "The file could not be uploaded.";
    this.field = field;
  }

  // The proof-of-work challenge of a form marked data-formd-pow comes from
  // the attribute's address, else from formd's /challenge beside the action.
  function challengeURL(form) {
    var given = form.getAttribute("data-formd-pow");
    if (given) return given;
    return formdURL(form, "/challenge").href;
  }

  // hasher returns SHA-256 of an ASCII string, as eight 32-bit words.
  // Written out rather than WebCrypto's: one synchronous call per try is far
  // faster for tiny inputs, and pages on plain http have no WebCrypto. The
  // constants are the fractional parts of the primes' square and cube roots
  // (FIPS 180-4).
  function hasher() {
    var K = [], H = [], p = 2, n = 0, i;
    for (; n < 64; p++) {
      for (i = 2; i * i <= p && p % i; i++);
      if (i * i > p) {
        if (n < 8) H[n] = Math.pow(p, 1 / 2) * 4294967296 | 0;
        K[n++] = Math.pow(p, 1 / 3) * 4294967296 | 0;
      }
    }
    function ror(x, r) { return x >>> r | x << 32 - r; }
    var w = new Int32Array(64);
    return function (s) {
      var l = s.length, words = ((l + 8) >> 6) * 16 + 16, m = new Int32Array(words), h = H.slice();
      var a, b, c, d, e, f, g, k, i, j, t1, t2, x, y;
      for (i = 0; i < l; i++) m[i >> 2] |= s.charCodeAt(i) << 24 - i % 4 * 8;
      m[l >> 2] |= 0x80 << 24 - l % 4 * 8;
      m[words - 1] = l * 8;
      for (j = 0; j < words; j += 16) {
        a = h[0]; b = h[1]; c = h[2]; d = h[3]; e = h[4]; f = h[5]; g = h[6]; k = h[7];
        for (i = 0; i < 64; i++) {
          if (i < 16) w[i] = m[j + i];
          else {
            x = w[i - 15]; y = w[i - 2];
            w[i] = (ror(x, 7) ^ ror(x, 18) ^ x >>> 3) + w[i - 7] + (ror(y, 17) ^ ror(y, 19) ^ y >>> 10) + w[i - 16];
          }
          t1 = k + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + (e & f ^ ~e & g) + K[i] + w[i] | 0;
          t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + (a & b ^ a & c ^ b & c) | 0;
          k = g; g = f; f = e; e = d + t1 | 0; d = c; c = b; b = a; a = t1 + t2 | 0;
        }
        x = [a, b, c, d, e, f, g, k];
        for (i = 0; i < 8; i++) h[i] = h[i] + x[i] | 0;
      }
      return h;
    };
  }

  // solve finds the number whose SHA-256 after the salt is the challenge
  // (ALTCHA). With hasher, it is the worker's source: it uses nothing else.
  function solve(c) {
    var sha256 = hasher(), want = [], n, i, h;
    for (i = 0; i < 8; i++) want[i] = parseInt(c.challenge.substr(i * 8, 8), 16) | 0;
    for (n = 0; n <= c.maxnumber; n++) {
      h = sha256(c.salt + n);
      for (i = 0; i < 8 && h[i] === want[i]; i++);
      if (i === 8) return n;
    }
    return -1;
  }

  // A Web Worker keeps the page responsive while it solves; where the page's
  // Content-Security-Policy forbids blob: workers, the page solves it.
  function solveInWorker(c) {
    var src, worker;
    try {
      src = URL.createObjectURL(new Blob(["var hasher=" + hasher + ";var solve=" + solve + ";onmessage=function(e){postMessage(solve(e.data))}"],
        { type: "text/javascript" }));
      worker = new Worker(src);
    } catch (e) {
      return Promise.resolve(solve(c));
    }
    return new Promise(function (resolve) {
      function done(n) {
        worker.terminate();
        URL.revokeObjectURL(src);
        resolve(n);
      }
      worker.onmessage = function (e) { done(e.data); };
      worker.onerror = function () { done(solve(c)); };
      worker.postMessage(c);
    });
  }

  // proofOfWork fetches a challenge and returns the altcha field's value.
  async function proofOfWork(form) {
    var response = await window.fetch(challengeURL(form), { mode: "cors", credentials: "omit" });
    var c = await response.json();
    var n = await solveInWorker(c);
    if (n < 0) throw new Error("unsolvable challenge");
    return btoa(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: n, salt: c.salt, signature: c.signature }));
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
      for (var i = 0; i < request.uploads.length; i++) {
        request.add(request.uploads[i].name, await upload(form, request, request.uploads[i]));
      }
      if (form.hasAttribute("data-formd-pow")) request.add("altcha", await proofOfWork(form));
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
      if (e instanceof UploadError) {
        clearErrors(form, state);
        var answer = { message: e.message, errors: [{ field: e.field, message: e.message }] };
        showErrors(form, state, answer.errors);
        showStatus(form, "error", e.message);
        emit(form, "formd:error", answer);
        return;
      }
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
