//! Monte Carlo: boards (and unknown hands) dealt from a seeded generator.
//!
//! A trial's result is kept as its outcome, which hands win the high and which the low, and
//! trials are counted per outcome; the totals are worked out from the counts at the end.
//!
//! With every hand known, a board on which no flush can be made (no suit with three board
//! cards and two cards of some hand) scores every hand by its ranks alone, so the outcome of
//! each of the ~6,000 rank classes is worked out the first time a board of it is dealt and
//! looked up after: most trials cost a shuffle and two table lookups.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use super::{Computed, Equity, Spot, Tally};
use crate::eval::{self, BoardEval, Hole};
use crate::{Card, Rank, Suit};

/// Deals the unknown hands and the rest of the board `trials` times.
pub(super) fn sample(spot: &Spot, deck: &[Card], trials: u32, seed: u64) -> Equity {
    let players = spot.hands.len();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut deck = deck.to_vec();
    let mut holes: Vec<Option<Hole>> = spot
        .hands
        .iter()
        .map(|h| h.as_ref().map(Hole::new))
        .collect();
    let unknown: Vec<usize> = (0..players).filter(|&i| holes[i].is_none()).collect();
    let mut by_ranks = RankOutcomes::new(&holes);
    let missing = 5 - spot.board.len();
    let draws = missing + 4 * unknown.len();
    let mut board = [Card::new(Rank::TWO, Suit::Clubs); 5];
    board[..spot.board.len()].copy_from_slice(&spot.board);
    let mut outcomes = Outcomes::new(players);
    let mut highs = vec![0u16; players];
    let mut lows = vec![0u8; players];

    for _ in 0..trials {
        // A partial Fisher-Yates shuffle: the first `draws` cards become a uniform sample
        // whatever order earlier trials left the deck in.
        for i in 0..draws {
            let j = i + below(&mut rng, deck.len() - i);
            deck.swap(i, j);
        }
        board[spot.board.len()..].copy_from_slice(&deck[..missing]);
        if let Some(by_ranks) = &mut by_ranks
            && let Some(code) = by_ranks.get(&board, &mut highs, &mut lows)
        {
            outcomes.count(code);
            continue;
        }
        for (n, &player) in unknown.iter().enumerate() {
            let at = missing + 4 * n;
            let cards = [deck[at], deck[at + 1], deck[at + 2], deck[at + 3]];
            holes[player] = Some(Hole::new(&cards));
        }
        let board_eval = BoardEval::new(&board);
        for ((hole, high), low) in holes.iter().flatten().zip(&mut highs).zip(&mut lows) {
            (*high, *low) = board_eval.scores(hole);
        }
        outcomes.count(outcome(&highs, &lows));
    }
    outcomes
        .tally()
        .finish(Computed::MonteCarlo { trials, seed })
}

/// A uniform number below `n` (`n` ≤ 52), by Lemire's multiply-shift; the bias, under 2^-26,
/// is far below any Monte Carlo error.
fn below(rng: &mut ChaCha8Rng, n: usize) -> usize {
    ((u64::from(rng.next_u32()) * n as u64) >> 32) as usize
}

/// A trial's outcome: bit `i` for hand `i` winning (or tying for) the high, bit `players + i`
/// for it winning the low; no low bits when nobody has a low.
fn outcome(highs: &[u16], lows: &[u8]) -> usize {
    let best_high = highs.iter().copied().max().unwrap_or(0);
    let best_low = lows.iter().copied().max().unwrap_or(0);
    let players = highs.len();
    let mut code = 0;
    for (i, (&high, &low)) in highs.iter().zip(lows).enumerate() {
        code |= usize::from(high == best_high) << i;
        code |= usize::from(best_low != 0 && low == best_low) << (players + i);
    }
    code
}

/// Outcomes of boards decided by their ranks, by rank class, for hands that are all known.
struct RankOutcomes {
    holes: Vec<Hole>,
    /// Suits in which some hand holds two cards (bit per suit): a board with three of one of
    /// them may make a flush, and is evaluated in full.
    flush_suits: u8,
    /// `outcome + 1`; `0` for a class not met yet.
    codes: Vec<u32>,
}

impl RankOutcomes {
    /// `None` when some hand is dealt per trial, which changes every class's outcome from
    /// trial to trial.
    fn new(holes: &[Option<Hole>]) -> Option<RankOutcomes> {
        let holes: Vec<Hole> = holes.iter().copied().collect::<Option<_>>()?;
        let flush_suits = Suit::ALL.iter().fold(0u8, |mask, &suit| {
            let two = holes.iter().any(|h| h.suited(suit).count_ones() >= 2);
            mask | u8::from(two) << suit as u8
        });
        Some(RankOutcomes {
            holes,
            flush_suits,
            codes: vec![0; eval::RANK_CLASSES],
        })
    }

    /// The outcome of this board, unless a flush can be made on it.
    #[inline]
    fn get(&mut self, board: &[Card; 5], highs: &mut [u16], lows: &mut [u8]) -> Option<usize> {
        if eval::flush_suit(board).is_some_and(|s| self.flush_suits & 1 << s as u8 != 0) {
            return None;
        }
        let ranks = board.map(|c| c.rank().index());
        let code = self.codes.get_mut(eval::rank_class(ranks))?;
        if *code == 0 {
            let (row, low_row) = eval::rank_rows(ranks);
            for ((hole, high), low) in self.holes.iter().zip(&mut *highs).zip(&mut *lows) {
                *high = hole.rank_high(row);
                *low = eval::low_key(hole.low_mask(low_row));
            }
            *code = outcome(highs, lows) as u32 + 1;
        }
        Some(*code as usize - 1)
    }
}

/// Trials counted by outcome.
struct Outcomes {
    players: usize,
    counts: Vec<u32>,
}

impl Outcomes {
    fn new(players: usize) -> Outcomes {
        // Ten hands make 2^20 outcomes (4 MiB), of which few occur: the pages never touched
        // are never allocated.
        Outcomes {
            players,
            counts: vec![0; 1 << (2 * players)],
        }
    }

    #[inline]
    fn count(&mut self, code: usize) {
        if let Some(n) = self.counts.get_mut(code) {
            *n += 1;
        }
    }

    fn tally(&self) -> Tally {
        let players = self.players;
        let mut tally = Tally::new(players);
        let mut highs = vec![0u16; players];
        let mut lows = vec![0u8; players];
        let mut units = vec![0u64; players];
        for (code, &n) in self.counts.iter().enumerate().filter(|(_, n)| **n > 0) {
            for (i, (high, low)) in highs.iter_mut().zip(&mut lows).enumerate() {
                *high = (code >> i & 1) as u16;
                *low = (code >> (players + i) & 1) as u8;
            }
            tally.add(i64::from(n), &highs, &lows, &mut units);
            for (hand, &share) in tally.hands.iter_mut().zip(&units) {
                hand.pot_squares += u64::from(n) * share * share;
            }
        }
        tally
    }
}
