"""Reading the built site in Chromium: search by name, preview cards, the occupancy calculator,
Compiler Explorer links, linked PTX/SASS opcodes and a 390 px wide phone screen.

Same harness as tests/test_browser.py (the real site, served from 127.0.0.1, every request
off the host aborted and failing the test). The occupancy test takes its oracle from the
committed records of the ``occupancy-oracle`` snippet and skips only while there are none.
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from urllib.parse import urlsplit

import pytest

from glossary_tool.emit import compiler_explorer, occupancy, roofline, search_names
from glossary_tool.emit.links import term_src
from glossary_tool.verify.records import read_record
from tests import test_browser as harness
from tests.built_site import has_class
from tests.conftest import REPO
from tests.test_browser import ARTIFACTS, HOME, PREFIX, WARP, PagePool

# The harness's fixtures and skip marks (Chromium, Playwright), shared rather than copied.
pytestmark = harness.pytestmark
glossary, web = harness.glossary, harness.web  # ``browser``, ``base_url``, ``pages``: tests/conftest.py

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - the module is skipped then
    expect = None


# --- search by name ---------------------------------------------------------------------------

#: (what a reader types, the term that must come first). Titles, abbreviations and aliases of
#: every section, and other vendors' names (AMD, Apple, Intel, Vulkan) from `equivalents`.
NAME_QUERIES = [
    ("SM", "streaming-multiprocessor"),
    ("CTA", "thread-block"),
    ("wavefront", "warp"),
    ("LDS", "shared-memory"),
    ("SMEM", "shared-memory"),
    ("TMA", "tensor-memory-accelerator"),
    ("MFU", "model-flops-utilization"),
    ("smsp", "sm-sub-partition"),
    ("GPC", "graphics-processing-cluster"),
    ("TMEM", "tensor-memory"),
    ("SFU", "special-function-unit"),
    ("Compute Unit", "streaming-multiprocessor"),
    ("Xe-core", "streaming-multiprocessor"),
    ("VRAM", "gpu-ram"),
    ("HBM", "hbm"),
    ("L2", "l2-cache"),
    ("Matrix Core", "tensor-core"),
    ("Hopper", "hopper-architecture"),
    ("GH100", "h100"),
    ("blit command encoder", "copy-engine"),
    ("SIMD-group", "warp"),
    ("subgroup", "warp"),
    ("threadgroup memory", "shared-memory"),
    ("workgroup", "thread-block"),
    ("DSMEM", "distributed-shared-memory"),
    ("cp.async", "async-copy"),
    ("LDGSTS", "async-copy"),
    ("__syncthreads", "syncthreads"),
    ("HGMMA", "wgmma"),
    ("PTX", "parallel-thread-execution"),
    ("SASS", "streaming-assembler"),
    ("bfloat16", "bf16"),
    ("E4M3", "fp8"),
    ("FMA", "fused-multiply-add"),
    ("ballot", "warp-vote"),
    ("nd_range", "thread-block-grid"),
    ("nvcc", "nvcc"),
    ("cudart", "cuda-runtime-api"),
    ("hipStream_t", "cuda-stream"),
    ("MIOpen", "cudnn"),
    ("oneDNN", "cudnn"),
    ("ncu", "nsight-compute"),
    ("nsys", "nsight-systems"),
    ("PDL", "programmatic-dependent-launch"),
    ("Thrust", "cccl"),
    ("ROCm", "cuda-software-platform"),
    ("roofline", "roofline-model"),
    ("ILP", "instruction-level-parallelism"),
    ("prefix sum", "parallel-scan"),
    ("Little's Law", "littles-law"),
    ("NCCL", "nccl"),
    ("RCCL", "nccl"),
    ("Xe Link", "nvlink"),
    ("NVL72", "nvlink-switch-system"),
    ("MIG", "mig"),
    ("TDP", "thermal-design-power"),
    ("allreduce", "all-reduce"),
    ("Xid", "xid-error"),
]


def _expected(query: str, listed: str, glossary) -> str:
    """The term a query must put first: the listed one, unless another term has the query as its
    own title, abbreviation or alias (that term comes first: a vendor's name ranks below them)."""
    key = search_names.normalize(query)
    own = [t.slug for t in glossary.ordered_terms() if any(name == key and kind <= search_names.ALIAS for name, kind in search_names.term_names(t))]
    return listed if not own or listed in own else own[0]


def _open_search(page) -> None:
    page.keyboard.press("s")
    expect(page.locator("input.md-search__input")).to_be_focused()
    expect(page.locator(".md-search-result__meta")).not_to_contain_text("Initializing", timeout=20_000)


#: Resolves with the result links once the list is in the wanted state: empty (``false``), or
#: holding results that have not changed for 80 ms (``true``: the search worker may answer the
#: same query twice, on input and on keyup, and the second answer re-renders the list). One
#: round trip, woken by the list's own mutations: polling from Python cost 0.1-0.25 s a step.
_RESULTS = """(want) => new Promise((resolve, reject) => {
  const list = document.querySelector('.md-search-result__list');
  const ready = () => (list.querySelector('.md-search-result__item') !== null) === want;
  let timer = null;
  const observer = new MutationObserver(check);
  const giveUp = setTimeout(() => { observer.disconnect(); reject(new Error(`search results never ${want ? 'came' : 'cleared'}`)); }, 10000);
  function done() {
    observer.disconnect(); clearTimeout(giveUp);
    resolve([...list.querySelectorAll('.md-search-result__item > a')].map(a => a.href));
  }
  function check() { clearTimeout(timer); if (ready()) timer = setTimeout(done, want ? 80 : 0); }
  observer.observe(list, {childList: true, subtree: true, characterData: true});
  check();
})"""


def _results_for(page, query: str) -> list[str]:
    """The result links for ``query`` once they are rendered (the list is emptied in between, so
    no link of the previous query is read)."""
    keyboard = page.keyboard  # into the focused field (_open_search): a locator's checks cost a round trip each
    keyboard.press("Control+A")
    keyboard.press("Delete")  # Material searches on keyup
    page.evaluate(_RESULTS, False)
    keyboard.insert_text(query)
    keyboard.press("End")
    return [h.split("?")[0] for h in page.evaluate(_RESULTS, True)]


def test_name_queries_cover_every_section_and_vendor(glossary):
    sections = {glossary.terms[_expected(query, slug, glossary)].section for query, slug in NAME_QUERIES}
    assert sections == {s.slug for s in glossary.sections}
    vendor_hits = set()
    for query, slug in NAME_QUERIES:
        term = glossary.terms[slug]
        own = [term.title, term.abbreviation or "", *term.aliases]
        if not any(query.casefold() == name.casefold() or query.casefold() in name.casefold().replace("(", " ").split(" ") for name in own):
            vendor_hits.update(k for k, v in term.equivalents if query.casefold() in v.casefold())
    assert vendor_hits >= {"amd", "apple", "intel", "vulkan"}, vendor_hits
    assert len(NAME_QUERIES) >= 40


def test_search_puts_the_named_term_first(pages: PagePool, glossary):
    web = pages.take(**HOME)
    _open_search(web.page)
    wrong = []
    for query, listed in NAME_QUERIES:
        slug = _expected(query, listed, glossary)
        term = glossary.terms[slug]
        expected = f"{web.base}{term.section}/{slug}/"
        hrefs = _results_for(web.page, query)
        if hrefs[:1] != [expected]:
            wrong.append(f"{query!r}: expected {slug}, got {[h.removeprefix(web.base) for h in hrefs[:3]]}")
    assert not wrong, f"{len(wrong)} of {len(NAME_QUERIES)} name queries do not list their term first:\n" + "\n".join(wrong)
    web.assert_clean()


def test_prefix_matches_come_right_after_the_exact_one(pages: PagePool, glossary):
    """'warp' is the Warp; terms with a name starting 'warp' (Warp Scheduler, Warp Shuffle...) come before full-text hits."""
    web = pages.take(**HOME)
    _open_search(web.page)
    hrefs = [h.removeprefix(web.base) for h in _results_for(web.page, "warp")]
    prefixed = {f"{t.section}/{t.slug}/" for t in glossary.ordered_terms() if any(n.casefold().startswith("warp") for n in (t.title, *(t.aliases), t.abbreviation or "")) and t.slug != "warp"}
    assert hrefs[0] == "device-software/warp/"
    shown = min(len(prefixed), len(hrefs) - 1, 8)  # Material renders the first results, more on scrolling
    assert len(prefixed) >= 5 and shown >= 5
    assert set(hrefs[1 : 1 + shown]) <= prefixed, hrefs[: 1 + shown]
    web.assert_clean()


def test_search_finds_a_term_by_an_alias_first(pages: PagePool, glossary):
    """Last of the searches on the shared home page (tests/test_browser.py's run before these):
    the click on the result leaves it."""
    alias, slug = harness._distinct_alias(glossary)
    term = glossary.terms[slug]
    web = pages.take(**HOME)
    expected = f"{web.base}{term.section}/{slug}/"
    hrefs = harness._search(web, alias, expected, within=1)
    assert hrefs[:1] == [expected], f"'{alias}' should list {slug} first: {hrefs[:5]}"
    web.page.locator(".md-search-result__item > a").first.click()
    web.page.wait_for_url(f"**/{term.section}/{slug}/**")
    expect(web.page.locator("article h1").first).to_contain_text(term.title)
    web.assert_clean()


# --- previews ----------------------------------------------------------------------------------


def _preview_link(page, target_slug: str, glossary):
    term = glossary.terms[target_slug]
    link = page.locator(f"article p a[data-gg-preview][href$='/{term.section}/{term.slug}/']").first
    link.scroll_into_view_if_needed()
    return link, term


def _opening_words(term) -> str:
    """A few words of the target's first paragraph, as the page shows them (cross-references as text)."""
    return re.sub(r"\[\[[^\]]*\]\]", "", term.body.split("\n\n")[0]).split()[0]


def test_hovering_a_cross_reference_shows_a_preview_card(pages: PagePool, glossary):
    web = pages.take(WARP)
    link, term = _preview_link(web.page, "thread-block", glossary)
    link.hover()
    card = web.page.locator("#gg-preview")
    expect(card).to_be_visible()
    expect(link).to_have_attribute("aria-describedby", "gg-preview")
    expect(card.locator(".gg-preview__title strong")).to_have_text(term.display_title)
    expect(card.locator(".gg-preview__summary")).to_have_text(term.summary)
    expect(card.locator(".gg-preview__opening")).to_contain_text(_opening_words(term))
    assert web.page.locator(".md-tooltip2--active").count() == 0, "Material's tooltip pops over the card"
    card.hover()  # the pointer may move onto the card
    web.page.wait_for_timeout(400)
    expect(card).to_be_visible()
    web.page.mouse.move(0, 0)
    expect(card).to_be_hidden()
    expect(link).not_to_have_attribute("aria-describedby", "gg-preview")
    web.assert_clean()


def test_keyboard_focus_shows_the_card_and_escape_closes_it(pages: PagePool, glossary):
    web = pages.take(WARP)
    link, term = _preview_link(web.page, "thread", glossary)
    link.focus()
    card = web.page.locator("#gg-preview")
    expect(card).to_be_visible()
    expect(card.locator(".gg-preview__summary")).to_have_text(term.summary)
    web.page.keyboard.press("Escape")
    expect(card).to_be_hidden()
    web.page.keyboard.press("Shift+Tab")  # back and forth: focusing the link again brings the card back
    web.page.keyboard.press("Tab")
    expect(link).to_be_focused()
    expect(card).to_be_visible()
    web.page.keyboard.press("Tab")  # focus moves on: this card goes (the next link may show its own)
    web.page.wait_for_function("(summary) => { const c = document.getElementById('gg-preview'); return c.hidden || c.querySelector('.gg-preview__summary').textContent !== summary; }", arg=term.summary)
    web.assert_clean()


def test_a_tap_shows_the_card_and_a_second_tap_follows_the_link(browser, base_url: str, glossary):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, service_workers="block")
    try:
        page = context.new_page()
        page.goto(base_url + "device-software/warp/")
        page.wait_for_load_state("networkidle")
        link, term = _preview_link(page, "thread-block", glossary)
        link.tap()
        card = page.locator("#gg-preview")
        expect(card).to_be_visible()
        expect(card.locator(".gg-preview__summary")).to_have_text(term.summary)
        assert page.url.endswith("/device-software/warp/")
        box, view = card.bounding_box(), page.viewport_size
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= view["width"], box
        link.tap()
        page.wait_for_url(f"**{PREFIX}{term.section}/{term.slug}/")
    finally:
        context.close()


