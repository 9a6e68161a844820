"""Allow ``python -m glossary_tool``."""

from glossary_tool.cli import main

raise SystemExit(main())
