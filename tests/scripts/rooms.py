#!/usr/bin/env python3
"""The rooms of src/ are floors: a file includes only headers of its own room and of the rooms below
it, so no include runs back up and no two rooms lean on each other. The floors, lowest first, are
FLOORS; the top floor holds the two front doors, TOP_FLOOR, side by side: each may include every
room below, neither the other. docs/design.md's rooms table must list the same folders. Inside a room no two files lean on
each other either: taking a header and its .cpp as one unit, the units' includes have no loop (a
loop means a type sits in the wrong file). Prints each include that runs up (file:line, the include,
both rooms) and each loop, and exits 1 if there is any.

  rooms.py SOURCE_DIR
"""
import os
import re
import sys

FLOORS = [
    "autograd", "util", "config", "distributed", "layers", "models", "datasets", "train", "decoding",
    "export", "analysis/reports", "analysis/theorems", "analysis/machine", "analysis/studies",
]
TOP_FLOOR = ["cli", "python"]   # the tapeformer executable, the tapeformer Python module
ROOMS = FLOORS + TOP_FLOOR


def floor_of(room):
    """0 for the lowest floor; every room of TOP_FLOOR is on the one above FLOORS."""
    return FLOORS.index(room) if room in FLOORS else len(FLOORS)


def room_of(path):
    """The room of a path under src/ ("analysis/studies/compare.h" → "analysis/studies")."""
    for room in sorted(ROOMS, key=len, reverse=True):
        if path == room or path.startswith(room + "/"):
            return room
    return None


def loops(edges):
    """The strongly connected groups of more than one unit (Tarjan's algorithm, iteratively)."""
    index, low, on_stack, stack, groups = {}, {}, set(), [], []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start), on_stack.add(start)
        while work:
            unit, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target), on_stack.add(target)
                    work.append((target, iter(sorted(edges.get(target, ())))))
                elif target in on_stack:
                    low[unit] = min(low[unit], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[unit])
            if low[unit] == index[unit]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == unit:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def main(root):
    problems = []
    units = {}   # "layers/registry" -> the units its header and source include
    src = os.path.join(root, "src")
    seen_rooms = set()
    for directory, _, names in os.walk(src):
        for name in sorted(names):
            if not name.endswith((".h", ".cpp")):
                continue
            path = os.path.relpath(os.path.join(directory, name), src)
            room = room_of(path)
            if room is None:
                problems.append(f"src/{path}: in no room of FLOORS or TOP_FLOOR")
                continue
            seen_rooms.add(room)
            unit = units.setdefault(path.rsplit(".", 1)[0], set())
            with open(os.path.join(directory, name), encoding="utf-8") as source:
                for number, line in enumerate(source, 1):
                    match = re.match(r'\s*#include "([^"]+)"', line)
                    if not match or not os.path.exists(os.path.join(src, match.group(1))):
                        continue   # a header of a library, or one beside the file
                    if match.group(1).rsplit(".", 1)[0] != path.rsplit(".", 1)[0]:
                        unit.add(match.group(1).rsplit(".", 1)[0])
                    target = room_of(match.group(1))
                    if target is None or floor_of(target) > floor_of(room):
                        problems.append(f"src/{path}:{number}: includes {match.group(1)} ({target}), above its room {room}")
                    elif target != room and floor_of(target) == floor_of(room):
                        problems.append(f"src/{path}:{number}: includes {match.group(1)} ({target}), beside its room {room}")
    for group in loops(units):
        problems.append("files that include each other (a header and its .cpp counted as one): " + ", ".join(group))
    unused = [room for room in ROOMS if room not in seen_rooms]
    if unused:
        problems.append(f"rooms with no file: {unused}")
    with open(os.path.join(root, "docs", "design.md"), encoding="utf-8") as design:
        listed = re.findall(r"^\| `src/([a-z_/]+)/` \|", design.read(), re.M)
    if sorted(listed) != sorted(ROOMS):
        problems.append(f"docs/design.md's rooms table lists {sorted(listed)}, the rooms are {sorted(ROOMS)}")
    for problem in problems:
        print("FAIL:", problem)
    print(f"{len(seen_rooms)} rooms, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
