"""Publishing: what the site says about itself beyond the terms.

Page dates from one pass over git history (history.py), the What's new page and Atom feed
(feed.py), schema.org JSON-LD and terms.json (machine.py), "Cite this term" (cite.py) and
the footer's build line. Everything here is a pure function over the loaded Glossary and
the history, returning data, XML or an HTML fragment; the site adapter's plugin inserts
them. Nothing here imports the site generator.
"""
