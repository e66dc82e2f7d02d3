#!/usr/bin/env python3
"""Shows that check_layout.py catches each kind of problem it names.

Builds small trees in a temporary folder, one broken rule each, and
expects the checker to fail on it with a line naming the file; a clean
tree must pass. Then runs the checker on the real tree.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, 'check_layout.py')
ORDER = 'Wing order (bottom first): `base/` < `mid/` < `tools/`\n'


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, 'w', encoding='utf-8') as f:
        f.write(text)


def clean_tree(root):
    write(root, 'docs/ARCHITECTURE.md', '# Architecture\n\n' + ORDER)
    for wing in ('base', 'mid', 'tools'):
        write(root, f'{wing}/README.md', f'# {wing}\n')
    write(root, 'base/text/text.h', '#pragma once\n')
    write(root, 'base/files/files.h', '#pragma once\n#include "base/text/text.h"\n')
    write(root, 'mid/reader/reader.h', '#pragma once\n#include "base/files/files.h"\n')
    write(root, 'tools/cmd/main.cpp', '#include "mid/reader/reader.h"\nint main() {}\n')
    write(root, 'tools/cmd/cmd_flags.h', '#pragma once\n')


def run(root):
    result = subprocess.run([sys.executable, CHECKER, '--root', root],
                            capture_output=True, text=True, check=False)
    return result.returncode, result.stdout + result.stderr


BROKEN = {
    'an include back up': (lambda r: write(r, 'base/files/up.h', '#include "mid/reader/reader.h"\n'),
                           'base/files/up.h:1: includes mid/reader/reader.h'),
    'a cycle of rooms': (lambda r: write(r, 'base/text/back.h', '#include "base/files/files.h"\n'),
                         'around a cycle: base/files -> base/text'),
    'a long file': (lambda r: write(r, 'mid/reader/long.cpp', '//\n' * 601),
                    'mid/reader/long.cpp: 601 lines'),
    'a wing without README': (lambda r: os.remove(os.path.join(r, 'mid/README.md')),
                              'mid/: the wing has no README.md'),
    'code outside a room': (lambda r: write(r, 'mid/loose.cpp', '\n'),
                            'mid/loose.cpp: code outside a room'),
    'a library in a command folder': (lambda r: write(r, 'tools/cmd/planner.cpp', '\n'),
                                      'tools/cmd/planner.cpp: tools/ holds only'),
}


def main():
    failures = []
    with tempfile.TemporaryDirectory() as root:
        clean_tree(root)
        code, output = run(root)
        if code != 0:
            failures.append(f'a clean tree failed:\n{output}')
    for name, (breakage, expected) in BROKEN.items():
        with tempfile.TemporaryDirectory() as root:
            clean_tree(root)
            breakage(root)
            code, output = run(root)
            if code != 1 or expected not in output:
                failures.append(f'{name}: expected exit 1 and "{expected}", got {code}:\n{output}')
    code, output = run(os.path.join(HERE, '..', '..'))
    print(output, end='')
    if code != 0:
        failures.append('the project tree breaks its own layout (above)')
    for failure in failures:
        print('FAIL', failure)
    print(f'{len(BROKEN) + 1 - len([f for f in failures if "project tree" not in f])} of '
          f'{len(BROKEN) + 1} checker cases hold')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
