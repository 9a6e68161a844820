/* Link preview cards: a link to a term ([data-gg-preview], written by glossary_tool/emit/previews.py)
 * shows a card with the term's title, summary and opening paragraph
 *   - on hover (after a short delay), and while the pointer is on the card;
 *   - on keyboard focus, until focus leaves or Escape;
 *   - on touch: the first tap shows the card, a second tap on the same link follows it.
 * Works for links in text, in PTX/SASS listings and in drawings (SVG links use xlink:href).
 * Card data: assets/previews.json, fetched once from the site itself on first use.
 */
(function () {
  "use strict";

  var script = document.currentScript;
  var siteRoot = new URL("..", script ? script.src : location.href); /* this file is assets/preview.js */
  var XLINK = "http://www.w3.org/1999/xlink";
  var data = null, loading = null;
  var card = null, owner = null, showTimer = 0, hideTimer = 0, armed = null, lastPointer = "mouse";

  function load() {
    if (!loading) {
      loading = fetch(new URL("assets/previews.json", siteRoot))
        .then(function (r) { return r.ok ? r.json() : {}; })
        .catch(function () { return {}; })
        .then(function (d) { data = d; return d; });
    }
    return loading;
  }

  function hrefOf(link) {
    return link.getAttribute("href") || link.getAttributeNS(XLINK, "href") || "";
  }

  /* Site-relative address of the page a link leads to ("device-software/warp/"), or null. */
  function keyOf(link) {
    var url = new URL(hrefOf(link), location.href);
    if (url.origin !== siteRoot.origin || url.pathname.indexOf(siteRoot.pathname) !== 0) return null;
    return url.pathname.slice(siteRoot.pathname.length);
  }

  function previewLink(target) {
    return target && target.closest ? target.closest("a[data-gg-preview]") : null;
  }

  function ensureCard() {
    if (card) return card;
    card = document.createElement("div");
    card.id = "gg-preview";
    card.className = "gg-preview md-typeset";
    card.setAttribute("role", "tooltip");
    card.hidden = true;
    card.addEventListener("mouseenter", function () { clearTimeout(hideTimer); });
    card.addEventListener("mouseleave", function () { scheduleHide(); });
    document.body.appendChild(card);
    return card;
  }

  function fill(entry, link) {
    var c = ensureCard();
    c.replaceChildren();
    var head = document.createElement("p");
    head.className = "gg-preview__title";
    var strong = document.createElement("strong");
    strong.textContent = entry.title;
    var section = document.createElement("span");
    section.className = "gg-preview__section";
    section.textContent = entry.section;
    head.append(strong, " ", section);
    var summary = document.createElement("p");
    summary.className = "gg-preview__summary";
    summary.textContent = entry.summary;
    c.append(head, summary);
    if (entry.opening && entry.opening !== entry.summary) {
      var opening = document.createElement("p");
      opening.className = "gg-preview__opening";
      opening.textContent = entry.opening;
      c.append(opening);
    }
    var open = document.createElement("a");
    open.className = "gg-preview__open";
    open.href = new URL(hrefOf(link), location.href).href;
    open.textContent = "Open " + entry.title + " →";
    c.append(open);
  }

  function place(link) {
    var c = card, box = link.getBoundingClientRect();
    var width = Math.min(380, document.documentElement.clientWidth - 16);
    c.style.width = width + "px";
    var left = Math.min(Math.max(8, box.left + box.width / 2 - width / 2), document.documentElement.clientWidth - width - 8);
    c.style.left = left + window.scrollX + "px";
    var below = box.bottom + 8, height = c.offsetHeight;
    var top = below + height > window.innerHeight && box.top - height - 8 > 0 ? box.top - height - 8 : below;
    c.style.top = top + window.scrollY + "px";
  }

  function show(link) {
    clearTimeout(hideTimer);
    var key = keyOf(link);
    if (key === null) return;
    load().then(function (d) {
      var entry = d[key];
      if (!entry || !link.isConnected) return;
      if (owner && owner !== link) owner.removeAttribute("aria-describedby");
      fill(entry, link);
      card.hidden = false;
      place(link);
      owner = link;
      link.setAttribute("aria-describedby", card.id);
    });
  }

  function hide() {
    clearTimeout(showTimer);
    if (card) card.hidden = true;
    if (owner) owner.removeAttribute("aria-describedby");
    owner = null;
    armed = null;
  }

  function scheduleHide() {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(hide, 200);
  }

  var pressed = null; /* a link being clicked with a mouse or pen: it is being followed, not previewed */
  document.addEventListener("pointerdown", function (e) {
    lastPointer = e.pointerType || "mouse";
    pressed = lastPointer === "touch" ? null : previewLink(e.target);
    if (pressed) clearTimeout(showTimer);
  }, true);

  document.addEventListener("mouseover", function (e) {
    if (lastPointer === "touch") return;
    var link = previewLink(e.target);
    if (!link) return;
    clearTimeout(hideTimer);
    if (link === owner) return;
    clearTimeout(showTimer);
    showTimer = setTimeout(function () { show(link); }, 300);
  });

  document.addEventListener("mouseout", function (e) {
    var link = previewLink(e.target);
    if (!link || (e.relatedTarget && (link.contains(e.relatedTarget) || (card && card.contains(e.relatedTarget))))) return;
    clearTimeout(showTimer);
    if (lastPointer !== "touch") scheduleHide();
  });

  document.addEventListener("focusin", function (e) {
    var link = previewLink(e.target);
    if (link && link === pressed) return;
    if (link && lastPointer !== "touch") show(link);
    else if (!(card && card.contains(e.target))) scheduleHide();
  });

  document.addEventListener("focusout", function (e) {
    if (previewLink(e.target) && !(card && e.relatedTarget && card.contains(e.relatedTarget))) scheduleHide();
  });

  document.addEventListener("keydown", function (e) {
    pressed = null;
    lastPointer = "keyboard";
    if (e.key === "Escape" && card && !card.hidden) hide();
  });

  /* Touch: the first tap on a link shows its card; a second tap on the same link follows it. */
  document.addEventListener("click", function (e) {
    var link = previewLink(e.target);
    if (lastPointer !== "touch") return;
    if (!link) {
      if (!(card && card.contains(e.target))) hide();
      return;
    }
    if (armed === link) return; /* second tap: let the link (and Material's instant navigation) go */
    e.preventDefault();
    e.stopPropagation();
    armed = link;
    show(link);
  }, true);

  /* The card shows the summary: the links' own title would also raise Material's tooltip over it.
   * Removed before Material mounts the first page; on pages that instant navigation brings in,
   * Material may already have bound a tooltip, which then has no text and is hidden (glossary.css). */
  function untitle() {
    document.querySelectorAll("a[data-gg-preview][title]").forEach(function (a) { a.removeAttribute("title"); });
  }
  untitle();

  window.addEventListener("resize", function () { if (owner && card && !card.hidden) place(owner); });
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(function () { hide(); untitle(); }); /* instant navigation: a new page, no card */
  }
})();
