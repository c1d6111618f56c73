#!/usr/bin/env python3
"""Write the hand-picked fixtures in fixtures/ (run from anywhere).

Each fixture is replayed through pokerkit, settled with the house code, and
checked against the stacks worked out by hand below before it is written.
"""

from __future__ import annotations

import os
import sys

from gen_hands import O8HandHistory, house_result

HERE = os.path.dirname(os.path.abspath(__file__))

FIXTURES = [
    dict(
        name='hu_fixed_limit_capped_scoop',
        comments=[
            'Heads-up fixed limit, $10/$20 (small blind 5, big blind 10).',
            'Heads-up seat convention: p1 = big blind; p2 = button AND small',
            'blind (blinds_or_straddles [5, 10] is reverse-assigned heads-up),',
            'p2 acts first preflop and last after the flop.',
            'Preflop is capped: BB 10 + raises to 20, 30, 40 = four bets, so p1',
            'may only call 40 (pokerkit alone would still offer a raise to 50).',
            'Pot 40+40 + 10+10 + 0 + 20+20 = 140. Board 2c5d7h Kc Ks.',
            'p1 scoops: high Kd+Ah -> K-K-K-A-7, low Ah+3s -> 7-5-3-2-A',
            '(different hole pairs for high and low); p2 has Q-Q-K-K and',
            '7-6-5-4-2. p1 300 -> 370, p2 300 -> 230. pokerkit agrees.',
        ],
        variant='FO/8', blinds=[5, 10], small_bet=10, big_bet=20,
        stacks=[300, 300],
        actions=['d dh p1 Ah3sKd9c', 'd dh p2 4c6dQhQd',
                 'p2 cbr 20', 'p1 cbr 30', 'p2 cbr 40', 'p1 cc',
                 'd db 2c5d7h', 'p1 cc', 'p2 cbr 10', 'p1 cc',
                 'd db Kc', 'p1 cc', 'p2 cc',
                 'd db Ks', 'p1 cbr 20', 'p2 cc',
                 'p1 sm Ah3sKd9c', 'p2 sm 4c6dQhQd'],
        expect_house=[370, 230],
        expect_pokerkit=[370, 230],
    ),
    dict(
        name='nl_allin_two_side_pots_lowless_side_pot',
        comments=[
            'No limit 5/10, four seats: p1 SB, p2 BB, p3, p4 button.',
            'Three players all-in for different amounts (50, 150, 400) and p4',
            'covers and calls, so there are a main pot and TWO side pots',
            '(with only three players in, different all-ins give one side pot',
            'plus an uncalled bet, so a fourth, covering player is needed).',
            'main 200 {p1,p2,p3,p4}, side 1 300 {p2,p3,p4}, side 2 500 {p3,p4}.',
            'Board 2h7c8d Ks 9s. Only p1 has a low (Ac3d: 8-7-3-2-A).',
            'High: p2 K-K-K, p3 9-9-9, p4 Q-Q, p1 J-J.',
            'House: main split, p2 100 high / p1 100 low; side 1 has no low',
            'among ITS players so p2 scoops 300; side 2 p3 scoops 500.',
            'Finishing 100, 400, 500, 600.',
            'pokerkit splits side 1 (high 150 to p2, the "low" 150 shared by',
            'p2 and p3 who have no low) and ends 100, 325, 575, 600.',
        ],
        variant='NO/8', blinds=[5, 10], min_bet=10,
        stacks=[50, 150, 400, 1000],
        actions=['d dh p1 Ac3dJhJd', 'd dh p2 KhKdTcTh',
                 'd dh p3 9h9dQsJc', 'd dh p4 QcQh4s4d',
                 'p3 cbr 400', 'p4 cc', 'p1 cc', 'p2 cc',
                 'p3 sm 9h9dQsJc', 'p4 sm QcQh4s4d', 'p1 sm Ac3dJhJd',
                 'p2 sm KhKdTcTh',
                 'd db 2h7c8d', 'd db Ks', 'd db 9s'],
        expect_house=[100, 400, 500, 600],
        expect_pokerkit=[100, 325, 575, 600],
    ),
    dict(
        name='hu_odd_chip_same_winners_both_ways',
        comments=[
            'Heads-up no limit, blinds 7/15 (small blind = 15 // 2).',
            'p1 = big blind, p2 = button/small blind. Checked down, pot 30.',
            'Board As2d3c Kh Qs: both hold 4-5, so both have the 5-high',
            'straight for high AND 5-4-3-2-A for low.',
            'House (docs/rules.md §3.3): the very same players win high and low, so the',
            'pot is divided as one: 15/15, stacks unchanged at 100, 100.',
            'pokerkit divides each 15-chip half 8/7 with both odd chips to p1:',
            '101, 99.',
        ],
        variant='NO/8', blinds=[7, 15], min_bet=15, stacks=[100, 100],
        actions=['d dh p1 4h5h9c9d', 'd dh p2 4d5d8c8h',
                 'p2 cc', 'p1 cc',
                 'd db As2d3c', 'p1 cc', 'p2 cc',
                 'd db Kh', 'p1 cc', 'p2 cc',
                 'd db Qs', 'p1 cc', 'p2 cc',
                 'p1 sm 4h5h9c9d', 'p2 sm 4d5d8c8h'],
        expect_house=[100, 100],
        expect_pokerkit=[101, 99],
    ),
    dict(
        name='three_way_tie_leftover_chips',
        comments=[
            'No limit, blinds 5/11, four seats: p1 SB, p2 BB, p3, p4 button.',
            'p1 folds its 5-chip small blind; p2, p3, p4 put in 11 each and',
            'check it down: pot 38. Board KsQdJh 9c 2s has one low card, so',
            'no low is possible; p2, p3 and p4 all hold T-9 for the same',
            'K-Q-J-T-9 straight. 38 / 3 = 12, 2 chips left over.',
            'House: leftovers one at a time from the first seat left of the',
            'button (p1 folded, so p2, then p3): 13, 13, 12 -> 195, 202, 202,',
            '201. pokerkit gives both leftover chips to p2: 195, 203, 201, 201.',
        ],
        variant='NO/8', blinds=[5, 11], min_bet=11,
        stacks=[200, 200, 200, 200],
        actions=['d dh p1 5c6c7d8d', 'd dh p2 Tc9d3c4d',
                 'd dh p3 Td9h3d4h', 'd dh p4 Th9s3h4c',
                 'p3 cc', 'p4 cc', 'p1 f', 'p2 cc',
                 'd db KsQdJh', 'p2 cc', 'p3 cc', 'p4 cc',
                 'd db 9c', 'p2 cc', 'p3 cc', 'p4 cc',
                 'd db 2s', 'p2 cc', 'p3 cc', 'p4 cc',
                 'p2 sm Tc9d3c4d', 'p3 sm Td9h3d4h', 'p4 sm Th9s3h4c'],
        expect_house=[195, 202, 202, 201],
        expect_pokerkit=[195, 203, 201, 201],
    ),
]


