#!/usr/bin/env python3
"""Re-read PHH files with pokerkit's own parser, replay them, and check
``finishing_stacks`` against the house settlement (and pokerkit's own result
against ``_pokerkit_finishing_stacks`` when present).

    verify_phh.py PATH...      (files or directories of .phh / .phhs)

Exit status 1 if any hand disagrees.
"""

from __future__ import annotations

import os
import sys
import tomllib

from gen_hands import O8HandHistory, house_result


def histories(path):
    with open(path, 'rb') as f:
        text = f.read().decode()
    raw = tomllib.loads(text)
    if 'variant' in raw:
        yield path, O8HandHistory.loads(text)
    else:
        for key, hh in zip(raw, O8HandHistory.loads_all(text)):
            yield f'{path}[{key}]', hh


def replay(hh):
    state = None
    for state in hh:
        pass
    return state


def main(argv) -> int:
    files = []
    for p in argv:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p)
                            if f.endswith(('.phh', '.phhs')))
        else:
            files.append(p)
    n = bad = 0
    for path in files:
        for name, hh in histories(path):
            n += 1
            state = replay(hh)
            problems = []
            if state.status:
                problems.append('hand did not reach its end')
            house = house_result(state)[0]
            if hh.finishing_stacks != house:
                problems.append(f'finishing_stacks {hh.finishing_stacks} '
                                f'!= house {house}')
            pk_expected = hh.user_defined_fields.get(
                '_pokerkit_finishing_stacks', hh.finishing_stacks)
            if list(state.stacks) != pk_expected:
                problems.append(f'pokerkit replay {list(state.stacks)} != '
                                f'recorded {pk_expected}')
            if problems:
                bad += 1
                print(f'{name}: ' + '; '.join(problems), file=sys.stderr)
    print(f'{n} hands checked, {bad} bad', file=sys.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
