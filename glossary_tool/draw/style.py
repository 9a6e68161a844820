"""One visual style for every drawing: palette constants, CSS classes, contrast maths.

Colours live here as constants and nowhere else, so the contrast test can prove WCAG AA
(4.5:1) for every text colour on every fill it can sit on, in both palettes. The SVGs carry
this CSS in their own ``<style>``: inline in the site it follows Material's palette toggle
(``[data-md-color-scheme="slate"]`` on <body>), and opened on its own it follows the reader's
``prefers-color-scheme``. The dark rules for the standalone case are keyed on ``:root.gg``,
which only matches when the SVG *is* the document, so they never fight the site's toggle.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from glossary_tool.model import SECTIONS

#: Tones a box may take: one per section, plus three for emphasis.
#: ``muted`` is for switched-off or inactive parts (drawn dashed), ``alert`` for the bad case.
TONES: tuple[str, ...] = (*SECTIONS, "neutral", "muted", "alert")
#: Shades of a tone, lightest (outer containers) to strongest (leaves) in the light palette.
SHADES: tuple[str, ...] = ("wash", "tint", "fill")

FONT_FAMILY = '-apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Helvetica, Arial, "Liberation Sans", sans-serif'
#: Font sizes in px (SVG user units); diagrams are laid out at most ~760 units wide, so these
#: stay at or near their nominal size in the site's content column.
SIZE_LABEL = 14.0
SIZE_CAPTION = 12.0
SIZE_TITLE = 17.0
SIZE_SMALL = 11.5


@dataclass(frozen=True)
class Tone:
    wash: str
    tint: str
    fill: str
    stroke: str


@dataclass(frozen=True)
class Palette:
    """Every colour one scheme uses. ``background`` is the page (Material default / slate)."""

    name: str
    background: str
    text: str
    caption: str
    arrow: str
    grid: str
    focus: str
    tones: Mapping[str, Tone]


LIGHT = Palette(
    name="light",
    background="#ffffff",
    text="#1f2328",
    caption="#3d444d",
    arrow="#4b5563",
    grid="#d0d7de",
    focus="#0b57d0",
    tones=MappingProxyType(
        {
            "device-hardware": Tone("#f1f8f4", "#dff0e6", "#c4e5d1", "#2f7d55"),
            "device-software": Tone("#f0f5fd", "#dde8fa", "#c5d8f5", "#3062b8"),
            "host-software": Tone("#f6f1fb", "#e9def6", "#d8c6ef", "#6f45a8"),
            "performance": Tone("#fdf5ec", "#fbe6d0", "#f6d0aa", "#a2560f"),
            "multi-gpu": Tone("#fcf1f3", "#f8dfe4", "#f1c4cd", "#a8364c"),
            "amd": Tone("#eef8f7", "#d9f0ee", "#bde3df", "#1c6b66"),
            "neutral": Tone("#f6f7f9", "#eceef1", "#dde1e6", "#5f6875"),
            "muted": Tone("#f7f7f8", "#eeeff1", "#e4e6e9", "#8a929c"),
            "alert": Tone("#fdf0ee", "#fbdcd7", "#f7c2b9", "#b3261e"),
        }
    ),
)

DARK = Palette(
    name="dark",
    #: Material's slate background, hsl(232, 15%, 14%).
    background="#1e2029",
    text="#eef0f3",
    caption="#c9d1d9",
    arrow="#aab2bd",
    grid="#3a3f4b",
    focus="#8ab4f8",
    tones=MappingProxyType(
        {
            "device-hardware": Tone("#1d2b25", "#22392e", "#2a4a3a", "#6fcf9f"),
            "device-software": Tone("#1d2536", "#223049", "#2b3d5e", "#8db4f5"),
            "host-software": Tone("#272136", "#302847", "#3d325a", "#c3a6ef"),
            "performance": Tone("#2f251c", "#3d2d1e", "#4d3824", "#f2b06f"),
            "multi-gpu": Tone("#30202a", "#3f2530", "#512d3b", "#f29aae"),
            "amd": Tone("#1a2b2a", "#1f3937", "#274a47", "#6fd3c9"),
            "neutral": Tone("#23262e", "#2b2f38", "#353a45", "#a3abb7"),
            "muted": Tone("#202329", "#25282f", "#2b2e36", "#7d8592"),
            "alert": Tone("#3a1f1e", "#4c2421", "#612b26", "#ff8f80"),
        }
    ),
)

PALETTES: tuple[Palette, ...] = (LIGHT, DARK)


def tone_class(tone: str, shade: str) -> str:
    """The class of a box rectangle: ``gg-<tone>-<shade>`` (fill and stroke)."""
    return f"gg-{tone}-{shade}"


def line_class(tone: str) -> str:
    """The class of a plot line or map node drawn in a tone's strong colour."""
    return f"gg-{tone}-line"


def dot_class(tone: str) -> str:
    return f"gg-{tone}-dot"


def text_class(tone: str) -> str:
    """Text in a tone's strong colour (section headings on the map)."""
    return f"gg-{tone}-text"