def build(fx):
    n = len(fx['stacks'])
    kw = dict(variant=fx['variant'], antes=[0] * n,
              blinds_or_straddles=fx['blinds'] + [0] * (n - 2),
              starting_stacks=fx['stacks'], actions=fx['actions'])
    for k in ('small_bet', 'big_bet', 'min_bet'):
        if k in fx:
            kw[k] = fx[k]
    hh = O8HandHistory(**kw)
    state = None
    for state in hh:
        pass
    assert not state.status, fx['name']
    house = house_result(state)[0]
    pk = list(state.stacks)
    assert house == fx['expect_house'], (fx['name'], house)
    assert pk == fx['expect_pokerkit'], (fx['name'], pk)
    hh.finishing_stacks = house
    if pk != house:
        hh.user_defined_fields['_pokerkit_finishing_stacks'] = pk
    return hh


def main() -> int:
    out = os.path.join(HERE, 'fixtures')
    os.makedirs(out, exist_ok=True)
    for fx in FIXTURES:
        hh = build(fx)
        text = ''.join(f'# {c}\n' for c in fx['comments']) + hh.dumps() + '\n'
        with open(os.path.join(out, fx['name'] + '.phh'), 'w') as f:
            f.write(text)
        print(f'wrote fixtures/{fx["name"]}.phh', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
