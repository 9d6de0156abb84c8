#!/usr/bin/env python3
"""Checks what a headless browser made of one of our pages (tests/browser/pages_in_chromium.sh).

  check_page.py dom DOM_FILE [--script ran|absent|disabled] [--row NAME]... [--rows N]
                [--option PREFIX]... [--selected PREFIX] [--examples N] [--svgs N] [--nodes N] [--text TEXT]...
                [--findings N] [--filled-column HEADER]...
      DOM_FILE is `chromium --headless --dump-dom PAGE`: the document after the page's script ran.
  check_page.py png PNG_FILE WIDTHxHEIGHT
      a screenshot: a PNG of that size showing the page drawn (text, and the plots' colours).

Prints one line saying what it found; exits 1, naming the first thing missing, when a check fails.
"""
import argparse
import struct
import zlib
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    """What the checks read: <html>'s attributes, each table body row's first cell, the viewer's
    maps and examples, the map it opens on, its static picture and the grid its script drew, the SVG
    figures, the tape's node rows, and the visible text."""

    def __init__(self):
        super().__init__()
        self.html_attributes = {}
        self.first_cells = []       # of every <tbody> row
        self.options = []           # of the viewer's <select class="viewer-choice">: its maps
        self.examples = []          # of its <select class="viewer-example">
        self.drawn_tokens = 0       # <span class="token"> the viewer's script drew
        self.selected = None        # the text of the viewer-choice option marked selected (the opening map)
        self.viewer_heatmaps = 0    # <svg class="viewer-heatmap">: the viewer's static picture
        self.grid_key_labels = 0    # <th> of the viewer grid's header row, the corner left out
        self.grid_first_row_cells = 0   # <td> of the viewer grid's first body row
        self._grid = None           # inside <table class="viewer-grid">: "head", "body" or "table"
        self._grid_rows = 0         # body rows of the viewer grid so far
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
            self.viewer_heatmaps += "viewer-heatmap" in classes
        if tag == "table" and "viewer-grid" in classes:
            self._grid = "table"
        elif tag in ("thead", "tbody") and self._grid is not None:
            self._grid = "head" if tag == "thead" else "body"
        elif tag == "span" and "token" in classes:
            self.drawn_tokens += 1
        if self._grid == "head" and tag == "th":
            self.grid_key_labels += 1
        if self._grid == "body" and tag == "tr":
            self._grid_rows += 1
        if self._grid == "body" and tag == "td" and self._grid_rows == 1:
            self.grid_first_row_cells += 1
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
            if self._options is self.options and "selected" in attributes:
                self.selected = self._capture

    def handle_endtag(self, tag):
        if tag in self._in and self._in[tag]:
            self._in[tag] -= 1
        if tag == "select":
            self._options = None
        if tag == "table":
            self._grid = None
        if tag in ("td", "option"):
            self._capture = None

    def handle_data(self, data):
        if self._in["script"] or self._in["style"]:
            return
        self.text.append(data)
        if self._capture is not None:
            self._capture.append(data)


