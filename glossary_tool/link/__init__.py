"""Link stage: resolve cross-references after everything is loaded, build the term graph."""

from glossary_tool.link.linker import link

__all__ = ["link"]
