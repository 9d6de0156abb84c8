#!/usr/bin/env python3
"""Checks what a headless browser made of one of our pages (tests/browser/pages_in_chromium.sh).

  check_page.py dom DOM_FILE [--script ran|absent|disabled] [--row NAME]... [--rows N]
                [--option PREFIX]... [--examples N] [--svgs N] [--nodes N] [--text TEXT]...
      DOM_FILE is `chromium --headless --dump-dom PAGE`: the document after the page's script ran.
  check_page.py png PNG_FILE WIDTHxHEIGHT
      a screenshot: a PNG of that size.

Prints one line saying what it found; exits 1, naming the first thing missing, when a check fails.
"""
import argparse
import struct
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    """What the checks read: <html>'s attributes, each table body row's first cell, the viewer's
    maps and examples and drawn tokens, the SVG figures, the tape's node rows, and the visible text."""

    def __init__(self):
        super().__init__()
        self.html_attributes = {}
        self.first_cells = []       # of every <tbody> row
        self.options = []           # of the viewer's <select class="viewer-choice">: its maps
        self.examples = []          # of its <select class="viewer-example">
        self.drawn_tokens = 0       # <span class="token"> the viewer's script drew
        self.svgs = 0
        self.nodes = 0              # <tr class="node">: the tape page's entries
        self.text = []
        self._in = {"tbody": 0, "script": 0, "style": 0}
        self._options = None        # the list the current <select>'s options go to
        self._cell_of_row = None    # the current body row's cells so far
        self._capture = None        # the list collecting the current cell's or option's text

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if tag == "html":
            self.html_attributes = attributes
        elif tag in ("tbody", "script", "style"):
            self._in[tag] += 1
        elif tag == "select":
            self._options = self.options if "viewer-choice" in classes else \
                self.examples if "viewer-example" in classes else None
        elif tag == "svg":
            self.svgs += 1
        elif tag == "span" and "token" in classes:
            self.drawn_tokens += 1
        if tag == "tr":
            self.nodes += "node" in classes
            self._cell_of_row = 0 if self._in["tbody"] else None
        elif tag == "td" and self._cell_of_row is not None:
            if self._cell_of_row == 0:
                self._capture = []
                self.first_cells.append(self._capture)
            self._cell_of_row += 1
        elif tag == "option" and self._options is not None:
            self._capture = []
            self._options.append(self._capture)

    def handle_endtag(self, tag):
        if tag in self._in and self._in[tag]:
            self._in[tag] -= 1
        if tag == "select":
            self._options = None
        if tag in ("td", "option"):
            self._capture = None

    def handle_data(self, data):
        if self._in["script"] or self._in["style"]:
            return
        self.text.append(data)
        if self._capture is not None:
            self._capture.append(data)


def check_dom(args):
    page = Page()
    with open(args.file, encoding="utf-8") as dom:
        page.feed(dom.read())
    first_cells = ["".join(cell).strip() for cell in page.first_cells]
    options = ["".join(option).strip() for option in page.options]
    text = " ".join(" ".join(page.text).split())
    problems = []
    error = page.html_attributes.get("data-script-error")
    if error is not None:
        problems.append(f"the page's script failed: {error}")
    done = "data-script-done" in page.html_attributes
    if args.script == "ran" and not done:
        problems.append("the page's script did not run to its end (no data-script-done on <html>)")
    if args.script == "ran" and options and page.drawn_tokens == 0:
        problems.append("the attention viewer drew no tokens")
    if args.script in ("absent", "disabled") and done:
        problems.append(f"a script ran, expected it {args.script}")
    if args.script == "disabled" and page.drawn_tokens:
        problems.append("the viewer drew tokens with scripts disabled")
    for name in args.row:
        if name not in first_cells:
            problems.append(f"no table row for '{name}' (rows: {first_cells})")
    if len(first_cells) < args.rows:
        problems.append(f"{len(first_cells)} table rows, expected at least {args.rows}")
    for prefix in args.option:
        if not any(option.startswith(prefix) for option in options):
            problems.append(f"no viewer entry starting '{prefix}' (entries: {options})")
    if args.examples is not None and len(page.examples) != args.examples:
        problems.append(f"{len(page.examples)} examples in the viewer, expected {args.examples}")
    if page.svgs < args.svgs:
        problems.append(f"{page.svgs} SVG figures, expected at least {args.svgs}")
    if args.nodes is not None and page.nodes != args.nodes:
        problems.append(f"{page.nodes} tape entries, expected {args.nodes}")
    for wanted in args.text:
        if wanted not in text:
            problems.append(f"the text '{wanted}' is not on the page")
    if problems:
        print(f"FAILED {args.file}: " + "; ".join(problems))
        return 1
    print(f"ok {args.file}: {len(first_cells)} table rows, {len(options)} viewer maps of {len(page.examples)} examples, "
          f"{page.drawn_tokens} tokens drawn, {page.svgs} SVG, {page.nodes} tape entries")
    return 0


def check_png(args):
    width, height = (int(n) for n in args.size.split("x"))
    with open(args.file, "rb") as png:
        head = png.read(24)
    # The signature, then the IHDR chunk: length, "IHDR", width, height (big-endian).
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        print(f"FAILED {args.file}: not a PNG")
        return 1
    found = struct.unpack(">II", head[16:24])
    if found != (width, height):
        print(f"FAILED {args.file}: {found[0]}x{found[1]}, expected {args.size}")
        return 1
    print(f"ok {args.file}: a {args.size} PNG")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    kinds = parser.add_subparsers(dest="kind", required=True)
    dom = kinds.add_parser("dom")
    dom.add_argument("file")
    dom.add_argument("--script", choices=["ran", "absent", "disabled"], default="ran")
    dom.add_argument("--row", action="append", default=[], help="a table body row whose first cell is this")
    dom.add_argument("--rows", type=int, default=0, help="at least this many table body rows")
    dom.add_argument("--option", action="append", default=[], help="a viewer entry starting with this")
    dom.add_argument("--examples", type=int, help="exactly this many examples in the viewer")
    dom.add_argument("--svgs", type=int, default=0, help="at least this many SVG figures")
    dom.add_argument("--nodes", type=int, help="exactly this many tape entries")
    dom.add_argument("--text", action="append", default=[], help="text the page shows")
    png = kinds.add_parser("png")
    png.add_argument("file")
    png.add_argument("size", help="WIDTHxHEIGHT")
    args = parser.parse_args()
    return check_dom(args) if args.kind == "dom" else check_png(args)


if __name__ == "__main__":
    sys.exit(main())