def _rules(palette: Palette) -> list[tuple[str, str]]:
    """(selector, declarations) pairs for one palette, in a fixed order.

    Each selector is a single compound (no commas), because :func:`css` prefixes it with the
    scheme's ancestor selector.
    """
    rules = [
        (".gg-bg", f"fill:{palette.background}"),
        (".gg-t", f"fill:{palette.text}"),
        (".gg-c", f"fill:{palette.caption}"),
        (".gg-a", f"stroke:{palette.arrow}"),
        (".gg-ah", f"fill:{palette.arrow}"),
        (".gg-lbg", f"fill:{palette.background}"),
        (".gg-grid", f"stroke:{palette.grid}"),
        (".gg-axis", f"stroke:{palette.caption}"),
        (".gg-e", f"stroke:{palette.arrow}"),
        (".gg-halo", f"stroke:{palette.background}"),
        ("a:focus-visible .gg-r", f"stroke:{palette.focus}"),
        ("a:focus-visible .gg-dot", f"stroke:{palette.focus}"),
    ]
    for name in TONES:
        tone = palette.tones[name]
        for shade in SHADES:
            rules.append((f".{tone_class(name, shade)}", f"fill:{getattr(tone, shade)};stroke:{tone.stroke}"))
        rules.append((f".{line_class(name)}", f"stroke:{tone.stroke}"))
        rules.append((f".{dot_class(name)}", f"fill:{tone.stroke};stroke:{palette.background}"))
        if name in SECTIONS:
            rules.append((f".{text_class(name)}", f"fill:{tone.stroke}"))
    return rules


def _wanted(selector: str, used: frozenset[str] | None) -> bool:
    """Keep a tone's rules only if the drawing uses that class (a page may inline many SVGs)."""
    if used is None:
        return True
    return all(c in used for c in re.findall(r"\.(gg-[a-z-]+-(?:wash|tint|fill|line|dot|text))\b", selector))


def css(used: Iterable[str] | None = None) -> str:
    """The stylesheet an SVG embeds: shared rules plus the tone rules for the classes in ``used``.

    Rules never conflict between drawings (same selector, same declarations), so a page that
    inlines several SVGs gets one consistent style.
    """
    # the neighbourhood drawings of a big glossary use a handful of class sets: build each once
    return _css(frozenset(used) if used is not None else None)


@functools.lru_cache(maxsize=512)
def _css(keep: frozenset[str] | None) -> str:
    out = [
        f".gg{{font-family:{FONT_FAMILY}}}",
        f".gg text{{font-size:{SIZE_LABEL:g}px}}",
        f".gg .gg-s{{font-size:{SIZE_CAPTION:g}px}}",
        f".gg .gg-xs{{font-size:{SIZE_SMALL:g}px}}",
        f".gg .gg-h{{font-size:{SIZE_TITLE:g}px;font-weight:700}}",
        ".gg .gg-b{font-weight:600}",
        ".gg .gg-hx{font-size:15px;font-weight:700}",
        ".gg .gg-ml{font-size:13px}",
        ".gg .gg-m{text-anchor:middle}",
        ".gg .gg-end{text-anchor:end}",
        ".gg rect{stroke-width:1.2px}",
        ".gg .gg-dash{stroke-dasharray:5 3}",
        ".gg .gg-a{fill:none;stroke-width:1.5px}",
        ".gg .gg-pl{fill:none;stroke-width:2.5px}",
        ".gg .gg-grid,.gg .gg-axis{fill:none;stroke-width:1px}",
        ".gg .gg-e{fill:none;stroke-width:.7px;stroke-opacity:.16}",
        ".gg .gg-halo{stroke-width:3.5px;stroke-linejoin:round;paint-order:stroke}",
        ".gg a{cursor:pointer}",
        ".gg a:hover .gg-r,.gg a:focus .gg-r{stroke-width:2.6px}",
        ".gg a:hover text,.gg a:focus text{text-decoration:underline}",
        ".gg a:hover .gg-dot,.gg a:focus .gg-dot{stroke-width:2.5px}",
        ".gg a:focus{outline:none}",
        ".gg a:focus-visible .gg-r,.gg a:focus-visible .gg-dot{stroke-width:3px}",
    ]
    light = _rules(LIGHT)
    dark = _rules(DARK)
    light = [(sel, decl) for sel, decl in light if _wanted(sel, keep)]
    dark = [(sel, decl) for sel, decl in dark if _wanted(sel, keep)]
    out += [f".gg {sel}{{{decl}}}" for sel, decl in light]
    out.append(".gg .gg-bg{fill:none}")  # inline in a page, the page is the background
    out.append(f":root.gg .gg-bg{{fill:{LIGHT.background}}}")  # standalone: paint one
    out += [f'[data-md-color-scheme="slate"] .gg {sel}{{{decl}}}' for sel, decl in dark if sel != ".gg-bg"]
    out.append("@media (prefers-color-scheme: dark){" + "".join(f":root.gg {sel}{{{decl}}}" for sel, decl in dark) + "}")
    return "\n".join(out)


# --- WCAG 2.x contrast -------------------------------------------------------------------


def _channel(value: int) -> float:
    c = value / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(hex_colour: str) -> float:
    """Relative luminance of ``#rrggbb`` as WCAG 2 defines it."""
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return 0.2126 * _channel(r) + 0.7152 * _channel(g) + 0.0722 * _channel(b)


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two colours, 1.0 to 21.0."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def text_surfaces(palette: Palette) -> list[tuple[str, str, str]]:
    """(what, text colour, background colour) for every place text is drawn."""
    pairs = [("text on page", palette.text, palette.background), ("caption on page", palette.caption, palette.background)]
    for name, tone in palette.tones.items():
        for shade in SHADES:
            fill = getattr(tone, shade)
            pairs.append((f"text on {name} {shade}", palette.text, fill))
            pairs.append((f"caption on {name} {shade}", palette.caption, fill))
        if name in SECTIONS:  # the map writes section names in their own colour
            pairs.append((f"{name} section label on page", tone.stroke, palette.background))
    return pairs
