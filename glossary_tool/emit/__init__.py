"""Emit stage: the loaded glossary as Markdown pages (site, llms.txt) and HTML (books)."""