def test_diagram_boxes_and_map_nodes_preview_their_term(pages: PagePool, glossary, real_site):
    web = pages.take("map/" if (real_site / "map/index.html").exists() else "device-hardware/streaming-multiprocessor/")
    node = web.page.locator("article svg a[data-gg-preview]").first
    node.scroll_into_view_if_needed()
    slug = node.evaluate("a => a.getAttributeNS('http://www.w3.org/1999/xlink', 'href')").rstrip("/").split("/")[-1]
    node.hover()
    card = web.page.locator("#gg-preview")
    expect(card).to_be_visible()
    expect(card.locator(".gg-preview__summary")).to_have_text(glossary.terms[slug].summary)
    web.assert_clean()


# --- snippets: Compiler Explorer and linked opcodes ---------------------------------------------


def _decode(url: str) -> dict:
    parts = urlsplit(url)
    assert parts.netloc == "godbolt.org" and parts.path.startswith("/clientstate/")
    return json.loads(zlib.decompress(base64.urlsafe_b64decode(parts.path.removeprefix("/clientstate/"))))


def test_every_cuda_snippet_has_a_compiler_explorer_link(built_site, glossary):
    # lxml trees of the shared parsed site (tests/built_site.py): a BeautifulSoup parse of every page with a snippet took most of this test
    for term in glossary.ordered_terms():
        cuda = [s for s in term.snippets if s.lang == "cuda"]
        if not cuda:
            continue
        page = built_site.page(term_src(term).removesuffix(".md") + "/index.html")
        links = [a.attrib["href"] for a in page.xpath(f"//article//a[{has_class('snippet-godbolt')}]")]
        assert len(links) == len(cuda), term.slug
        for snippet, href in zip(cuda, links, strict=True):
            session = _decode(href)["sessions"][0]
            assert session["source"] == snippet.source, (term.slug, snippet.name)
            assert session["compilers"][0]["options"] == compiler_explorer.compile_flags(snippet)


