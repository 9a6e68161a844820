/* Search by name: Material's search worker, with its results reordered by the terms' names.
 *
 * Material starts this file instead of its own worker (the `search` entry of the page config,
 * rewritten by the glossary plugin), with `?material=<its worker's file name>`. This wrapper
 * loads Material's worker unchanged, then reorders each result list it posts:
 *   1. terms with a name (title, abbreviation, alias, another vendor's name) equal to the query,
 *   2. terms with a name that starts with the query,
 *   3. the rest in Material's full-text order.
 * A term of tier 1 or 2 that full text missed is added. Names come from search-names.json
 * (glossary_tool/emit/search_names.py), fetched from the site itself.
 */
"use strict";

var SETUP = 0, QUERY = 2, RESULT = 3;
var docsByLocation = new Map();
var queries = [];
var names = null; /* [{location, order, names: [[normalized name, kind], ...]}] */
var namesReady = fetch(new URL("search-names.json", self.location.href))
  .then(function (response) { return response.ok ? response.json() : { terms: [] }; })
  .catch(function () { return { terms: [] }; })
  .then(function (data) {
    names = data.terms.map(function (entry, order) { return { location: entry[0], order: order, names: entry[1] }; });
  });

function normalize(query) {
  return query.toLowerCase().replace(/^["'\s]+|["'*\s]+$/g, "").replace(/\s+/g, " ");
}

/* Best (tier, kind, name length) of a term for the query; tier 0 exact, 1 prefix, 2 none. */
function match(term, query) {
  var best = { tier: 2, kind: 9, length: Infinity };
  term.names.forEach(function (pair) {
    var name = pair[0], kind = pair[1];
    var tier = name === query ? 0 : name.indexOf(query) === 0 ? 1 : 2;
    if (tier < best.tier || (tier === best.tier && (kind < best.kind || (kind === best.kind && name.length < best.length)))) {
      best = { tier: tier, kind: kind, length: name.length };
    }
  });
  return best;
}

function pageOf(group) {
  return group[0].location.split("#")[0];
}

function rerank(query, data) {
  var q = normalize(query || "");
  if (!q || !names || !data || !Array.isArray(data.items)) return data;
  var position = new Map();
  data.items.forEach(function (group, index) { if (group.length) position.set(pageOf(group), index); });
  var ranked = [];
  names.forEach(function (term) {
    var m = match(term, q);
    if (m.tier < 2) ranked.push({ term: term, m: m, at: position.has(term.location) ? position.get(term.location) : Infinity });
  });
  ranked.sort(function (a, b) {
    if (a.m.tier !== b.m.tier) return a.m.tier - b.m.tier;
    if (a.m.tier === 0) return a.m.kind - b.m.kind || a.at - b.at || a.term.order - b.term.order;
    return a.m.length - b.m.length || a.m.kind - b.m.kind || a.at - b.at || a.term.order - b.term.order;
  });
  var front = [];
  var taken = new Set();
  ranked.slice(0, 40).forEach(function (entry) {
    var location = entry.term.location;
    if (entry.at !== Infinity) {
      front.push(data.items[entry.at]);
    } else if (docsByLocation.has(location)) {
      front.push([Object.assign({}, docsByLocation.get(location), { score: 0, terms: {} })]);
    } else {
      return;
    }
    taken.add(location);
  });
  var rest = data.items.filter(function (group) { return !group.length || !taken.has(pageOf(group)); });
  return Object.assign({}, data, { items: front.concat(rest) });
}

addEventListener("message", function (event) {
  var message = event.data || {};
  if (message.type === SETUP && message.data && Array.isArray(message.data.docs)) {
    message.data.docs.forEach(function (doc) { if (doc.location.indexOf("#") < 0) docsByLocation.set(doc.location, doc); });
  } else if (message.type === QUERY) {
    queries.push(message.data);
  }
});

var post = self.postMessage.bind(self);
self.postMessage = function (message) {
  if (!message || message.type !== RESULT) return post(message);
  var query = queries.shift();
  namesReady.then(function () { post(Object.assign({}, message, { data: rerank(query, message.data) })); });
};

var material = new URL(self.location.href).searchParams.get("material") || "";
if (!/^search\.[0-9a-f]+\.min\.js$/.test(material)) throw new Error("search-worker.js: expected ?material=search.<hash>.min.js, got " + material);
importScripts(new URL("javascripts/workers/" + material, self.location.href).href);
