/* "Copy page as Markdown" on term pages (glossary_tool/emit/markdown_copy.py writes the button).
 *
 * The button fetches the page's Markdown copy (the file llms.txt links to) from this site and
 * puts it on the clipboard; nothing is requested from any other host. It starts hidden so that
 * a reader without script sees only the "View as Markdown" link. Clicks are handled on the
 * document, so pages swapped in by Material's instant navigation work without re-binding.
 */
(function () {
  "use strict";

  function reveal() {
    document.querySelectorAll("button.gg-md-copy[hidden]").forEach(function (button) {
      button.hidden = false;
    });
  }

  function say(button, text) {
    var status = button.parentNode.querySelector(".gg-md-status");
    if (status) status.textContent = text;
  }

  /* The clipboard API needs a secure context (https, localhost); elsewhere a hidden textarea and
     execCommand("copy") still work. */
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(area);
      if (ok) { resolve(); } else { reject(new Error("copy refused")); }
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button.gg-md-copy") : null;
    if (!button) return;
    var href = button.getAttribute("data-md-href");
    button.disabled = true;
    say(button, "Copying…");
    fetch(href, { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.text();
      })
      .then(copyText)
      .then(function () { say(button, "Copied to the clipboard."); })
      .catch(function () { say(button, "Could not copy: use View as Markdown."); })
      .then(function () { button.disabled = false; button.focus(); });
  });

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(reveal);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", reveal);
  } else {
    reveal();
  }
})();