def test_compiler_explorer_link_sends_nothing_until_clicked(pages: PagePool, glossary):
    term = next(t for t in glossary.ordered_terms() if any(s.lang == "cuda" for s in t.snippets))
    web = pages.take(f"{term.section}/{term.slug}/")
    link = web.page.locator("article a.snippet-godbolt").first
    expect(link).to_be_visible()
    assert link.get_attribute("href").startswith("https://godbolt.org/clientstate/")
    assert not [u for u in web.requests if "godbolt" in u]
    web.assert_clean()


def test_sass_opcodes_link_to_their_terms_with_a_preview(pages: PagePool, glossary, real_project):
    loaded_table = real_project.instructions
    term = glossary.terms["warp-shuffle"]
    web = pages.take(f"{term.section}/{term.slug}/")
    page = web.page
    page.locator("article .tabbed-labels label", has_text="SASS").first.click()
    links = page.locator("article .gg-asm-sass a.gg-insn, article .language-sass a.gg-insn")
    expect(links.first).to_be_visible()
    opcodes = links.all_inner_texts()
    assert any(op.startswith("SHFL") for op in opcodes), opcodes
    for op in set(opcodes):
        assert loaded_table.term_for(op, "sass") is not None, op
    shfl = page.locator("article a.gg-insn", has_text=re.compile(r"^SHFL")).first
    shfl.hover()
    expect(page.locator("#gg-preview .gg-preview__summary")).to_have_text(glossary.terms["warp-shuffle"].summary)
    web.assert_clean()


