"""Allow ``python -m glossary_tool``."""

from glossary_tool.cli import run

run()
