//! Equity at the table: when betting is over and every live hand is face up, each hand's
//! share of the pots as the rest of the board runs out, street by street.

use std::collections::HashMap;

use crate::card::Card;
use crate::format::{Event, HandEquity};
use crate::hand::Street;
use crate::pot::Pot;

use super::{Method, Spot, equity};

/// `new` (the events a change just produced) with an [`Event::Equity`] after the hands are
/// turned face up and after each street dealt while they are, until the river. `before` is
/// the hand's events until then (the board, pots and hands already out).
///
/// A hand's `pot` is the chips it can expect from every pot it is eligible for, as a share of
/// all of them (each pot evaluated among its own hands, the other face-up hands dead); its
/// `scoop` is the chance to win the whole main pot. Folded hands are unknown to viewers and
/// stay in the deck.
pub fn with_run_out_equity(before: &[Event], new: Vec<Event>) -> Vec<Event> {
    let mut state = RunOut::default();
    for e in before {
        state.see(e);
    }
    let mut out = Vec::with_capacity(new.len() + 3);
    for e in new {
        let turned_up = state.see(&e);
        out.push(e);
        if turned_up && let Some(equity) = state.equity() {
            out.push(equity);
        }
    }
    out
}

#[derive(Default)]
struct RunOut {
    board: Vec<Card>,
    pots: Vec<Pot>,
    face_up: Vec<(u8, [Card; 4])>,
}

impl RunOut {
    /// Follows one event; true when it is one after which equity is shown.
    fn see(&mut self, e: &Event) -> bool {
        match e {
            Event::HandStarted { .. } => *self = RunOut::default(),
            Event::PotsGathered { pots } => self.pots = pots.clone(),
            Event::BoardDealt { cards, .. } => {
                self.board.extend(cards);
                return !self.face_up.is_empty();
            }
            Event::HandsFaceUp { hands } => {
                self.face_up = hands.clone();
                return true;
            }
            _ => {}
        }
        false
    }

    fn equity(&self) -> Option<Event> {
        let street = match self.board.len() {
            0 => Street::Preflop,
            3 => Street::Flop,
            4 => Street::Turn,
            _ => return None,
        };
        if self.face_up.len() < 2 {
            return None;
        }
        let seats: Vec<u8> = self.face_up.iter().map(|&(seat, _)| seat).collect();
        let pots = if self.pots.is_empty() {
            vec![Pot {
                amount: 1,
                eligible: seats.clone(),
            }]
        } else {
            self.pots.clone()
        };
        let total: u64 = pots.iter().map(|p| p.amount).sum();
        let mut expected = vec![0.0f64; seats.len()];
        let mut scoop = vec![0.0f64; seats.len()];
        // Pots with the same hands are evaluated once.
        let mut known: HashMap<Vec<u8>, Vec<(f64, f64)>> = HashMap::new();
        for (i, pot) in pots.iter().enumerate() {
            let contenders: Vec<u8> = pot
                .eligible
                .iter()
                .copied()
                .filter(|s| seats.contains(s))
                .collect();
            if contenders.is_empty() {
                continue;
            }
            let shares = match known.get(&contenders) {
                Some(shares) => shares.clone(),
                None => {
                    let shares = self.shares(&contenders)?;
                    known.insert(contenders.clone(), shares.clone());
                    shares
                }
            };
            for (&seat, &(share, scoops)) in contenders.iter().zip(&shares) {
                let at = seats.iter().position(|&s| s == seat)?;
                expected[at] += pot.amount as f64 * share;
                if i == 0 {
                    scoop[at] = scoops;
                }
            }
        }
        let millionths = |x: f64| (x * 1e6).round().clamp(0.0, 1e6) as u32;
        let hands = seats
            .iter()
            .enumerate()
            .map(|(at, &seat)| HandEquity {
                seat,
                pot: millionths(expected[at] / total.max(1) as f64),
                scoop: millionths(scoop[at]),
            })
            .collect();
        Some(Event::Equity { street, hands })
    }

    /// Pot share and scoop chance of each contender in one pot, the other face-up hands dead.
    fn shares(&self, contenders: &[u8]) -> Option<Vec<(f64, f64)>> {
        if let [_] = contenders {
            return Some(vec![(1.0, 1.0)]);
        }
        let (hands, dead): (Vec<_>, Vec<_>) = self
            .face_up
            .iter()
            .partition(|(seat, _)| contenders.contains(seat));
        let spot = Spot {
            hands: hands.iter().map(|&&(_, cards)| Some(cards)).collect(),
            board: self.board.clone(),
            dead: dead.iter().flat_map(|&&(_, cards)| cards).collect(),
        };
        let result = equity(&spot, Method::Auto).ok()?;
        // `partition` kept the face-up order; the contenders are in pot order.
        let by_seat: Vec<(u8, (f64, f64))> = hands
            .iter()
            .zip(&result.players)
            .map(|(&&(seat, _), p)| (seat, (p.pot, p.scoop)))
            .collect();
        contenders
            .iter()
            .map(|s| by_seat.iter().find(|(seat, _)| seat == s).map(|&(_, v)| v))
            .collect()
    }
}