# --- the interactive pages: axe first, on the fresh load -----------------------------------


@pytest.mark.parametrize("path", ["performance/occupancy/", "performance/roofline-model/"])
def test_interactive_pages_pass_axe(pages: PagePool, path: str):
    """Both palettes on one fresh page load (harness.switch_palette), a screenshot of the widget
    in each; the page is then handed on to the widget's own tests below."""
    watched = pages.take(path, fresh=True)
    bad = []
    for scheme in harness.SCHEMES:
        harness.switch_palette(watched.page, scheme)
        bad += [f"{scheme}: {v['impact']} {v['id']}: {v['help']} {[n['target'] for n in v['nodes'][:3]]}" for v in harness.axe_violations(watched.page, "document.querySelector('article')")]
        ARTIFACTS.mkdir(exist_ok=True)
        widget = watched.page.locator("[data-gg-widget]").first
        if widget.count():
            widget.scroll_into_view_if_needed()
            widget.screenshot(path=str(ARTIFACTS / f"{path.strip('/').split('/')[-1]}-{scheme}.png"))
    assert not bad, "\n".join(bad)
    watched.assert_clean()


# --- occupancy calculator ------------------------------------------------------------------------


def _calculator_answers(page, gpu_index: int, cases) -> list[str]:
    """Run every case through the form (values set, an input event each) and read Blocks per SM."""
    return page.evaluate(
        """([gpu, cases]) => {
             const root = document.querySelector('[data-gg-widget="occupancy"]');
             const form = root.querySelector('form');
             form.elements.gpu.value = String(gpu);
             form.elements.gpu.dispatchEvent(new Event('change', {bubbles: true}));
             return cases.map(([threads, regs, smem]) => {
               form.elements.threads.value = threads;
               form.elements.regs.value = regs;
               form.elements.smem.value = smem;
               form.elements.smem.dispatchEvent(new Event('input', {bubbles: true}));
               return root.querySelector('output[name="blocks"]').value;
             });
           }""",
        [gpu_index, cases],
    )


