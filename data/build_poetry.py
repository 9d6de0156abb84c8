#!/usr/bin/env python3
"""Build the poetry corpus data/poetry/poems.txt from the Debian `fortunes` file songs-poems.

Stdlib only, deterministic (same input, same bytes out) and idempotent (the output is written to a
temporary file and renamed, so a run never leaves half a corpus). The cleaning rules are in
data/README.md and in the comments of clean_entry() below.

    python3 data/build_poetry.py [--input FILE] [--output FILE]
"""
import argparse
import os
import re
import sys
import tempfile

DEFAULT_INPUT = "/usr/share/games/fortunes/songs-poems"
DEFAULT_OUTPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "poetry", "poems.txt")

MIN_POEM_LINES = 2          # an entry with fewer text lines is a quip, not a poem
MAX_MEAN_LINE_CHARS = 60    # an entry whose lines average more than this is prose
ATTRIBUTION = re.compile(r"^\s+--|^--\s")   # "\t\t-- Ogden Nash", "-- Anon"
COLUMN_GAP = re.compile(r"\S[ \t]*\t\t+[ \t]*\S")  # text, two or more tabs, text


def resolve_overstrikes(text):
    """'x\\by' prints y over x: keep the character written last ("m'\\biriel" -> "miriel")."""
    out = []
    for ch in text:
        if ch == "\b":
            if out:
                out.pop()
        else:
            out.append(ch)
    return "".join(out)


def split_entries(text):
    """Entries are separated by lines that hold only '%'."""
    entries, current = [], []
    for line in text.split("\n"):
        if line.strip() == "%":
            entries.append(current)
            current = []
        else:
            current.append(line)
    entries.append(current)
    return entries


def is_attribution(lines, i):
    """An attribution is an indented line starting '--', or a column-0 '-- ' line with nothing
    but indented or blank lines after it in the entry (a column-0 '--' inside prose is text)."""
    line = lines[i]
    if re.match(r"^\s+--", line):
        return True
    if re.match(r"^--\s", line):
        return all(not rest.strip() or rest[0].isspace() for rest in lines[i + 1:])
    return False


def drop_notes_and_attributions(lines):
    """Remove attribution lines with their indented continuation lines, and editorial notes
    ("[well, almost.  Ed.]", "[chorus]", "[...]", multi-line "[Quoted in ...]" blocks).
    A removed line becomes a blank line, so it still separates stanzas."""
    kept, i = [], 0
    while i < len(lines):
        line, stripped = lines[i], lines[i].strip()
        if is_attribution(lines, i):
            i += 1
            while i < len(lines) and lines[i].strip() and lines[i][0].isspace():
                i += 1  # "\t\t   the previous year's ..." continues the attribution
            kept.append("")
            continue
        if stripped.startswith("[") and (stripped.endswith("]") and stripped.count("[") == 1
                                         or "]" not in stripped):
            while i < len(lines) and not lines[i].strip().endswith("]"):
                i += 1  # a note runs to the line that closes it
            i += 1
            kept.append("")
            continue
        kept.append(line)
        i += 1
    return kept


def normalise(line):
    """Tabs and runs of spaces become one space; the ends are stripped."""
    return " ".join(line.split())


def clean_entry(lines):
    """The stanzas (lists of lines) of one entry, or [] if the entry is not a poem."""
    text_lines = drop_notes_and_attributions(lines)
    if sum(1 for line in text_lines if COLUMN_GAP.search(line)) >= 2:
        return []  # laid out in tab-separated columns: the reading order is ambiguous
    stanzas, current = [], []
    for line in text_lines:
        line = normalise(line)
        if line:
            current.append(line)
        elif current:
            stanzas.append(current)
            current = []
    if current:
        stanzas.append(current)
    all_lines = [line for stanza in stanzas for line in stanza]
    if len(all_lines) < MIN_POEM_LINES:
        return []
    if sum(len(line) for line in all_lines) / len(all_lines) > MAX_MEAN_LINE_CHARS:
        return []
    return stanzas


def build(input_path):
    with open(input_path, encoding="utf-8", errors="replace") as f:
        text = resolve_overstrikes(f.read().replace("\r\n", "\n"))
    stanzas, poems = [], 0
    for entry in split_entries(text):
        entry_stanzas = clean_entry(entry)
        poems += bool(entry_stanzas)
        stanzas.extend(entry_stanzas)
    return stanzas, poems


def write_atomically(path, content):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as f:
        f.write(content)
    os.replace(temporary, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", default=DEFAULT_INPUT, help="fortunes file (default: %(default)s)")
    parser.add_argument("--output", default=DEFAULT_OUTPUT, help="corpus to write (default: %(default)s)")
    args = parser.parse_args()
    if not os.path.isfile(args.input):
        sys.exit(f"build_poetry: input '{args.input}' not found (install the Debian package 'fortunes')")
    stanzas, poems = build(args.input)
    content = "\n\n".join("\n".join(stanza) for stanza in stanzas) + "\n"
    write_atomically(args.output, content)
    lines = sum(len(stanza) for stanza in stanzas)
    print(f"build_poetry: {poems} poems, {len(stanzas)} stanzas, {lines} lines -> {args.output}")


if __name__ == "__main__":
    main()
