"""The app's pages as the bench reads them: parsed HTML, never regular expressions.

The bench finds what it taps by the hooks the templates carry for it (and for tests):
a form by its ``data-action`` (``night-create``, ``game-new``, ``kraken-marker``,
``kraken-reveal``, ``kraken-next``), a field of that form by its ``name``, the live
region by ``id="live"`` and the URL it polls (its ``hx-get``). When one of them is not
there, the bench stops with :class:`MissingElement`, which names it: a template change
must not silently stop the bench's writes.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass, field
from html.parser import HTMLParser

import lxml.etree

FIELD_TAGS = ("input", "button", "select", "textarea")


class MissingElement(RuntimeError):
    """A page lacks an element the bench needs (a form, a field, the live region)."""


@dataclass
class Control:
    """One field of a form: an <input>, <button>, <select> or <textarea>."""

    tag: str
    attrs: dict[str, str]

    @property
    def name(self) -> str:
        return self.attrs.get("name", "")

    @property
    def type(self) -> str:
        default = "submit" if self.tag == "button" else "text"
        return self.attrs.get("type", default).lower()

    @property
    def value(self) -> str:
        default = "on" if self.type in ("checkbox", "radio") else ""
        return self.attrs.get("value", default)

    @property
    def disabled(self) -> bool:
        return "disabled" in self.attrs


@dataclass
class Form:
    """A <form>: its attributes and its fields, in document order."""

    attrs: dict[str, str]
    where: str
    controls: list[Control] = field(default_factory=list)

    @property
    def action(self) -> str:
        """The path the form posts to (its ``action``): a must."""
        action = self.attrs.get("action")
        if not action:
            raise MissingElement(f"{self.describe()} on {self.where} has no action")
        return urllib.parse.urlsplit(action).path

    def describe(self) -> str:
        name = self.attrs.get("data-action")
        return f'<form data-action="{name}">' if name else "<form>"

    def value(self, name: str) -> str:
        """The value of the form's field ``name`` (a hidden or text input): a must."""
        for control in self.controls:
            if control.name == name and control.type not in ("submit", "radio", "checkbox"):
                return control.value
        raise MissingElement(f'no field name="{name}" in {self.describe()} on {self.where}')

    def choices(self, name: str) -> list[str]:
        """The values a person can pick for ``name``: enabled radios and submit buttons."""
        return [c.value for c in self.controls
                if c.name == name and not c.disabled and c.type in ("radio", "submit")]

    def checkboxes(self) -> list[Control]:
        return [c for c in self.controls if c.type == "checkbox" and not c.disabled]


@dataclass
class Page:
    """What the bench needs of one page or fragment."""

    where: str
    forms: list[Form] = field(default_factory=list)
    live: dict[str, str] | None = None       # the attributes of the element id="live"
    links: list[str] = field(default_factory=list)   # every a/link href, script/img src

    def find_form(self, action: str) -> Form | None:
        """The first form with ``data-action="<action>"``, or None."""
        for form in self.forms:
            if form.attrs.get("data-action") == action:
                return form
        return None

    def form(self, action: str) -> Form:
        """The form with ``data-action="<action>"``: a must."""
        found = self.find_form(action)
        if found is None:
            raise MissingElement(f'no <form data-action="{action}"> on {self.where}')
        return found

    def live_url(self) -> tuple[str, int]:
        """The live region's poll: (its path, the version it shows)."""
        return _live_url(self.live, self.where)


def parse(html: str, where: str) -> Page:
    """Parse a page or fragment; ``where`` names it in errors (e.g. "the host's game page").

    With libxml2 (lxml): the load client parses every answer of the host's screen, and
    the standard library's pure-Python parser took a third of the client's CPU at 200
    tables, CPU the server being measured then lacked on this two-core machine."""
    page = Page(where)
    if not html.strip():
        return page
    root = lxml.etree.fromstring(html, _PARSER)
    for element in _WANTED(root):
        attrs = dict(element.attrib)
        if attrs.get("id") == "live" and page.live is None:
            page.live = attrs
        if element.tag == "form":
            form = Form(attrs, where)
            page.forms.append(form)
            form.controls = [Control(c.tag, dict(c.attrib)) for c in element.iter(*FIELD_TAGS)]
        for attr in ("href", "src"):
            if attrs.get(attr):
                page.links.append(attrs[attr])
    return page


_PARSER = lxml.etree.HTMLParser()
#: What the bench reads of a page, in document order.
_WANTED = lxml.etree.XPath('//form | //*[@id="live"] | //*[@href] | //*[@src]')


class _Stop(Exception):
    pass


class _LiveRegion(HTMLParser):
    """Reads start tags until the live region's: a fragment's first element, so a
    streaming parser stops there (~15 µs, where parsing every poll's answer whole would
    cost ~0.3 ms)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.live: dict[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: "" if v is None else v for k, v in attrs}
        if found.get("id") == "live":
            self.live = found
            raise _Stop


def live_region(html: str, where: str) -> tuple[str, int]:
    """(path, version) of the live region's poll."""
    parser = _LiveRegion()
    try:
        parser.feed(html)
    except _Stop:
        pass
    return _live_url(parser.live, where)


def _live_url(live: dict[str, str] | None, where: str) -> tuple[str, int]:
    if live is None:
        raise MissingElement(f'no live region (id="live") on {where}')
    parts = urllib.parse.urlsplit(live.get("hx-get", ""))
    version = urllib.parse.parse_qs(parts.query).get("v")
    if not parts.path or not version:
        raise MissingElement(f'the live region (id="live") on {where} has no hx-get="<url>?v=N"')
    return parts.path, int(version[0])