def test_occupancy_calculator_equals_the_cuda_runtime_on_every_gpu(pages: PagePool, glossary):
    runs = occupancy.runs(glossary, REPO / "snippets")
    if not runs:
        pytest.skip("no verified record of the occupancy-oracle snippet yet: run `glossary verify --term occupancy` on the H100 and H200")
    web = pages.take("performance/occupancy/")
    page = web.page
    options = page.locator('[data-gg-widget="occupancy"] select[name="gpu"] option').all_inner_texts()
    assert options == [run.gpu for run in runs]
    for index, run in enumerate(runs):
        assert len(run.cases) >= 60, f"{run.gpu}: only {len(run.cases)} configurations"
        answers = _calculator_answers(page, index, [[c.block, c.regs, c.shared] for c in run.cases])
        wrong = [f"{c.kernel} regs {c.regs} block {c.block} smem {c.shared}: runtime {c.blocks if c.error is None else c.error}, calculator {a}" for c, a in zip(run.cases, answers, strict=True) if a != str(c.blocks if c.error is None else 0)]
        assert not wrong, f"{run.gpu}: {len(wrong)} of {len(run.cases)} configurations differ:\n" + "\n".join(wrong[:20])
    # the form itself: typing into it updates every output and the chart
    form = page.locator('[data-gg-widget="occupancy"] form')
    form.locator('input[name="threads"]').fill("1024")
    form.locator('input[name="regs"]').fill("64")
    form.locator('input[name="smem"]').fill("0")
    expect(page.locator('output[name="limiter"]')).to_contain_text("registers")
    expect(page.locator(".gg-occupancy__plot rect.gg-occupancy__bar--chosen")).to_have_count(1)
    web.assert_clean()


def test_occupancy_calculator_agrees_with_the_occupancy_api_snippet(pages: PagePool, glossary):
    """A second record: the occupancy-api snippet's five launches, on the GPU that printed them."""
    runs = occupancy.runs(glossary, REPO / "snippets")
    term = glossary.terms["occupancy"]
    snippet = next(s for s in term.snippets if s.name == "occupancy-api")
    record = read_record(REPO / "snippets", term, snippet)
    gpu = next((i for i, r in enumerate(runs) if record is not None and record.machine is not None and r.gpu == record.machine.gpu_name), None)
    if gpu is None:
        pytest.skip("no verified occupancy-oracle record from the GPU that ran occupancy-api")
    lines = re.findall(r"^\S+\s+block\s+(\d+),\s+(\d+) regs,\s+(\d+) KiB smem:\s+(\d+) blocks/SM", record.stdout, re.M)
    assert len(lines) == 5
    web = pages.take("performance/occupancy/")
    answers = _calculator_answers(web.page, gpu, [[int(b), int(r), int(k) * 1024] for b, r, k, _ in lines])
    assert answers == [n for *_, n in lines]
    web.assert_clean()


