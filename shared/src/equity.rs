//! Omaha Hi/Lo equity: each hand's average share of one pot over every way the board can
//! finish, split as docs/rules.md §3 splits a single pot (half high, half low when a low
//! qualifies, each half shared equally among tied hands).
//!
//! With every hand known, the board is enumerated exactly, and not board by board: what a hand
//! makes depends on the board's ranks except for flushes, so
//! 1. every multiset of ranks the missing board cards can have is visited once and weighted by
//!    the number of boards with those ranks (about 6,000 classes instead of 1,086,008 boards
//!    heads-up before the flop), scoring hands as if no flush were possible, and the scores
//!    are kept;
//! 2. then, for each suit in which some hand holds two cards, the boards with three or more
//!    cards of that suit are visited by their suited cards and the ranks of the rest; where a
//!    flush changes who wins the high, those boards are counted with the flush and taken out
//!    of their rank class (its kept scores, so nothing is evaluated twice);
//! 3. last, each rank class is counted with the boards it still has.
//!
//! With unknown (random) hands, or when asked, it samples boards (and the unknown hands) with a
//! seeded generator and reports the standard error.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::eval::{self, Hole};
use crate::{Card, Suit};

pub mod calculator;
mod monte_carlo;
mod run_out;

use monte_carlo::sample;

pub use run_out::with_run_out_equity;

/// Above this many boards a spot is sampled instead of enumerated.
pub const EXACT_LIMIT: u64 = 2_000_000;

/// Pot shares are counted in units of 1/5040 of a pot: 5040 is divisible by every `2n` up to
/// `n = 10`, so a half shared by up to ten hands is a whole number of units.
const UNITS: u64 = 5040;

/// A spot to evaluate: two to ten hands (`None`: a hand nobody knows), the board so far and
/// cards known to be out of play.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spot {
    pub hands: Vec<Option<[Card; 4]>>,
    pub board: Vec<Card>,
    #[serde(default)]
    pub dead: Vec<Card>,
}

/// How to compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Method {
    /// Exact when every hand is known and there are at most [`EXACT_LIMIT`] boards, else
    /// Monte Carlo with [`Method::DEFAULT_TRIALS`] trials and seed 0.
    Auto,
    MonteCarlo {
        trials: u32,
        seed: u64,
    },
}

impl Method {
    pub const DEFAULT_TRIALS: u32 = 100_000;
}

#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum EquityError {
    #[error("equity needs 2 to 10 hands, got {0}")]
    HandCount(usize),
    #[error("the board must have 0, 3, 4 or 5 cards, got {0}")]
    BoardSize(usize),
    #[error("card {0} appears twice")]
    Duplicate(Card),
    #[error("not enough cards left to deal the unknown hands and the board")]
    DeckExhausted,
    #[error("Monte Carlo needs at least one trial")]
    NoTrials,
}

