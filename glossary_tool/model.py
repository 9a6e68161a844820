"""Immutable data model shared by every stage (load -> link -> verify -> draw -> emit).

Nothing here knows about files on disk, the site generator or the GPU: stages build these values
and pass them on, which keeps each stage testable on its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType

SECTIONS: tuple[str, ...] = (
    "device-hardware",
    "device-software",
    "host-software",
    "performance",
    "multi-gpu",
    "amd",
)

SECTION_TITLES: Mapping[str, str] = MappingProxyType(
    {
        "device-hardware": "Device Hardware",
        "device-software": "Device Software",
        "host-software": "Host Software",
        "performance": "Performance",
        "multi-gpu": "Multi-GPU",
        "amd": "AMD GPUs and ROCm",
    }
)

#: Vendor columns of ``equivalents`` with their display names (the Rosetta page's header).
VENDORS: Mapping[str, str] = MappingProxyType(
    {
        "amd": "AMD ROCm/HIP",
        "apple": "Apple Metal",
        "intel": "Intel SYCL/oneAPI",
        "vulkan": "Vulkan/WebGPU",
    }
)

#: Every key ``equivalents`` may label in a term's Equivalents table: the Rosetta vendors, plus
#: ``nvidia`` for pages about other platforms (an AMD term names its CUDA counterpart there).
PLATFORMS: Mapping[str, str] = MappingProxyType({**VENDORS, "nvidia": "NVIDIA CUDA"})


@dataclass(frozen=True)
class Source:
    title: str
    url: str


@dataclass(frozen=True)
class XRef:
    """A ``[[target#anchor|text]]suffix`` reference as written, with its file position."""

    target: str
    anchor: str | None
    text: str | None
    suffix: str
    line: int
    col: int
    raw: str
    #: Where the written text ends (file line, 1-based exclusive column); an xref may wrap.
    end_line: int = 0
    end_col: int = 0

    @property
    def shown(self) -> str:
        """The text a reader sees: explicit text, else the target as written, plus suffix."""
        return (self.text if self.text is not None else self.target) + self.suffix


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    anchor: str
    line: int


#: The architecture a snippet is compiled for when its ``arch`` option names none.
DEFAULT_ARCH = "sm_90"


@dataclass(frozen=True)
class Snippet:
    """A fenced block whose info string has the word ``verify``."""

    name: str
    lang: str
    options: tuple[tuple[str, str], ...]
    source: str
    expected: str | None
    line: int
    #: 0-based, end-exclusive line range in the body covering the fence and its output fence.
    body_start: int
    body_end: int

    def option(self, key: str, default: str | None = None) -> str | None:
        return dict(self.options).get(key, default)

    @property
    def arch(self) -> str:
        """The GPU architecture it is compiled for: its ``arch`` option, else DEFAULT_ARCH."""
        return self.option("arch", DEFAULT_ARCH) or DEFAULT_ARCH


@dataclass(frozen=True)
class Section:
    slug: str
    title: str
    summary: str
    body: str
    path: str
    terms: tuple[str, ...]
    #: The intro page as a pseudo-term (slug ``_index:<section>``) so its [[xrefs]] resolve.
    page: Term | None = None


@dataclass(frozen=True)
class Term:
    slug: str
    section: str
    path: str
    title: str
    summary: str
    body: str
    #: Number of file lines before the body (front matter and delimiters).
    body_offset: int
    abbreviation: str | None = None
    aliases: tuple[str, ...] = ()
    sources: tuple[Source, ...] = ()
    equivalents: tuple[tuple[str, str], ...] = ()
    #: ``[[...]]`` references inside ``equivalents`` values, keyed by vendor, with file positions.
    equivalent_xrefs: tuple[tuple[str, XRef], ...] = ()
    diagrams: tuple[str, ...] = ()
    xrefs: tuple[XRef, ...] = ()
    snippets: tuple[Snippet, ...] = ()
    headings: tuple[Heading, ...] = ()
    words: int = 0
    #: 1-based file line of each front matter field, for diagnostics.
    field_lines: tuple[tuple[str, int], ...] = ()

    def line_of(self, field_name: str) -> int:
        return dict(self.field_lines).get(field_name, 1)

    @property
    def display_title(self) -> str:
        return f"{self.title} ({self.abbreviation})" if self.abbreviation else self.title

    @property
    def names(self) -> tuple[str, ...]:
        """Every name a cross-reference may use for this term."""
        names = [self.slug, self.title, *self.aliases]
        if self.abbreviation:
            names.append(self.abbreviation)
        return tuple(names)


@dataclass(frozen=True)
class Link:
    """A resolved cross-reference from ``source`` to ``target``."""

    source: str
    target: str
    xref: XRef


@dataclass(frozen=True)
class Glossary:
    """Everything every emitter needs, loaded and linked once."""

    root: str
    sections: tuple[Section, ...]
    terms: Mapping[str, Term]
    #: Outgoing resolved links per term slug, in body order.
    links: Mapping[str, tuple[Link, ...]]
    #: Incoming links per term slug: source slugs in reading order, each once.
    backlinks: Mapping[str, tuple[str, ...]]
    home: Section | None = None
    #: term slug -> vendor -> the resolved ``[[...]]`` of its ``equivalents`` value (the page it links).
    equivalent_links: Mapping[str, Mapping[str, Link]] = field(default_factory=dict)

    def ordered_terms(self) -> list[Term]:
        return [self.terms[slug] for section in self.sections for slug in section.terms if slug in self.terms]

    @cached_property
    def position(self) -> Mapping[str, int]:
        """slug -> index in the reading order; computed once (drawings sort neighbours by it)."""
        return {term.slug: i for i, term in enumerate(self.ordered_terms())}

    def link_for(self, term: str, xref: XRef) -> Link | None:
        for link in self.links.get(term, ()):
            if link.xref is xref:
                return link
        return None