# --- roofline -------------------------------------------------------------------------------------


def test_roofline_plots_each_gpus_measurements_and_its_roof(pages: PagePool, glossary):
    runs = roofline.runs(glossary, REPO / "snippets")
    if not runs:
        pytest.skip("no verified record of the roofline-sweep snippet")
    web = pages.take("performance/roofline-model/")
    page = web.page
    widget = page.locator('[data-gg-widget="roofline"]')
    widget.scroll_into_view_if_needed()
    for index, run in enumerate(runs):
        plotted = widget.locator(f"circle.gg-roofline__series-{index}").evaluate_all("els => els.map(e => [Number(e.dataset.intensity), Number(e.dataset.measured)])")
        assert plotted == [[p.intensity, p.measured] for p in run.points], run.gpu
    for point in runs[0].points:  # the form gives the roof each GPU printed for that intensity
        widget.locator('input[name="flops"]').fill(str(point.intensity))
        widget.locator('input[name="bytes"]').fill("1")
        for index, run in enumerate(runs):
            printed = next(p.roof for p in run.points if p.intensity == point.intensity)
            shown = float(widget.locator(f'output[name="attainable-{index}"]').inner_text().split()[0].replace(",", ""))
            assert abs(shown - printed) <= 0.001 * printed + 1, (run.gpu, point.intensity, shown, printed)
            bound = widget.locator(f'output[name="bound-{index}"]').inner_text()
            assert bound.startswith("memory" if point.intensity < run.ridge else "compute"), (run.gpu, point.intensity, bound)
    web.assert_clean()


# --- small screens --------------------------------------------------------------------------------


def _page_with_table_figure_and_snippet(glossary) -> str:
    for term in glossary.ordered_terms():
        if term.snippets and term.diagrams and term.equivalents:
            return f"{term.section}/{term.slug}/"
    return "device-hardware/streaming-multiprocessor/"


def test_a_term_page_reads_on_a_390_px_phone(browser, base_url: str, glossary):
    path = _page_with_table_figure_and_snippet(glossary)
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, service_workers="block")
    try:
        page = context.new_page()
        page.goto(base_url + path)
        page.wait_for_load_state("networkidle")
        report = page.evaluate(
            """() => {
                 const vw = document.documentElement.clientWidth;
                 const article = document.querySelector('article');
                 const inside = (el) => el.closest('.md-typeset__scrollwrap, pre, .tabbed-labels, svg');
                 const overflow = [...article.querySelectorAll('*')]
                   .filter(el => !inside(el) && el.getBoundingClientRect().right > vw + 1)
                   .map(el => el.tagName + '.' + el.className);
                 const tables = [...article.querySelectorAll('table')].map(t => !!t.closest('.md-typeset__scrollwrap'));
                 const figures = [...article.querySelectorAll('figure svg')].map(s => s.getBoundingClientRect().right <= vw + 1);
                 const tabs = [...article.querySelectorAll('.tabbed-labels')].map(l => l.getBoundingClientRect().right <= vw + 1);
                 const fontPx = parseFloat(getComputedStyle(article.querySelector('p')).fontSize);
                 return {vw, scroll: document.documentElement.scrollWidth, overflow, tables, figures, tabs, fontPx};
               }"""
        )
        assert report["scroll"] <= report["vw"], f"the page scrolls sideways: {report}"
        assert not report["overflow"], f"elements wider than the screen: {report['overflow'][:10]}"
        assert report["tables"] and all(report["tables"]), "every table scrolls inside its own wrapper"
        assert report["figures"] and all(report["figures"]), "every drawing scales to the column"
        assert report["tabs"] and all(report["tabs"]), "snippet tabs fit the width"
        assert report["fontPx"] >= 14
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "term-390.png"), full_page=True)
        assert (ARTIFACTS / "term-390.png").stat().st_size > 20_000
    finally:
        context.close()
