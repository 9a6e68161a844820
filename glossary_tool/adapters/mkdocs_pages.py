"""MkDocs' rendering of the empty Markdown our pages hand it, without Python-Markdown.

Every page the plugin renders itself gives Python-Markdown an empty text (its HTML comes
in on_page_content). MkDocs 1.6's ``Page.render`` still builds a ``markdown.Markdown``
with every configured extension for it (about half a millisecond a page: 0.5 s of a
1,000-term build's critical path) before ``convert`` returns at once for a blank text.
:func:`skip_empty_render` gives such a page a ``render`` that sets what that render sets
for an empty text: no content, an empty table of contents, no title from the text, no
anchors and (above debug logging) no links to anchors.

Read for the MkDocs releases in ``READ_FOR``; under any other release the page is rendered
by MkDocs as before.
"""

from __future__ import annotations

import logging

import mkdocs
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import get_toc

#: MkDocs releases (major.minor) whose ``Page.render`` was read for this.
READ_FOR = ("1.6",)
_SUPPORTED = ".".join(mkdocs.__version__.split(".")[:2]) in READ_FOR


def skip_empty_render(page: Page) -> None:
    """Have MkDocs' render of ``page``, whose Markdown is empty, skip Python-Markdown
    (see the module text); leaves the page alone under another MkDocs release."""
    if not _SUPPORTED:
        return

    def render(config: MkDocsConfig, files: Files) -> None:
        if page.markdown:  # not empty after all (another plugin's on_page_markdown): MkDocs' own
            Page.render(page, config, files)
            return
        page.content = ""
        page.toc = get_toc([])
        page._title_from_render = None
        page.present_anchor_ids = set()
        if logging.getLogger("mkdocs.structure.pages").getEffectiveLevel() > logging.DEBUG:
            page.links_to_anchors = {}

    page.render = render  # type: ignore[method-assign]