class Tables(HTMLParser):
    """The findings box's items, and every table as its header cells and its body rows' cells."""

    def __init__(self):
        super().__init__()
        self.findings = 0           # <li> inside <aside class="findings">
        self.tables = []            # {"header": [text], "rows": [[text]]}
        self._in_findings = False
        self._cell = None           # the text of the current <th> or <td>

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag == "aside" and "findings" in classes:
            self._in_findings = True
        elif tag == "li" and self._in_findings:
            self.findings += 1
        elif tag == "table":
            self.tables.append({"header": [], "rows": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("th", "td") and self.tables:
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "aside":
            self._in_findings = False
        elif tag in ("th", "td") and self._cell is not None and self.tables:
            text = " ".join("".join(self._cell).split())
            table = self.tables[-1]
            if tag == "th" and len(table["rows"]) == 1:
                table["header"].append(text)
            elif tag == "td" and table["rows"]:
                table["rows"][-1].append(text)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def column_problems(tables, column):
    """Every table with a header cell `column` has text in that cell of each body row; at least one does."""
    problems, rows = [], 0
    for table in tables:
        if column not in table["header"]:
            continue
        index = table["header"].index(column)
        for cells in table["rows"][1:]:
            rows += 1
            if index >= len(cells) or not cells[index]:
                problems.append(f"a row with no '{column}': {cells[:1]}")
    if rows == 0:
        problems.append(f"no table row has a '{column}' column")
    return problems


def check_dom(args):
    page = Page()
    tables = Tables()
    with open(args.file, encoding="utf-8") as dom:
        html = dom.read()
        page.feed(html)
        tables.feed(html)
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
    if args.script == "ran" and options and (page.grid_key_labels - 1 != page.grid_first_row_cells or page.grid_first_row_cells == 0):
        problems.append(f"the viewer's grid has {max(0, page.grid_key_labels - 1)} key labels over {page.grid_first_row_cells} columns")
    if options and page.viewer_heatmaps != 1:
        problems.append(f"{page.viewer_heatmaps} static pictures in the viewer, expected 1 (the page must read without scripts)")
    selected = "".join(page.selected).strip() if page.selected is not None else None
    if args.selected is not None and (selected is None or not selected.startswith(args.selected)):
        problems.append(f"the viewer opens on '{selected}', expected a map starting '{args.selected}'")
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
    if tables.findings < args.findings:
        problems.append(f"{tables.findings} items in the findings box, expected at least {args.findings}")
    for column in args.filled_column:
        problems += column_problems(tables.tables, column)
    for wanted in args.text:
        if wanted not in text:
            problems.append(f"the text '{wanted}' is not on the page")
    if problems:
        print(f"FAILED {args.file}: " + "; ".join(problems))
        return 1
    print(f"ok {args.file}: {len(first_cells)} table rows, {len(options)} viewer maps of {len(page.examples)} examples, "
          f"{page.drawn_tokens} tokens drawn, opening on '{selected}', {page.svgs} SVG, {page.nodes} tape entries")
    return 0


def png_pixels(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA, non-interlaced PNG:
    the chunks' IDAT data inflated, each row's filter (none, sub, up, average, Paeth) undone."""
    with open(path, "rb") as png:
        data = png.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"a PNG this check does not read (depth {depth}, colour type {colour}, interlace {interlace})")
    channels = 3 if colour == 2 else 4
    stride = width * channels
    raw, rows, previous = zlib.decompress(idat), [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                guess = left + up - corner
                pa, pb, pc = abs(guess - left), abs(guess - up), abs(guess - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return width, height, rows


# The plots' first two colours (src/analysis/reports/svg.cpp, kPalette): blue and vermilion.
PLOT_COLOURS = {"blue": (0x00, 0x72, 0xB2), "vermilion": (0xD5, 0x5E, 0x00)}


def check_png(args):
    """A screenshot of that size that shows the page drawn: text (dark pixels on the light page)
    and the plots' colours, not one uniform colour (a blank or failed page)."""
    width, height = (int(n) for n in args.size.split("x"))
    try:
        found_width, found_height, rows = png_pixels(args.file)
    except (ValueError, zlib.error, struct.error, TypeError) as problem:
        print(f"FAILED {args.file}: {problem}")
        return 1
    if (found_width, found_height) != (width, height):
        print(f"FAILED {args.file}: {found_width}x{found_height}, expected {args.size}")
        return 1
    pixels = [pixel for row in rows for pixel in row]
    dark = sum(1 for r, g, b in pixels if r + g + b < 200)
    near = lambda pixel, colour: sum(abs(a - b) for a, b in zip(pixel, colour)) < 60
    coloured = {name: sum(1 for pixel in pixels if near(pixel, colour)) for name, colour in PLOT_COLOURS.items()}
    problems = []
    if dark < len(pixels) // 1000:
        problems.append(f"{dark} dark pixels: no text drawn")
    problems += [f"{count} pixels of the plots' {name}" for name, count in coloured.items() if count < 100]
    if problems:
        print(f"FAILED {args.file}: " + "; ".join(problems))
        return 1
    print(f"ok {args.file}: a {args.size} PNG with {dark} dark (text) pixels, " +
          ", ".join(f"{count} {name}" for name, count in coloured.items()))
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
    dom.add_argument("--selected", help="the map the viewer opens on starts with this")
    dom.add_argument("--examples", type=int, help="exactly this many examples in the viewer")
    dom.add_argument("--svgs", type=int, default=0, help="at least this many SVG figures")
    dom.add_argument("--nodes", type=int, help="exactly this many tape entries")
    dom.add_argument("--findings", type=int, default=0, help="at least this many items in <aside class=\"findings\">")
    dom.add_argument("--filled-column", action="append", default=[],
                     help="every body row of each table with this header cell has text in it (and some table has it)")
    dom.add_argument("--text", action="append", default=[], help="text the page shows")
    png = kinds.add_parser("png")
    png.add_argument("file")
    png.add_argument("size", help="WIDTHxHEIGHT")
    args = parser.parse_args()
    return check_dom(args) if args.kind == "dom" else check_png(args)


if __name__ == "__main__":
    sys.exit(main())
