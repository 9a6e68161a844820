"""gpu-glossary: load, link, verify, draw and emit an interlinked GPU glossary.

The core (load, link, verify, draw, emit, publish) is plain Python; the site generator
appears only in ``glossary_tool.adapters``: its plugin and the site build that drives it.
"""

__version__ = "0.1.0"
