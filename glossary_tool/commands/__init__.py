"""What the `glossary` subcommands do, one module each.

``cli.py`` parses arguments and calls these; everything else in the package is the model
and the stages (load, link, verify, draw, emit) they drive, or an adapter at the edge.
"""
