// formd dashboard: progressive enhancement only. Every page works without
// this file; with it, copy buttons appear next to secrets and snippets.
(function () {
  "use strict";
  if (!navigator.clipboard || !document.querySelectorAll) return;
  document.querySelectorAll("[data-copy]").forEach(function (button) {
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source) return;
    var label = button.textContent;
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(source.textContent).then(function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = label; }, 2000);
      }, function () {
        button.textContent = "Select and copy";
      });
    });
  });
})();