/// What one hand can expect.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerEquity {
    /// Average share of the pot, `0..=1`; the hands' shares sum to 1.
    pub pot: f64,
    /// Probability of winning the whole pot alone (high and low, or high when nobody has a low).
    pub scoop: f64,
    /// Probability of winning or tying for the high.
    pub high: f64,
    /// Probability of winning or tying for the low.
    pub low: f64,
    /// Standard error of `pot` when sampled; `0` when exact.
    pub pot_error: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Computed {
    /// Every remaining board, `boards` of them.
    Exact {
        boards: u64,
    },
    MonteCarlo {
        trials: u32,
        seed: u64,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Equity {
    pub players: Vec<PlayerEquity>,
    /// Probability that no hand makes a low.
    pub no_low: f64,
    pub computed: Computed,
}

/// Evaluates a spot.
pub fn equity(spot: &Spot, method: Method) -> Result<Equity, EquityError> {
    let deck = check(spot)?;
    let missing = 5 - spot.board.len();
    let unknown = spot.hands.iter().filter(|h| h.is_none()).count();
    let boards = choose(deck.len() as u64, missing as u64);
    match method {
        Method::Auto if unknown == 0 && boards <= EXACT_LIMIT => {
            let hands: Vec<[Card; 4]> = spot.hands.iter().flatten().copied().collect();
            Ok(exact(&hands, &spot.board, &deck).finish(Computed::Exact { boards }))
        }
        Method::Auto => Ok(sample(spot, &deck, Method::DEFAULT_TRIALS, 0)),
        Method::MonteCarlo { trials: 0, .. } => Err(EquityError::NoTrials),
        Method::MonteCarlo { trials, seed } => Ok(sample(spot, &deck, trials, seed)),
    }
}

/// Whether [`equity`] takes this spot, without computing anything (for a form to check its
/// input before handing it to a worker).
pub fn validate(spot: &Spot) -> Result<(), EquityError> {
    check(spot).map(drop)
}

/// Refuses malformed spots; returns the cards still in the deck.
fn check(spot: &Spot) -> Result<Vec<Card>, EquityError> {
    if !(2..=10).contains(&spot.hands.len()) {
        return Err(EquityError::HandCount(spot.hands.len()));
    }
    if !matches!(spot.board.len(), 0 | 3 | 4 | 5) {
        return Err(EquityError::BoardSize(spot.board.len()));
    }
    let mut seen = 0u64;
    let known = spot.hands.iter().flatten().flatten();
    for &card in known.chain(&spot.board).chain(&spot.dead) {
        if seen & 1 << card.index() != 0 {
            return Err(EquityError::Duplicate(card));
        }
        seen |= 1 << card.index();
    }
    let deck: Vec<Card> = (0..52)
        .filter(|i| seen & 1 << i == 0)
        .filter_map(Card::from_index)
        .collect();
    let unknown = spot.hands.iter().filter(|h| h.is_none()).count();
    if deck.len() < 5 - spot.board.len() + 4 * unknown {
        return Err(EquityError::DeckExhausted);
    }
    Ok(deck)
}

fn choose(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// One hand's running totals, in boards (pot: in pot units). Signed: the flush pass subtracts
/// what the rank pass counted for the boards a flush changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Totals {
    pot: i64,
    /// Sum of squared shares in pot units, for the Monte Carlo error.
    pot_squares: u64,
    scoop: i64,
    high: i64,
    low: i64,
}

/// `WHOLE[n]`, `HALF[n]`: a whole pot or a half shared by `n` hands, in pot units.
const WHOLE: [u64; 11] = shares(UNITS);
const HALF: [u64; 11] = shares(UNITS / 2);

const fn shares(total: u64) -> [u64; 11] {
    let mut t = [0; 11];
    let mut n = 1;
    while n <= 10 {
        t[n] = total / n as u64;
        n += 1;
    }
    t
}

#[derive(Clone, Debug, Default)]
struct Tally {
    hands: Vec<Totals>,
    no_low: i64,
    boards: i64,
}

impl Tally {
    fn new(players: usize) -> Tally {
        Tally {
            hands: vec![Totals::default(); players],
            ..Tally::default()
        }
    }

    /// Adds `weight` boards (negative: removes them) on which the hands score `highs` and
    /// `lows` (higher wins; low `0`: none). Writes each hand's share in pot units to `units`.
    #[inline(always)]
    fn add(&mut self, weight: i64, highs: &[u16], lows: &[u8], units: &mut [u64]) {
        let best_high = highs.iter().copied().max().unwrap_or(0);
        let best_low = lows.iter().copied().max().unwrap_or(0);
        let high_winners = highs.iter().filter(|&&h| h == best_high).count();
        let (high_units, low_units) = if best_low == 0 {
            self.no_low += weight;
            (WHOLE[high_winners], 0)
        } else {
            let low_winners = lows.iter().filter(|&&l| l == best_low).count();
            (HALF[high_winners], HALF[low_winners])
        };
        self.boards += weight;
        let hands = self.hands.iter_mut().zip(units);
        for ((hand, share), (&h, &l)) in hands.zip(highs.iter().zip(lows)) {
            let wins_high = h == best_high;
            let wins_low = best_low != 0 && l == best_low;
            *share = if wins_high { high_units } else { 0 } + if wins_low { low_units } else { 0 };
            hand.high += weight * i64::from(wins_high);
            hand.low += weight * i64::from(wins_low);
            hand.scoop += weight * i64::from(*share == UNITS);
            hand.pot += weight * *share as i64;
        }
    }

    fn finish(&self, computed: Computed) -> Equity {
        let boards = self.boards.max(1) as f64;
        let players = self
            .hands
            .iter()
            .map(|hand| {
                let pot = hand.pot as f64 / UNITS as f64 / boards;
                let pot_error = match computed {
                    Computed::Exact { .. } => 0.0,
                    Computed::MonteCarlo { .. } => {
                        let mean_square = hand.pot_squares as f64 / (UNITS * UNITS) as f64 / boards;
                        ((mean_square - pot * pot).max(0.0) / boards).sqrt()
                    }
                };
                PlayerEquity {
                    pot,
                    scoop: hand.scoop as f64 / boards,
                    high: hand.high as f64 / boards,
                    low: hand.low as f64 / boards,
                    pot_error,
                }
            })
            .collect();
        Equity {
            players,
            no_low: self.no_low as f64 / boards,
            computed,
        }
    }
}

/// Exact equity of known hands: rank classes, then the flush correction (see the module doc).
fn exact(hands: &[[Card; 4]], board: &[Card], deck: &[Card]) -> Tally {
    let holes: Vec<Hole> = hands.iter().map(Hole::new).collect();
    let players = holes.len();
    let mut tally = Tally::new(players);
    let missing = 5 - board.len();
    let known_ranks: Vec<u8> = board.iter().map(|c| c.rank().index()).collect();
    let mut highs = vec![0u16; players];
    let mut lows = vec![0u8; players];
    let mut flush_highs = vec![0u16; players];
    let mut units = vec![0u64; players];

    // 1. Rank classes, flushes ignored: each class scored once and kept, with its boards.
    let mut classes = Classes::new(players);
    let mut available = [0u8; 13];
    for card in deck {
        available[usize::from(card.rank().index())] += 1;
    }
    let mut ranks = [0u8; 5];
    ranks[..board.len()].copy_from_slice(&known_ranks);
    rank_classes(&available, missing, &mut |chosen, weight| {
        ranks[board.len()..].copy_from_slice(chosen);
        let (row, low_row) = eval::rank_rows(ranks);
        for (i, hole) in holes.iter().enumerate() {
            highs[i] = hole.rank_high(row);
            lows[i] = eval::low_key(hole.low_mask(low_row));
        }
        classes.insert(ranks, weight as i64, &highs, &lows);
    });

    // 2. Boards with three or more cards of a suit in which some hand holds two: where the
    // flush changes who wins the high, those boards leave their rank class and are counted
    // with the flushes.
    for suit in Suit::ALL {
        if holes.iter().all(|h| h.suited(suit).count_ones() < 2) {
            continue;
        }
        let known_suited = ranks_of(board.iter().filter(|c| c.suit() == suit));
        let suited_deck: Vec<u8> = deck
            .iter()
            .filter(|c| c.suit() == suit)
            .map(|c| c.rank().index())
            .collect();
        let mut other = [0u8; 13];
        for card in deck.iter().filter(|c| c.suit() != suit) {
            other[usize::from(card.rank().index())] += 1;
        }
        let have = known_suited.count_ones() as usize;
        for take in 3usize.saturating_sub(have)..=missing.min(suited_deck.len()) {
            subsets(&suited_deck, take, &mut |suited_ranks| {
                let board_suited =
                    known_suited | suited_ranks.iter().fold(0u16, |m, &r| m | 1 << r);
                for (i, hole) in holes.iter().enumerate() {
                    flush_highs[i] = eval::suited_high(hole.suited(suit), board_suited);
                }
                if flush_highs.iter().all(|&f| f == 0) {
                    return;
                }
                ranks[board.len()..board.len() + take].copy_from_slice(suited_ranks);
                rank_classes(&other, missing - take, &mut |chosen, weight| {
                    ranks[board.len() + take..].copy_from_slice(chosen);
                    let Some((class_highs, class_lows, boards)) = classes.get_mut(ranks) else {
                        // Every board's ranks were visited in step 1; this cannot happen.
                        return;
                    };
                    for ((high, &flush), &class_high) in
                        highs.iter_mut().zip(&flush_highs).zip(class_highs)
                    {
                        *high = class_high.max(flush);
                    }
                    if high_winners(&highs) == high_winners(class_highs) {
                        return;
                    }
                    *boards -= weight as i64;
                    tally.add(weight as i64, &highs, class_lows, &mut units);
                });
            });
        }
    }

    for (class_highs, class_lows, boards) in classes.iter() {
        if boards != 0 {
            tally.add(boards, class_highs, class_lows, &mut units);
        }
    }
    tally
}

/// The hands that win or tie for the high, a bit each.
fn high_winners(highs: &[u16]) -> u16 {
    let best = highs.iter().copied().max().unwrap_or(0);
    highs
        .iter()
        .enumerate()
        .fold(0, |m, (i, &h)| m | u16::from(h == best) << i)
}

/// The rank classes of step 1 of [`exact`]: each hand's high and low on the class, and how
/// many of its boards are still counted by rank alone.
struct Classes {
    players: usize,
    /// By [`eval::rank_class`], the class's position in the lists below (`u16::MAX`: none).
    slot: Vec<u16>,
    highs: Vec<u16>,
    lows: Vec<u8>,
    boards: Vec<i64>,
}

impl Classes {
    fn new(players: usize) -> Classes {
        Classes {
            players,
            slot: vec![u16::MAX; eval::RANK_CLASSES],
            highs: Vec::new(),
            lows: Vec::new(),
            boards: Vec::new(),
        }
    }

    fn insert(&mut self, ranks: [u8; 5], boards: i64, highs: &[u16], lows: &[u8]) {
        if let Some(slot) = self.slot.get_mut(eval::rank_class(ranks)) {
            *slot = self.boards.len() as u16;
            self.boards.push(boards);
            self.highs.extend_from_slice(highs);
            self.lows.extend_from_slice(lows);
        }
    }

    fn get_mut(&mut self, ranks: [u8; 5]) -> Option<(&[u16], &[u8], &mut i64)> {
        let at = usize::from(*self.slot.get(eval::rank_class(ranks))?);
        let players = self.players;
        Some((
            self.highs.get(at * players..(at + 1) * players)?,
            self.lows.get(at * players..(at + 1) * players)?,
            self.boards.get_mut(at)?,
        ))
    }

    fn iter(&self) -> impl Iterator<Item = (&[u16], &[u8], i64)> {
        self.highs
            .chunks_exact(self.players)
            .zip(self.lows.chunks_exact(self.players))
            .zip(&self.boards)
            .map(|((highs, lows), &boards)| (highs, lows, boards))
    }
}

fn ranks_of<'a>(cards: impl Iterator<Item = &'a Card>) -> u16 {
    cards.fold(0, |m, c| m | 1 << c.rank().index())
}

/// Calls `visit` with every multiset of `size` ranks that `available[rank]` cards per rank can
/// make, ranks descending, and the number of card sets with those ranks.
///
/// The multisets come in the order [`eval::rank_class`] numbers them (by their highest rank,
/// then the next), so that the evaluation tables' rows, a megabyte of them, are read from
/// one end to the other rather than all over.
fn rank_classes(available: &[u8; 13], size: usize, visit: &mut impl FnMut(&[u8], u64)) {
    fn walk(
        available: &[u8; 13],
        below: usize,
        chosen: &mut [u8; 5],
        len: usize,
        size: usize,
        weight: u64,
        visit: &mut impl FnMut(&[u8], u64),
    ) {
        if len == size {
            visit(&chosen[..size], weight);
            return;
        }
        for rank in 0..below {
            let n = u64::from(available[rank]);
            let mut ways = weight;
            let mut k = 1;
            while k <= n && len + k as usize <= size {
                ways = ways * (n - k + 1) / k;
                chosen[len + k as usize - 1] = rank as u8;
                walk(available, rank, chosen, len + k as usize, size, ways, visit);
                k += 1;
            }
        }
    }
    let mut chosen = [0u8; 5];
    walk(available, 13, &mut chosen, 0, size, 1, visit);
}

/// Calls `visit` with every `size`-subset of `items`, in order.
fn subsets(items: &[u8], size: usize, visit: &mut impl FnMut(&[u8])) {
    fn walk(
        items: &[u8],
        from: usize,
        chosen: &mut Vec<u8>,
        size: usize,
        visit: &mut impl FnMut(&[u8]),
    ) {
        if chosen.len() == size {
            visit(chosen);
            return;
        }
        for i in from..items.len() {
            if items.len() - i < size - chosen.len() {
                break;
            }
            chosen.push(items[i]);
            walk(items, i + 1, chosen, size, visit);
            chosen.pop();
        }
    }
    walk(items, 0, &mut Vec::with_capacity(size), size, visit);
}

#[cfg(test)]
mod tests;
