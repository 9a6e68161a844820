"""Load stage: term files -> immutable :class:`~glossary_tool.model.Term` values + diagnostics."""

from glossary_tool.load.files import LoadResult, load_tree

__all__ = ["LoadResult", "load_tree"]
