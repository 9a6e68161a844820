"""Link stage: resolve cross-references after everything is loaded, build the term graph."""

from glossary_tool.link.linker import link, link_glossary, term_link_graph

__all__ = ["link", "link_glossary", "term_link_graph"]
