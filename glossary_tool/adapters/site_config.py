"""The site config's file name: the site generator's business, named here and nowhere else.

MkDocs reads ``mkdocs.yml``, and so does its successor Zensical, so a change of generator
need not move the file. The pipeline and the commands take the name from here (this module
imports nothing: ``glossary check`` pays nothing for it); the core stages never see it,
they are handed the path or what was read from the file (the reference GPUs, ``site_url``).
"""

from __future__ import annotations

#: The site config, at the repository root.
SITE_CONFIG = "mkdocs.yml"
