#!/usr/bin/env python3
"""Load PHH hand histories exported by Scoop with pokerkit 0.7.7 and play them
to the end.

    check_export.py PATH...      (files or directories of .phh / .phhs)

Each hand goes through pokerkit's own parser (``HandHistory.load``, with the
FO/8, PO/8 and NO/8 codes registered as in gen_hands.py) and is replayed
action by action. A hand fails if pokerkit cannot load it, refuses an action,
or does not reach the end of the hand. The replay is strict: pokerkit's own
iterator, when an action does not apply, folds or checks for whoever is to
act and tries again, which would hide a missing or refused decision. Here only
the dealer's chores (burning a card, collecting bets, pushing chips, ...) are
done automatically; every decision must come from the file.

When every hand still in at the showdown is known (an operator's complete
export, or a viewer's export of a hand without mucked hands) and no rake was
taken, ``finishing_stacks`` is also checked against the house settlement of
gen_hands.py, which works from the facts of the hand alone, not from Scoop's
engine. pokerkit's own payout is not compared: it differs from the house rules
in known ways (README.md).

Exit status 1 if any hand fails.
"""

from __future__ import annotations

import os
import sys
import tomllib
import warnings
from collections import deque

from pokerkit.notation import parse_action

from gen_hands import O8HandHistory, hand_facts, house_result


class Refused(Exception):
    """pokerkit would not apply an action of the file."""


def files(paths):
    for p in paths:
        if os.path.isdir(p):
            yield from sorted(os.path.join(p, f) for f in os.listdir(p)
                              if f.endswith(('.phh', '.phhs')))
        else:
            yield p


def histories(path):
    """(name, hand history) for each hand in the file."""
    with open(path, 'rb') as f:
        single = 'variant' in tomllib.load(f)
        f.seek(0)
        if single:
            yield path, O8HandHistory.load(f)
        else:
            for i, hh in enumerate(O8HandHistory.load_all(f), 1):
                yield f'{path}[{i}]', hh


def chore(state) -> bool:
    """Do one of the dealer's automatic steps; False if none is due."""
    if state.can_post_ante():
        state.post_ante()
    elif state.can_collect_bets():
        state.collect_bets()
    elif state.can_post_blind_or_straddle():
        state.post_blind_or_straddle()
    elif state.can_burn_card():
        state.burn_card('??')
    elif state.can_select_runout_count():
        state.select_runout_count()
    elif state.can_kill_hand():
        state.kill_hand()
    elif state.can_push_chips():
        state.push_chips()
    elif state.can_pull_chips():
        state.pull_chips()
    else:
        return False
    return True


def replay(hh):
    """The state after every action of the file, or Refused."""
    state = hh.create_state()
    actions = deque(hh.actions)
    while actions:
        try:
            parse_action(state, actions[0], hh.parse_value)
        except ValueError as e:
            if not chore(state):
                raise Refused(f'{actions[0]!r}: {e}') from e
            continue
        actions.popleft()
    while state.status and chore(state):
        pass
    return state


def check_stacks(hh, state):
    """(whether finishing_stacks could be judged, why they are wrong or None)."""
    if hh.finishing_stacks is None:
        return False, None
    if hh.user_defined_fields.get('_rake'):
        return False, None  # the house settlement takes no rake
    _, folded, holes, _ = hand_facts(state)
    if any(card.unknown_status
           for i, cards in enumerate(holes) if i not in folded
           for card in cards):
        return False, None  # a hidden hand was mucked: it cannot be judged
    house = house_result(state)[0]
    if list(hh.finishing_stacks) != house:
        return True, f'finishing_stacks {hh.finishing_stacks} != house {house}'
    return True, None


def main(argv) -> int:
    n = bad = judged = 0
    for path in files(argv):
        try:
            hands = list(histories(path))
        except Exception as e:  # noqa: BLE001 - report any load failure
            n += 1
            bad += 1
            print(f'{path}: cannot load: {type(e).__name__}: {e}',
                  file=sys.stderr)
            continue
        for name, hh in hands:
            n += 1
            try:
                with warnings.catch_warnings():
                    # pokerkit warns on operations it finds odd; only errors fail.
                    warnings.simplefilter('ignore')
                    state = replay(hh)
            except Refused as e:
                bad += 1
                print(f'{name}: pokerkit refuses {e}', file=sys.stderr)
                continue
            except Exception as e:  # noqa: BLE001 - report anything pokerkit raises
                bad += 1
                print(f'{name}: {type(e).__name__}: {e}', file=sys.stderr)
                continue
            if state.status:
                bad += 1
                print(f'{name}: the hand did not reach its end', file=sys.stderr)
                continue
            checked, problem = check_stacks(hh, state)
            judged += checked
            if problem is not None:
                bad += 1
                print(f'{name}: {problem}', file=sys.stderr)
    print(f'{n} hands loaded and replayed by pokerkit, {bad} failed '
          f'({judged} finishing_stacks checked against the house settlement)',
          file=sys.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
