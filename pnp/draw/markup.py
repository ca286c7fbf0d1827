"""Card text markup: parse the text written in cards.yaml into styled runs.

Syntax (docs/CARDS.md): `**bold**`, `*italic*`, a newline is a line break, a blank line
starts a new paragraph, `{mask}` `{mt}` `{ft}` and `{icon:NAME}` are inline icons, and a
backslash makes the next character literal (`\\*`, `\\{`). Nothing else is special: the
text is never handed to an HTML-like parser, so `<`, `>` and `&` print as themselves.
An unmatched `*` or `**` prints as written; `{word}` that is not an icon prints as written.

The result is plain data (no ReportLab), laid out by `pnp.draw.textbox`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from pnp.draw.icons import ICON_NAMES

SHORT_ICONS = {"mask": "mask", "mt": "mt", "ft": "ft"}


class MarkupError(ValueError):
    """Card text that cannot be printed (an unknown inline icon)."""


@dataclass(frozen=True)
class Span:
    """A run of marked-up text in one style."""
    text: str
    bold: bool = False
    italic: bool = False


@dataclass(frozen=True)
class Icon:
    """An inline icon in marked-up text (`{icon:name}`)."""
    name: str


Inline = Span | Icon
Line = list[Inline]          # one hard line (ends at a line break)
Paragraph = list[Line]       # separated by blank lines

_TOKEN = re.compile(r"\\(.)|(\*\*)|(\*)|\{icon:([^{}\s]*)\}|\{([a-z]+)\}|(\n)", re.S)


def parse(text: str, icons: Mapping[str, str] | None = None) -> list[Paragraph]:
    """Paragraphs -> hard lines -> runs. Raises MarkupError for `{icon:NAME}` with an
    unknown NAME (a typo would otherwise silently print). `icons`: the game's own icons,
    name -> what `pnp.draw.icons.draw_icon` draws it by (the Icon run holds the latter)."""
    paragraphs: list[Paragraph] = []
    for block in re.split(r"\n[ \t]*\n+", text.replace("\r\n", "\n").strip("\n")):
        if block.strip() == "" and paragraphs:
            continue
        paragraphs.append(_parse_block(block, icons or {}))
    return [p for p in paragraphs if any(line for line in p)] or []


def _parse_block(block: str, own: Mapping[str, str]) -> Paragraph:
    tokens = _tokens(block, own)
    # A marker without a partner prints literally: drop the last one of an odd count.
    for kind in ("bold", "italic"):
        idx = [i for i, (k, _) in enumerate(tokens) if k == kind]
        if len(idx) % 2:
            tokens[idx[-1]] = ("text", tokens[idx[-1]][1])
    return _lines(tokens)


def _tokens(block: str, own: Mapping[str, str]) -> list[tuple[str, str]]:
    """First pass: tokens, with markers kept as markers."""
    tokens: list[tuple[str, str]] = []   # (kind, value): text | bold | italic | icon | br
    pos = 0
    for m in _TOKEN.finditer(block):
        if m.start() > pos:
            tokens.append(("text", block[pos:m.start()]))
        tokens.append(_token(m, own))
        pos = m.end()
    if pos < len(block):
        tokens.append(("text", block[pos:]))
    return tokens


def _token(m: re.Match, own: Mapping[str, str]) -> tuple[str, str]:
    """One match of `_TOKEN`: an escaped character, a bold or italic marker, an icon (the
    project's own first, then the bundled ones, then a short form), a line break."""
    escaped, bold, italic, icon, short, newline = m.groups()
    if escaped is not None:
        return ("text", escaped)
    if bold:
        return ("bold", "**")
    if italic:
        return ("italic", "*")
    if icon is not None:
        if icon in own:
            return ("icon", own[icon])
        if icon not in ICON_NAMES:
            known = ", ".join(sorted((*ICON_NAMES, *own)))
            raise MarkupError(f"unknown icon {{icon:{icon}}} (known: {known})")
        return ("icon", icon)
    if short is not None:
        if short in SHORT_ICONS:
            return ("icon", SHORT_ICONS[short])
        return ("text", m.group(0))
    return ("br", "")


def _lines(tokens: list[tuple[str, str]]) -> Paragraph:
    """Second pass: lines of spans (text in one style, merged) and icons."""
    lines: Paragraph = [[]]
    bold = italic = False
    for kind, value in tokens:
        if kind == "bold":
            bold = not bold
        elif kind == "italic":
            italic = not italic
        elif kind == "br":
            lines.append([])
        elif kind == "icon":
            lines[-1].append(Icon(value))
        elif value:
            line = lines[-1]
            if line and isinstance(line[-1], Span) and (line[-1].bold, line[-1].italic) == (
                bold,
                italic,
            ):
                line[-1] = Span(line[-1].text + value, bold, italic)
            else:
                line.append(Span(value, bold, italic))
    return lines


def plain_text(text: str, icons: bool = False) -> str:
    """The words a reader sees, markup removed; icons dropped (or as `[name]`)."""
    out = []
    for paragraph in parse(text):
        for line in paragraph:
            out.append(
                "".join(
                    run.text if isinstance(run, Span) else (f"[{run.name}]" if icons else " ")
                    for run in line
                )
            )
    return " ".join(" ".join(out).split())
