"""Adapters to outside tools. Only this package imports MkDocs."""
