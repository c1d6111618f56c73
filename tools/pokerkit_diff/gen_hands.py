#!/usr/bin/env python3
"""Differential-test oracle for Scoop: random Omaha Hi/Lo 8-or-better hands.

Plays random complete hands with pokerkit 0.7.7 (FO/8, PO/8, NO/8; 2..10
players; short stacks, all-ins, side pots), keeps every chosen action inside
what the house rules (docs/rules.md) allow, and
writes them as PHH with ``finishing_stacks`` computed under OUR settlement
rules (docs/rules.md section 3), not pokerkit's raw result.

    gen_hands.py --hands N --seed S --out DIR [--one-per-hand]

Disagreements between pokerkit's betting limits and ours, and the
pokerkit-vs-house payout differences, are summarised on stderr.
See README.md beside this file.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import warnings
from collections import Counter
from dataclasses import dataclass, field

from pokerkit import (
    Automation,
    BlindOrStraddlePosting,
    BoardDealing,
    Card,
    CheckingOrCalling,
    CompletionBettingOrRaisingTo,
    Deck,
    Folding,
    HandHistory,
    HoleDealing,
    Mode,
    OmahaEightOrBetterLowHand,
    OmahaHoldemHand,
)
from pokerkit.hands import HoleBoardCombinationHand
from pokerkit.games import (
    FixedLimitPokerMixin,
    Holdem,
    NoLimitPokerMixin,
    OmahaHoldemMixin,
    PotLimitPokerMixin,
    UnfixedLimitHoldem,
)

O8_HANDS = (OmahaHoldemHand, OmahaEightOrBetterLowHand)

# pokerkit re-evaluates the same Omaha hands many times at showdown (hand
# killing, pot pushing); memoising the evaluator makes generation ~5x faster
# without changing any result (hands are immutable values).
_HAND_CACHE: dict = {}
_from_game = HoleBoardCombinationHand.from_game.__func__


def _cached_from_game(cls, hole_cards, board_cards=()):
    key = (cls, tuple(Card.clean(hole_cards)), tuple(Card.clean(board_cards)))
    hit = _HAND_CACHE.get(key)
    if hit is None:
        try:
            hit = _from_game(cls, key[1], key[2])
        except ValueError as e:
            hit = e
        _HAND_CACHE[key] = hit
    if isinstance(hit, ValueError):
        raise ValueError(*hit.args)
    return hit


HoleBoardCombinationHand.from_game = classmethod(_cached_from_game)


# --------------------------------------------------------------------------
# Game definitions. pokerkit's own FixedLimitOmahaHoldemHighLowSplitEightOr
# Better is built on PotLimitPokerMixin (it plays pot limit), so we build all
# three ourselves.
# --------------------------------------------------------------------------

class FixedLimitO8(FixedLimitPokerMixin, OmahaHoldemMixin, Holdem):
    """Fixed-limit Omaha hi/lo 8-or-better (really fixed limit)."""
    hand_types = O8_HANDS


class PotLimitO8(PotLimitPokerMixin, OmahaHoldemMixin, UnfixedLimitHoldem):
    """Pot-limit Omaha hi/lo 8-or-better (PHH extension code PO/8)."""
    hand_types = O8_HANDS


class NoLimitO8(NoLimitPokerMixin, OmahaHoldemMixin, UnfixedLimitHoldem):
    """No-limit Omaha hi/lo 8-or-better (PHH extension code NO/8)."""
    hand_types = O8_HANDS


class O8HandHistory(HandHistory):
    """HandHistory that knows our three variant codes."""
    game_types = {
        **HandHistory.game_types,
        'FO/8': FixedLimitO8,
        'PO/8': PotLimitO8,
        'NO/8': NoLimitO8,
    }
    variants = {FixedLimitO8: 'FO/8', PotLimitO8: 'PO/8', NoLimitO8: 'NO/8'}
    required_field_names = {
        **HandHistory.required_field_names,
        'PO/8': HandHistory.required_field_names['PO'],
        'NO/8': HandHistory.required_field_names['NT'],
    }


AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)

STRUCTURES = ('FO/8', 'PO/8', 'NO/8')
STREET_NAMES = ('preflop', 'flop', 'turn', 'river')


def make_game(variant: str, sb: int, bb: int, straddle: bool = False):
    """Game object; for FO/8 bb is the small bet (big bet = 2 * bb).  With
    `straddle`, p3 posts a live straddle of two big blinds (docs/rules.md
    section 4.8)."""
    blinds = (sb, bb, 2 * bb) if straddle else (sb, bb)
    if variant == 'FO/8':
        return FixedLimitO8(AUTOMATIONS, True, 0, blinds, bb, 2 * bb,
                            mode=Mode.CASH_GAME)
    cls = PotLimitO8 if variant == 'PO/8' else NoLimitO8
    return cls(AUTOMATIONS, True, 0, blinds, bb, mode=Mode.CASH_GAME)


# --------------------------------------------------------------------------
# Log of disagreements between pokerkit and the house betting formulas.
# --------------------------------------------------------------------------

class DisagreementLog:
    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.examples: dict[str, str] = {}

    def add(self, key: str, example: str) -> None:
        self.counts[key] += 1
        self.examples.setdefault(key, example)

    def report(self, out) -> None:
        if not self.counts:
            print('  (none)', file=out)
        for key, n in sorted(self.counts.items(), key=lambda kv: -kv[1]):
            print(f'  {n:6d} x {key}', file=out)
            print(f'           e.g. {self.examples[key]}', file=out)


# --------------------------------------------------------------------------
# House betting model for one betting round (docs/rules.md section 5).
# --------------------------------------------------------------------------

@dataclass
class RoundModel:
    variant: str
    street: int
    bb: int            # big blind = min bet (NL/PL) = small bet (FL)
    fixed: int         # FL bet size of this street (0 for NL/PL)
    last_full: int = 0  # size of the last full bet/raise in this round
    bets_made: int = 0  # FL: bets+raises so far (preflop: BB counts as one)
    acted: set[int] = field(default_factory=set)  # acted since last full raise
    short_sum: int = 0  # short all-in raises since the last full raise
    short_seen: bool = False  # any short all-in raise in this round
    half_bet_allin: bool = False  # FL: an all-in raise of >= half a bet
    short_kinds: set[str] = field(default_factory=set)  # for the log
    straddle: bool = False  # preflop: a straddle of two big blinds was posted

    def __post_init__(self) -> None:
        if self.street == 0:
            # A straddle is a blind of two big blinds: the next raise is to
            # four in pot and no limit, and in fixed limit it is the second
            # bet of the cap (docs/rules.md section 4.8).
            self.last_full = 2 * self.bb if self.straddle else self.bb
            self.bets_made = 2 if self.straddle else 1

    def min_increment(self) -> int:
        if self.variant == 'FO/8':
            return self.fixed
        return max(self.last_full, self.bb)

    def raise_range(self, bets, stacks, live, pot_total, p):
        """(lo, hi) raise-to range under the house rules, or (None, why)."""
        cur = max(bets)
        allin_to = stacks[p] + bets[p]
        if allin_to <= cur:
            return None, 'stack does not cover more than a call'
        if not any(i != p and i in live and stacks[i] + bets[i] > cur
                   for i in range(len(bets))):
            return None, 'everyone else is all-in or folded'
        if p in self.acted:
            return None, 'betting not reopened for this player'
        if self.variant == 'FO/8':
            if self.bets_made >= 4:
                return None, 'fixed-limit cap (1 bet + 3 raises) reached'
            to = min(cur + self.fixed, allin_to)
            return (to, to), ''
        lo = min(cur + self.min_increment(), allin_to)
        if self.variant == 'NO/8':
            return (lo, allin_to), ''
        pot_after_call = pot_total + (cur - bets[p])
        hi = min(cur + pot_after_call, allin_to)
        if hi < lo:
            return None, f'pot-limit max {hi} below min {lo}'
        return (lo, hi), ''

    def on_action(self, p, kind, cur_before=0, to=0, all_in=False) -> None:
        if kind != 'cbr':
            self.acted.add(p)
            return
        inc = to - cur_before
        if self.variant == 'FO/8':
            # FL: an all-in of at least half a bet counts as a full raise.
            full = inc >= self.fixed or (all_in and 2 * inc >= self.fixed)
            if full and inc < self.fixed:
                self.half_bet_allin = True
        else:
            full = inc >= self.min_increment()
        if full:
            if self.variant != 'FO/8':
                self.last_full = inc
            self.bets_made += 1
            self.acted = {p}
            self.short_sum = 0
            return
        self.short_seen = True
        self.short_kinds.add('opening bet below the minimum' if cur_before == 0
                             else 'short raise')
        self.short_sum += inc
        self.acted.add(p)
        if self.short_sum >= self.min_increment():
            # several short all-ins that together make a full raise reopen
            self.bets_made += 1
            self.acted = {p}
            self.short_sum = 0


# --------------------------------------------------------------------------
# Settlement (docs/rules.md section 3), plus a switchable emulation of pokerkit's
# rules so differences can be attributed to a cause.
# --------------------------------------------------------------------------

def split_evenly(amount, winners, won):
    """Equal shares; leftover chips one at a time in seat order starting
    from the first seat left of the button.  With PHH seat order that is
    ascending player index for every table size (for 3+ players p1 is the
    small blind, first left of the button pN; heads-up p1 is the big blind,
    left of the button/small blind p2)."""
    winners = sorted(winners)
    q, r = divmod(amount, len(winners))
    for k, i in enumerate(winners):
        won[i] += q + (1 if k < r else 0)


def split_pokerkit(amount, winners, won):
    """pokerkit: equal shares, the whole remainder to the lowest index."""
    winners = sorted(winners)
    q, r = divmod(amount, len(winners))
    for k, i in enumerate(winners):
        won[i] += q + (r if k == 0 else 0)


def best(players, hands):
    """Players holding the best hand (None = no hand of that kind)."""
    have = [i for i in players if hands[i] is not None]
    if not have:
        return []
    top = max(hands[i] for i in have)
    return [i for i in have if hands[i] == top]


def layer_pots(contrib, eligible_players):
    """Pots layered by contribution among the eligible players; chips of
    others (folded) stay in the layers they reached.  Adjacent layers with
    the same eligible set are one pot.  Returns [(amount, [eligible...])]."""
    n = len(contrib)
    levels = sorted({contrib[i] for i in eligible_players if contrib[i] > 0})
    pots = []
    prev = 0
    for k, level in enumerate(levels):
        top = k == len(levels) - 1
        amount = 0
        for j in range(n):
            upper = contrib[j] if top else min(contrib[j], level)
            amount += max(0, upper - prev)
        elig = sorted(i for i in eligible_players if contrib[i] >= level)
        if pots and pots[-1][1] == elig:
            pots[-1] = (pots[-1][0] + amount, elig)
        elif amount:
            pots.append((amount, elig))
        prev = level
    return pots


def return_uncalled(contrib):
    """Return the uncalled part of the largest contribution.
    Gives (adjusted contributions, refunds)."""
    c = list(contrib)
    refund = [0] * len(c)
    order = sorted(range(len(c)), key=lambda i: -c[i])
    top, second = c[order[0]], c[order[1]]
    if top > second:
        refund[order[0]] = top - second
        c[order[0]] = second
    return c, refund


def pk_killed(c, live, hi, lo):
    """Players pokerkit's HAND_KILLING removes: those who cannot win any
    part of any pot (state.can_win_now)."""
    pots = layer_pots(c, live)
    killed = set()
    for i in live:
        can = False
        for hands in (hi, lo):
            if hands[i] is None:
                continue
            for _, elig in pots:
                if i in elig:
                    have = [hands[j] for j in elig if hands[j] is not None]
                    if not have or max(have) <= hands[i]:
                        can = True
        if not can:
            killed.add(i)
    return killed


def settle(contrib, folded, hi, lo, low_rule='house', leftover='tda',
           pool=True, kill=False, second=None):
    """Chips won back by each player (refunds included).

    contrib  -- total chips each player put in during the hand
    folded   -- set of players who folded
    hi, lo   -- per-player OmahaHoldemHand / OmahaEightOrBetterLowHand (or
                None: folded, or no qualifying low)
    The defaults are the house rules.  The switches emulate pokerkit:
    low_rule -- 'house': a pot is split only if one of ITS eligible players
                has a low; 'pokerkit': split whenever anyone still in the
                hand has a low, the low half then shared by all the pot's
                players even if none of them has a low.
    leftover -- 'tda': leftover chips one at a time from the first seat
                left of the button; 'first': all of them to the lowest index.
    pool     -- True: when the very same players win high and low, the pot
                is divided among them as one (house); False: the halves are
                always divided separately (pokerkit).
    kill     -- emulate pokerkit's hand killing (players who can win nothing
                are removed before the pots are formed, which can merge
                pots).
    second   -- run twice: (hi, lo) on the second board; every pot is then
                halved between the two boards.
    """
    n = len(contrib)
    c, won = return_uncalled(contrib)
    live = [i for i in range(n) if i not in folded]
    if len(live) == 1:
        won[live[0]] += sum(c)
        return won
    if kill:
        dead = pk_killed(c, live, hi, lo)
        live = [i for i in live if i not in dead]
    split = split_evenly if leftover == 'tda' else split_pokerkit

    def pay(amount, elig, hi, lo):
        any_low = any(lo[i] is not None for i in live)
        w_hi = best(elig, hi)
        w_lo = best(elig, lo)
        if low_rule == 'pokerkit':
            has_low = any_low
            if has_low and not w_lo:
                w_lo = list(elig)
        else:
            has_low = bool(w_lo)
        if not has_low:
            split(amount, w_hi, won)
        elif pool and sorted(w_hi) == sorted(w_lo):
            split(amount, w_hi, won)
        else:
            lo_half = amount // 2
            split(amount - lo_half, w_hi, won)
            split(lo_half, w_lo, won)

    for amount, elig in layer_pots(c, live):
        if not elig:
            continue  # pokerkit burns such chips (cannot happen here)
        if second is None or len(elig) == 1:
            pay(amount, elig, hi, lo)
        else:
            # Run twice (docs/rules.md section 3.8): half the pot for each
            # board, the odd chip to the first, each half settled on its own.
            half = amount // 2
            pay(amount - half, elig, hi, lo)
            pay(half, elig, *second)
    return won


# --------------------------------------------------------------------------
# Reading a finished pokerkit state independently of its chip accounting.
# --------------------------------------------------------------------------

def hand_facts(state):
    """(contributions, folded set, hole cards, board) from the operations."""
    n = state.player_count
    contrib = [0] * n
    street_bet = [0] * n
    folded = set()
    holes = [[] for _ in range(n)]
    board = []
    for op in state.operations:
        if isinstance(op, BlindOrStraddlePosting):
            street_bet[op.player_index] += op.amount
            contrib[op.player_index] += op.amount
        elif isinstance(op, CheckingOrCalling):
            street_bet[op.player_index] += op.amount
            contrib[op.player_index] += op.amount
        elif isinstance(op, CompletionBettingOrRaisingTo):
            contrib[op.player_index] += op.amount - street_bet[op.player_index]
            street_bet[op.player_index] = op.amount
        elif isinstance(op, BoardDealing):
            board.extend(op.cards)
            street_bet = [0] * n
        elif isinstance(op, Folding):
            folded.add(op.player_index)
        elif isinstance(op, HoleDealing):
            holes[op.player_index].extend(op.cards)
    return contrib, folded, holes, board


def evaluate(holes, board, folded):
    n = len(holes)
    hi = [None] * n
    lo = [None] * n
    if len(board) == 5:
        for i in range(n):
            if i not in folded:
                hi[i] = OmahaHoldemHand.from_game(holes[i], board)
                lo[i] = OmahaEightOrBetterLowHand.from_game_or_none(
                    holes[i], board)
    return hi, lo


def house_result(state, second_board=None):
    """House finishing stacks, and diagnostics for the comparison.  With
    `second_board` (a hand run twice) the house stacks settle both boards;
    the diagnostics stay single-board, as pokerkit played it."""
    contrib, folded, holes, board = hand_facts(state)
    hi, lo = evaluate(holes, board, folded)
    n = state.player_count
    start = state.starting_stacks

    def stacks(won):
        return [start[i] - contrib[i] + won[i] for i in range(n)]

    def st(**kw):
        return stacks(settle(contrib, folded, hi, lo, **kw))

    second = None
    if second_board is not None:
        second = evaluate(holes, second_board, folded)
    house = st(second=second)
    variants = {
        'house_one_board': st(),
        'pk_emulated': st(low_rule='pokerkit', leftover='first', pool=False,
                          kill=True),
        'low-less side pot split by pokerkit': st(low_rule='pokerkit'),
        'same winners both ways not pooled': st(pool=False),
        'leftover chips all to one player': st(leftover='first'),
        'pots merged after hand killing': st(kill=True),
    }
    c, _ = return_uncalled(contrib)
    live = [i for i in range(n) if i not in folded]
    pots = layer_pots(c, live) if len(live) > 1 else []
    return house, variants, pots, contrib, folded


# --------------------------------------------------------------------------
# Random hand generation.
# --------------------------------------------------------------------------

FL_SMALL_BETS = (2, 3, 4, 5, 6, 10, 15, 20, 25, 50, 100)
NL_BIG_BLINDS = (2, 3, 4, 5, 10, 15, 20, 25, 50, 100, 200)


def random_stacks(rng, n, bb, bb_seat):
    stacks = []
    for i in range(n):
        r = rng.random()
        if r < 0.12:
            s = rng.randint(1, max(1, bb - 1))          # below one big blind
        elif r < 0.42:
            s = rng.randint(bb, 6 * bb)                 # a few bets
        elif r < 0.77:
            s = rng.randint(6 * bb, 40 * bb)
        else:
            s = rng.randint(40 * bb, 300 * bb)
        if i == bb_seat and s < bb:
            # A big blind all-in for LESS than the blind is avoided on
            # purpose: pokerkit then makes the others call only the posted
            # amount (see README); exactly one big blind is allowed.
            s = rng.randint(bb, 2 * bb)
        stacks.append(s)
    return stacks


def choose_player_count(rng):
    return rng.choice((2, 2, 2, 3, 3, 3, 4, 4, 5, 5, 6, 6, 7, 8, 9, 10))


class HandGenerator:
    def __init__(self, seed: int, log: DisagreementLog):
        self.rng = random.Random(seed)
        self.log = log
        self.idle_checks = 0     # pokerkit asks for a check nobody needs
        self.idle_example = ''

    def play(self, hand_id: int, variant: str):
        rng = self.rng
        _HAND_CACHE.clear()
        n = choose_player_count(rng)
        if variant == 'FO/8':
            bb = rng.choice(FL_SMALL_BETS)
        else:
            bb = rng.choice(NL_BIG_BLINDS)
        sb = bb // 2
        bb_seat = 0 if n == 2 else 1
        stacks = random_stacks(rng, n, bb, bb_seat)
        # The home-game options: a straddle by p3 (three or more players,
        # more than two big blinds behind) and run it twice.
        straddle = n >= 3 and rng.random() < 0.25 and stacks[2] > 2 * bb
        run_twice = rng.random() < 0.3
        game = make_game(variant, sb, bb, straddle)
        # pokerkit shuffles its own deck with the global RNG; we deal every
        # card explicitly, but seed it anyway so nothing depends on it.
        random.seed(rng.getrandbits(64))
        state = game(stacks, n)
        deck = list(Deck.STANDARD)
        rng.shuffle(deck)
        aggressiveness = rng.choice((0.15, 0.3, 0.45))
        model = None
        # Board cards dealt when the last real decision was made: the house
        # runs the rest twice from there (an idle check pokerkit asks for
        # is not a decision).
        decided_at = 0
        while state.status:
            if state.can_deal_hole():
                state.deal_hole(deck.pop())
            elif state.can_burn_card():
                state.burn_card(deck.pop())
            elif state.board_dealing_count:
                k = state.board_dealing_count
                state.deal_board(''.join(repr(deck.pop()) for _ in range(k)))
            elif state.actor_index is not None:
                street = state.street_index
                if model is None or model.street != street:
                    fixed = 0
                    if variant == 'FO/8':
                        fixed = bb if street < 2 else 2 * bb
                    model = RoundModel(variant, street, bb, fixed,
                                       straddle=straddle and street == 0)
                idle = self.act(state, model, hand_id, variant,
                                aggressiveness)
                if not idle:
                    decided_at = len(state.board_cards)
            elif state.showdown_index is not None:
                state.show_or_muck_hole_cards(True)
            else:
                raise RuntimeError(f'hand {hand_id}: stuck')
        second_run = None
        if run_twice:
            second_run = self.second_run(state, deck, decided_at)
        return game, state, second_run

    @staticmethod
    def second_run(state, deck, decided_at):
        """The second run's cards if the house runs this hand twice: betting
        ended with cards to come and two or more hands still in, and the deck
        holds a burn and the cards of each street again (docs/rules.md
        section 3.8)."""
        _, folded, _, board = hand_facts(state)
        if len(board) < 5 or state.player_count - len(folded) < 2:
            return None
        streets = {0: (3, 1, 1), 3: (1, 1), 4: (1,)}.get(decided_at)
        if streets is None or len(deck) < sum(1 + k for k in streets):
            return None
        cards = []
        for k in streets:
            deck.pop()  # burn
            cards.extend(deck.pop() for _ in range(k))
        return cards

    def act(self, state, model, hand_id, variant, aggressiveness):
        rng = self.rng
        p = state.actor_index
        bets, stacks = state.bets, state.stacks
        live = {i for i in range(state.player_count) if state.statuses[i]}
        pot_total = sum(-x for x in state.payoffs)  # chips put in so far
        cur = max(bets)
        call = state.checking_or_calling_amount
        idle = not call and not any(stacks[i] for i in live if i != p)
        if idle:
            # Everyone else is all-in and p owes nothing: pokerkit still
            # asks p to act (only a check is possible).  Recorded as 'pN cc'.
            self.idle_checks += 1
            self.idle_example = self.idle_example or (
                f'hand {hand_id} {STREET_NAMES[state.street_index]} p{p + 1}')

        ours, why = model.raise_range(bets, stacks, live, pot_total, p)
        try:
            state.verify_completion_betting_or_raising_to()
            pk = (state.min_completion_betting_or_raising_to_amount,
                  state.max_completion_betting_or_raising_to_amount)
            pk_why = ''
        except ValueError as e:
            pk, pk_why = None, str(e).split('.')[0]
        if ours is None:
            why = why or 'no raise'
        allowed = self.compare(ours, why, pk, pk_why, model, hand_id,
                               variant, p, cur, bets, stacks)
        if model.short_seen:
            allowed = None  # policy: no raise after a short all-in

        n_raises = model.bets_made - (1 if model.street == 0 else 0)
        raise_w = 0.0
        if allowed:
            raise_w = (0.28 if call else 0.45) * (0.7 ** n_raises)
            raise_w *= 0.6 + aggressiveness
        fold_w = 0.22 if call else 0.0
        call_w = 0.55 if call else 0.6
        r = rng.random() * (fold_w + call_w + raise_w)
        if r < fold_w:
            state.fold()
            model.on_action(p, 'f')
        elif r < fold_w + call_w:
            state.check_or_call()
            model.on_action(p, 'cc')
        else:
            lo, hi = allowed
            to = self.pick_size(variant, lo, hi, aggressiveness)
            state.complete_bet_or_raise_to(to)
            model.on_action(p, 'cbr', cur, to, state.stacks[p] == 0)
        return idle

    def pick_size(self, variant, lo, hi, aggressiveness):
        rng = self.rng
        if lo == hi:
            return lo
        r = rng.random()
        if r < 0.2 + aggressiveness * 0.5:
            return hi          # NL: all-in, PL: pot (or all-in)
        if r < 0.6:
            return lo
        return rng.randint(lo, hi)

    def compare(self, ours, why, pk, pk_why, model, hand_id, variant, p,
                cur, bets, stacks):
        """Log any difference; return the raise-to range both accept."""
        where = 'preflop' if model.street == 0 else 'postflop'
        ctx = ''
        if model.short_seen:
            ctx = (' after an all-in '
                   + ' + '.join(sorted(model.short_kinds)))
        if model.half_bet_allin:
            ctx += ' after an FL all-in raise of at least half a bet'
        ex = (f'hand {hand_id} {STREET_NAMES[model.street]} p{p + 1} '
              f'bets={list(bets)} stacks={list(stacks)}')
        if ours is None and pk is None:
            return None
        if ours is None:
            self.log.add(f'{variant} {where}{ctx}: pokerkit allows a raise, '
                         f'house does not ({why})',
                         f'{ex} pokerkit range {pk[0]}..{pk[1]}')
            return None
        if pk is None:
            self.log.add(f'{variant} {where}{ctx}: house allows a raise, '
                         f'pokerkit refuses ("{pk_why}")',
                         f'{ex} house range {ours[0]}..{ours[1]}')
            return None
        if ours[0] != pk[0]:
            self.log.add(f'{variant} {where}{ctx}: min raise-to differs',
                         f'{ex} house min {ours[0]}, pokerkit min {pk[0]}')
        if ours[1] != pk[1]:
            self.log.add(f'{variant} {where}{ctx}: max raise-to differs',
                         f'{ex} house max {ours[1]}, pokerkit max {pk[1]}')
        lo, hi = max(ours[0], pk[0]), min(ours[1], pk[1])
        return (lo, hi) if lo <= hi else None


# --------------------------------------------------------------------------
# Main.
# --------------------------------------------------------------------------

class Stats:
    def __init__(self):
        self.c = Counter()

    def add(self, key, k=1):
        self.c[key] += k


def build_history(game, state, hand_id, house, pk_stacks, causes,
                  second_run=None):
    kwargs = {'hand': hand_id, 'finishing_stacks': house}
    if second_run:
        # PHH has no notation for runouts: Scoop's user-defined field.
        kwargs['_second_run'] = ''.join(repr(c) for c in second_run)
    if house != pk_stacks:
        kwargs['_pokerkit_finishing_stacks'] = pk_stacks
        kwargs['_pokerkit_differs_because'] = ', '.join(causes)
    return O8HandHistory.from_game_state(game, state, **kwargs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--hands', type=int, required=True)
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--one-per-hand', action='store_true',
                    help='write one .phh per hand instead of one .phhs '
                         'per structure')
    args = ap.parse_args(argv)

    warnings.simplefilter('error')  # any pokerkit warning is a bug here
    os.makedirs(args.out, exist_ok=True)
    log = DisagreementLog()
    gen = HandGenerator(args.seed, log)
    stats = Stats()
    per_variant: dict[str, list[HandHistory]] = {v: [] for v in STRUCTURES}

    for h in range(1, args.hands + 1):
        variant = STRUCTURES[(h - 1) % 3]
        game, state, second_run = gen.play(h, variant)
        pk_stacks = list(state.stacks)
        second_board = None
        if second_run:
            board = hand_facts(state)[3]
            second_board = board[:5 - len(second_run)] + second_run
            stats.add('hands run twice')
        if sum(1 for b in state.blinds_or_straddles if b) > 2:
            stats.add('hands with a straddle')
        house, alt, pots, contrib, folded = house_result(state, second_board)
        n = state.player_count
        assert sum(house) == sum(state.starting_stacks), h
        assert min(house) >= 0, h
        stats.add(f'{variant} hands')
        stats.add(f'players={n}')
        showdown = n - len(folded) > 1
        stats.add('showdown' if showdown else 'fold-out')
        if any(state.starting_stacks[i] == contrib[i] for i in range(n)):
            stats.add('hands with an all-in')
        if len(pots) >= 2:
            stats.add('hands with a side pot')
        if len(pots) >= 3:
            stats.add('hands with 2+ side pots')
        causes = []
        if alt['pk_emulated'] != pk_stacks:
            stats.add('pokerkit emulation MISMATCH (unexplained)')
            causes.append('unexplained')
            print(f'hand {h}: pokerkit {pk_stacks} != emulation '
                  f'{alt["pk_emulated"]}', file=sys.stderr)
        single = alt['house_one_board']
        if house != pk_stacks:
            stats.add('pokerkit != house')
            if house != single:
                causes.append('run twice (pokerkit ran once)')
            causes += [k for k, v in alt.items()
                       if k not in ('pk_emulated', 'house_one_board')
                       and v != single]
            for cause in causes:
                stats.add(f'because: {cause}')
        hh = build_history(game, state, h, house, pk_stacks, causes,
                           second_run)
        if args.one_per_hand:
            tag = variant.replace('/', '')
            with open(os.path.join(args.out, f'{h:06d}_{tag}.phh'), 'wb') as f:
                hh.dump(f)
                f.write(b'\n')
        else:
            per_variant[variant].append(hh)

    if not args.one_per_hand:
        for variant, hhs in per_variant.items():
            if not hhs:
                continue
            tag = variant.replace('/', '').lower()
            with open(os.path.join(args.out, f'{tag}.phhs'), 'wb') as f:
                O8HandHistory.dump_all(hhs, f)
                f.write(b'\n')

    err = sys.stderr
    print(f'generated {args.hands} hands (seed {args.seed}) into {args.out}',
          file=err)
    c = stats.c
    print('  structures: ' + ', '.join(
        f'{v} {c[f"{v} hands"]}' for v in STRUCTURES), file=err)
    print('  players: ' + ', '.join(
        f'{k}:{c[f"players={k}"]}' for k in range(2, 11)), file=err)
    for key in ('showdown', 'fold-out', 'hands with an all-in',
                'hands with a side pot', 'hands with 2+ side pots',
                'hands with a straddle', 'hands run twice'):
        print(f'  {key}: {c[key]}', file=err)
    print(f'pokerkit final stacks != house final stacks: '
          f'{c["pokerkit != house"]} hands', file=err)
    for key in ('run twice (pokerkit ran once)',
                'low-less side pot split by pokerkit',
                'same winners both ways not pooled',
                'leftover chips all to one player',
                'pots merged after hand killing', 'unexplained'):
        print(f'  because: {key}: {c["because: " + key]}', file=err)
    print('  (a hand can have several causes)', file=err)
    print(f'pokerkit asked for a check that nobody needs (all others all-in):'
          f' {gen.idle_checks} times, e.g. {gen.idle_example}', file=err)
    print('betting-limit disagreements, pokerkit vs house formulas '
          '(raises were never chosen in these spots):', file=err)
    log.report(err)
    return 0


if __name__ == '__main__':
    sys.exit(main())
