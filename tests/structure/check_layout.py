#!/usr/bin/env python3
"""Holds the layout docs/ARCHITECTURE.md describes against the code.

- Every #include "WING/ROOM/file.h" of a product file points into its own
  wing or a wing below it, in the order the architecture document states
  on its "Wing order:" line (bottom first).
- The rooms' include graph has no cycle (sideways includes within a wing
  are allowed; a room that reaches back to itself is not).
- No product source file is longer than MAX_LINES lines.
- Every wing has a README.md; every room is a folder of one wing.
- The command wing (the last one) holds only what a command line is: its
  main, its manual (the --help text) and its flags.

Prints one line per problem and exits 1 when there is any.
"""
import argparse
import os
import re
import sys

MAX_LINES = 600
COMMAND_FILE = re.compile(r'^(main|manual|\w*flags)\.(h|cpp)$')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ORDER = re.compile(r'^Wing order[^:]*:\s*(.+)$')


def wing_order(architecture):
    with open(architecture, encoding='utf-8') as f:
        for line in f:
            m = ORDER.match(line.strip().strip('*'))
            if m:
                names = re.findall(r'`([a-z_]+)/?`', m.group(1))
                if names:
                    return names
    sys.exit(f'{architecture}: no "Wing order:" line naming the wings in `backquotes`')


def source_files(root, wings):
    for wing in wings:
        for folder, _, files in os.walk(os.path.join(root, wing)):
            for name in sorted(files):
                if name.endswith(('.h', '.cpp')):
                    yield os.path.relpath(os.path.join(folder, name), root)


def room_of(path):
    parts = path.split('/')
    return '/'.join(parts[:2]) if len(parts) > 2 else parts[0]


def find_cycles(graph):
    """Every strongly connected component of more than one room (Tarjan)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--root', default=os.path.join(os.path.dirname(__file__), '..', '..'))
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    wings = wing_order(os.path.join(root, 'docs', 'ARCHITECTURE.md'))
    rank = {wing: i for i, wing in enumerate(wings)}
    problems = []
    graph = {}

    for wing in wings:
        if not os.path.isfile(os.path.join(root, wing, 'README.md')):
            problems.append(f'{wing}/: the wing has no README.md')
        for entry in sorted(os.listdir(os.path.join(root, wing))):
            path = os.path.join(root, wing, entry)
            if os.path.isfile(path) and entry.endswith(('.h', '.cpp')):
                problems.append(f'{wing}/{entry}: code outside a room (put it in a folder of {wing}/)')

    for path in source_files(root, wings):
        wing = path.split('/')[0]
        room = room_of(path)
        if wing == wings[-1] and not COMMAND_FILE.match(os.path.basename(path)):
            problems.append(f'{path}: {wing}/ holds only main, manual and flags: move the library '
                            f'code to the wing it belongs to')
        with open(os.path.join(root, path), encoding='utf-8', errors='replace') as f:
            lines = f.read().split('\n')
        if lines and lines[-1] == '':
            lines.pop()
        if len(lines) > MAX_LINES:
            problems.append(f'{path}: {len(lines)} lines (at most {MAX_LINES}: split it by job)')
        for number, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(1)
            target_wing = target.split('/')[0]
            if target_wing not in rank:
                if os.path.exists(os.path.join(root, target)):
                    problems.append(f'{path}:{number}: includes {target}, outside every wing')
                continue
            if rank[target_wing] > rank[wing]:
                problems.append(f'{path}:{number}: includes {target}: {wing}/ may include only '
                                f'{", ".join(w + "/" for w in wings[:rank[wing] + 1])}')
            target_room = room_of(target)
            if target_room != room:
                graph.setdefault(room, set()).add(target_room)

    for cycle in find_cycles(graph):
        problems.append('rooms that include each other around a cycle: ' + ' -> '.join(cycle))

    for problem in problems:
        print(problem)
    print(f'{len(problems)} problems in {len(list(source_files(root, wings)))} files of '
          f'{len(wings)} wings ({" < ".join(wings)})')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
