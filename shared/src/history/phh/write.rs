//! A hand written as PHH (the Poker Hand History format, uoftcprg/phh-std), in exactly the
//! subset `scoop replay` reads (tools/pokerkit_diff/README.md): variant `FO/8`, `PO/8` or
//! `NO/8`, one small and one big blind and maybe a straddle of two big blinds by `p3`, no antes,
//! integer chips. A hand run twice has its second run's cards in the user-defined field
//! `_second_run`, since PHH has no notation for runouts (a reader that ignores the field
//! settles the first board alone).
//!
//! Players are numbered the spec's way, which is the engine's dealing order: `p1` is the first
//! seat left of the button and the last player has the button; heads-up that makes `p1` the
//! big blind and `p2` the button, which posts the small blind. The real seat numbers and names
//! go in the informational fields `seats` and `players`.

use thiserror::Error;

use crate::card::{Card, format_cards};
use crate::format::{Acted, BlindKind, Event};
use crate::hand::{Street, clockwise_from};
use crate::history::{HandView, HistorySeat};
use crate::protocol::{Dealt, ViewEvent};
use crate::rules::{Chips, Structure};

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ExportError {
    #[error("PHH cannot express this hand: {0}")]
    NotExpressible(Unsupported),
    #[error("the record has no end of the hand")]
    Unfinished,
    #[error("seat {0} appears in the events but was not dealt in")]
    UnknownSeat(u8),
}

/// What a Scoop hand can hold and the PHH subset cannot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum Unsupported {
    #[error("{0} players, where a hand has 2 to 10")]
    PlayerCount(usize),
    #[error("seat {0} posted a dead small blind")]
    DeadSmallBlind(u8),
    #[error("seat {0} posted a second big blind")]
    SecondBigBlind(u8),
    #[error(
        "the blinds are not where PHH implies them: the small blind first left of the button \
         and the big blind next (heads-up: the button posts the small blind)"
    )]
    BlindPositions,
    #[error("heads-up fixed limit was raised past the cap, and PHH has no way to lift it")]
    UncappedHeadsUp,
}

impl From<Unsupported> for ExportError {
    fn from(reason: Unsupported) -> Self {
        ExportError::NotExpressible(reason)
    }
}

/// The hand as `view`'s viewer sees it, as a PHH document. Hole cards the viewer never saw
/// are written as unknown (`??` per card); a hand shown at any point is written where it was
/// dealt, because a replayer reads hole cards only there.
pub fn to_phh(view: &HandView) -> Result<String, ExportError> {
    let players = Players::new(view)?;
    let blinds = blinds(view, &players)?;
    check_cap(view)?;
    let actions = actions(view, &players)?;
    let finishing = finishing_stacks(view, &players)?;
    let stakes = view.stakes;

    let mut doc = vec![
        format!("variant = '{}'", variant(stakes.structure)),
        "ante_trimming_status = false".to_string(),
        format!("antes = {}", list(vec![0; players.len()])),
        format!("blinds_or_straddles = {}", list(blinds)),
    ];
    match stakes.structure {
        Structure::FixedLimit => {
            doc.push(format!("small_bet = {}", stakes.small_bet));
            doc.push(format!("big_bet = {}", stakes.big_bet));
        }
        Structure::PotLimit | Structure::NoLimit => {
            doc.push(format!("min_bet = {}", stakes.big_blind));
        }
    }
    doc.push(format!(
        "starting_stacks = {}",
        list(players.seats.iter().map(|s| s.starting_stack))
    ));
    doc.push("actions = [".to_string());
    // Action lines hold only card codes, player labels and numbers: a literal string is safe.
    doc.extend(actions.iter().map(|a| format!("  '{a}',")));
    doc.push("]".to_string());
    doc.push(format!("finishing_stacks = {}", list(finishing)));
    doc.push(format!("hand = {}", view.number));
    doc.push(format!("table = {}", toml_string(&view.table_name)));
    doc.push(format!("seat_count = {}", view.seat_count));
    doc.push(format!(
        "seats = {}",
        list(players.seats.iter().map(|s| u16::from(s.seat) + 1))
    ));
    doc.push(format!(
        "players = {}",
        list(players.seats.iter().map(|s| toml_string(&s.name)))
    ));
    let rake: Chips = view
        .public_events()
        .map(|e| match e {
            Event::RakeTaken { amount, .. } => *amount,
            _ => 0,
        })
        .sum();
    let second_run: Vec<Card> = view
        .public_events()
        .flat_map(|e| match e {
            Event::SecondRunDealt { cards, .. } => cards.as_slice(),
            _ => &[],
        })
        .copied()
        .collect();
    if !second_run.is_empty() {
        doc.push(format!("_second_run = '{}'", format_cards(&second_run)));
    }
    if rake > 0 {
        // PHH has no rake field and replayers take none, so without this the finishing
        // stacks would not add up. A leading underscore marks a user-defined field.
        doc.push(format!("_rake = {rake}"));
    }
    doc.push(String::new());
    Ok(doc.join("\n"))
}

fn variant(structure: Structure) -> &'static str {
    match structure {
        Structure::FixedLimit => "FO/8",
        Structure::PotLimit => "PO/8",
        Structure::NoLimit => "NO/8",
    }
}

/// The players dealt in, in PHH order.
struct Players<'a> {
    seats: Vec<&'a HistorySeat>,
}

impl<'a> Players<'a> {
    fn new(view: &'a HandView) -> Result<Self, ExportError> {
        let mut seats: Vec<&HistorySeat> = view.seats.iter().collect();
        if !(2..=10).contains(&seats.len()) {
            return Err(Unsupported::PlayerCount(seats.len()).into());
        }
        // The button may be an empty seat (dead button): the player before it then closes
        // the order, which is where PHH puts the button.
        seats.sort_by_key(|s| clockwise_from(view.button, s.seat));
        Ok(Players { seats })
    }

    fn len(&self) -> usize {
        self.seats.len()
    }

    /// The player's index, 0 for `p1`.
    fn index(&self, seat: u8) -> Result<usize, ExportError> {
        self.seats
            .iter()
            .position(|s| s.seat == seat)
            .ok_or(ExportError::UnknownSeat(seat))
    }
}

/// `blinds_or_straddles`, once the blinds are known to sit where PHH implies them. The list
/// reads `[SB, BB, 0, ...]` heads-up too: there the spec assigns it in reverse, so `p1` (the
/// big blind) is the one posting `BB`.
fn blinds(view: &HandView, players: &Players) -> Result<Vec<Chips>, ExportError> {
    let mut small = Vec::new();
    let mut big = Vec::new();
    let mut straddle = None;
    for event in view.public_events() {
        if let Event::BlindPosted {
            seat,
            blind,
            amount,
            ..
        } = event
        {
            match blind {
                BlindKind::DeadSmall => return Err(Unsupported::DeadSmallBlind(*seat).into()),
                BlindKind::Small => small.push(players.index(*seat)?),
                BlindKind::Big => big.push(*seat),
                // The engine only lets the first player left of the big blind straddle.
                BlindKind::Straddle => straddle = Some((players.index(*seat)?, *amount)),
            }
        }
    }
    // Blinds are posted in dealing order and a newcomer never sits between the button and
    // the big blind, so the positional big blind comes first.
    if let Some(&extra) = big.get(1) {
        return Err(Unsupported::SecondBigBlind(extra).into());
    }
    let (big_at, small_at) = if players.len() == 2 { (0, 1) } else { (1, 0) };
    let big = big.first().map(|&seat| players.index(seat)).transpose()?;
    if big != Some(big_at) || small.len() > 1 || small.iter().any(|&i| i != small_at) {
        return Err(Unsupported::BlindPositions.into());
    }
    let mut list = vec![0; players.len()];
    if !small.is_empty() {
        list[0] = view.stakes.small_blind;
    }
    list[1] = view.stakes.big_blind;
    if let Some((i, amount)) = straddle {
        if i != 2 {
            return Err(Unsupported::BlindPositions.into());
        }
        list[i] = amount;
    }
    Ok(list)
}

/// A table may lift the fixed-limit cap heads-up, but a replayer always applies it: a hand
/// that raised past the cap would not replay.
fn check_cap(view: &HandView) -> Result<(), ExportError> {
    let stakes = view.stakes;
    if stakes.structure != Structure::FixedLimit || !stakes.uncapped_heads_up {
        return Ok(());
    }
    // The engine's count: the big blind is the first bet preflop, and a short all-in raise
    // counts only if it is at least half a bet.
    let mut limit = stakes.small_bet;
    let mut level = stakes.big_blind;
    let mut bets = 1;
    for event in view.public_events() {
        match event {
            Event::BlindPosted {
                blind: BlindKind::Straddle,
                amount,
                ..
            } => {
                level = *amount;
                bets = 2;
            }
            Event::BoardDealt { street, .. } => {
                limit = if *street >= Street::Turn {
                    stakes.big_bet
                } else {
                    stakes.small_bet
                };
                level = 0;
                bets = 0;
            }
            Event::Acted {
                action: Acted::Bet { to } | Acted::Raise { to },
                ..
            } => {
                if bets >= 4 {
                    return Err(Unsupported::UncappedHeadsUp.into());
                }
                if to.saturating_sub(level).saturating_mul(2) >= limit {
                    level = *to;
                    bets += 1;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Every hole card the viewer sees at some point in the hand, by player.
fn known_hole_cards(
    view: &HandView,
    players: &Players,
) -> Result<Vec<Option<[Card; 4]>>, ExportError> {
    let mut known = vec![None; players.len()];
    let mut learn = |seat: u8, cards: [Card; 4]| -> Result<(), ExportError> {
        known[players.index(seat)?] = Some(cards);
        Ok(())
    };
    for event in &view.events {
        match event {
            ViewEvent::Dealt(Dealt {
                seat,
                cards: Some(cards),
            })
            | ViewEvent::Public(
                Event::HoleCards { seat, cards } | Event::Shown { seat, cards, .. },
            ) => learn(*seat, *cards)?,
            ViewEvent::Public(Event::HandsFaceUp { hands }) => {
                for (seat, cards) in hands {
                    learn(*seat, *cards)?;
                }
            }
            _ => {}
        }
    }
    Ok(known)
}

fn actions(view: &HandView, players: &Players) -> Result<Vec<String>, ExportError> {
    let p = |i: usize| format!("p{}", i + 1);
    let mut lines: Vec<String> = known_hole_cards(view, players)?
        .iter()
        .enumerate()
        .map(|(i, cards)| {
            let cards = cards.map_or_else(|| "?".repeat(8), |c| format_cards(&c));
            format!("d dh {} {cards}", p(i))
        })
        .collect();
    let mut queue = PokerkitQueue::new(players);
    let mut shown = vec![false; players.len()];
    for event in view.public_events() {
        match event {
            Event::BlindPosted { seat, amount, .. } => queue.post(players.index(*seat)?, *amount),
            Event::Acted {
                seat,
                action,
                stack,
                ..
            } => {
                let i = players.index(*seat)?;
                queue.act(i, *action, *stack);
                lines.push(match action {
                    Acted::Fold => format!("{} f", p(i)),
                    Acted::Check | Acted::Call { .. } => format!("{} cc", p(i)),
                    Acted::Bet { to } | Acted::Raise { to } => format!("{} cbr {to}", p(i)),
                });
            }
            Event::UncalledBetReturned { seat, amount } => {
                queue.return_bet(players.index(*seat)?, *amount)
            }
            Event::PotsGathered { .. } => {
                lines.extend(
                    queue
                        .end_round()
                        .into_iter()
                        .map(|i| format!("{} cc", p(i))),
                );
            }
            Event::BoardDealt { cards, .. } => lines.push(format!("d db {}", format_cards(cards))),
            // Written as `_second_run` by `to_phh`.
            Event::SecondRunDealt { .. } => {}
            Event::HandsFaceUp { hands } => {
                for (seat, cards) in hands {
                    let i = players.index(*seat)?;
                    shown[i] = true;
                    lines.push(format!("{} sm {}", p(i), format_cards(cards)));
                }
            }
            Event::Shown { seat, cards, .. } => {
                let i = players.index(*seat)?;
                // Hands turned up at an all-in were shown then; pokerkit refuses a second show.
                if !shown[i] {
                    shown[i] = true;
                    lines.push(format!("{} sm {}", p(i), format_cards(cards)));
                }
            }
            Event::Mucked { seat } => lines.push(format!("{} sm", p(players.index(*seat)?))),
            Event::HandStarted { .. }
            | Event::HoleCards { .. }
            | Event::RakeTaken { .. }
            | Event::PotAwarded { .. }
            | Event::HandEnded { .. }
            // PHH has no field for it; any reader can recompute it from the cards.
            | Event::Equity { .. } => {}
        }
    }
    Ok(lines)
}

/// pokerkit, the format's reference implementation, asks for a decision from every player it
/// queued when the betting round opened or since the last bet or raise, even from the last
/// player with chips when nothing is owed and nobody could answer a raise (a big blind after
/// the others called all-in for no more than the blind). Scoop skips that empty decision; this
/// replays pokerkit's queue from the events so the file can say "check" there, which keeps it
/// loadable by pokerkit. `scoop replay` skips a check that comes after the hand is over.
struct PokerkitQueue {
    bets: Vec<Chips>,
    stacks: Vec<Chips>,
    folded: Vec<bool>,
    /// Filled at the round's first decision: nothing changes between the opening of a round
    /// and that point.
    queued: Option<Vec<bool>>,
}

impl PokerkitQueue {
    fn new(players: &Players) -> Self {
        PokerkitQueue {
            bets: vec![0; players.len()],
            stacks: players.seats.iter().map(|s| s.starting_stack).collect(),
            folded: vec![false; players.len()],
            queued: None,
        }
    }

    // Chip counts come from the record: saturating arithmetic keeps a corrupt one from
    // panicking; a real hand never comes near the limits.

    fn post(&mut self, i: usize, amount: Chips) {
        self.bets[i] = self.bets[i].saturating_add(amount);
        self.stacks[i] = self.stacks[i].saturating_sub(amount);
    }

    fn return_bet(&mut self, i: usize, amount: Chips) {
        self.bets[i] = self.bets[i].saturating_sub(amount);
        self.stacks[i] = self.stacks[i].saturating_add(amount);
    }

    /// pokerkit's queue for the round, opened at its first use.
    fn queue(&mut self) -> &mut Vec<bool> {
        if self.queued.is_none() {
            self.queued = Some(self.opening());
        }
        self.queued.get_or_insert_default()
    }

    /// pokerkit opens a round with the live players who have chips and could lose more of
    /// them, and closes it at once when that leaves one player who owes nothing.
    fn opening(&self) -> Vec<bool> {
        let live = |i: usize| !self.folded[i];
        let mut totals: Vec<Chips> = (0..self.bets.len())
            .filter(|&i| live(i))
            .map(|i| self.bets[i].saturating_add(self.stacks[i]))
            .collect();
        totals.sort_unstable();
        let second = totals.iter().rev().nth(1).copied().unwrap_or(0);
        let mut queued: Vec<bool> = (0..self.bets.len())
            .map(|i| live(i) && self.stacks[i].min(second.saturating_sub(self.bets[i])) > 0)
            .collect();
        let top = self.bets.iter().copied().max().unwrap_or(0);
        if let [only] = indices(&queued)[..]
            && self.bets[only] >= top
        {
            queued[only] = false;
        }
        queued
    }

    fn act(&mut self, i: usize, action: Acted, stack: Chips) {
        self.queue()[i] = false;
        match action {
            Acted::Fold => self.folded[i] = true,
            Acted::Check => {}
            Acted::Call { amount } => self.bets[i] = self.bets[i].saturating_add(amount),
            Acted::Bet { to } | Acted::Raise { to } => self.bets[i] = to,
        }
        self.stacks[i] = stack;
        if let Acted::Bet { .. } | Acted::Raise { .. } = action {
            self.queued = Some(
                (0..self.bets.len())
                    .map(|j| j != i && !self.folded[j] && self.stacks[j] > 0)
                    .collect(),
            );
        }
    }

    /// The players pokerkit would still ask to act as the round ends.
    fn end_round(&mut self) -> Vec<usize> {
        let contested = self.folded.iter().filter(|f| !**f).count() > 1;
        let waiting = if contested {
            indices(self.queue())
        } else {
            Vec::new()
        };
        self.queued = None;
        self.bets.fill(0);
        waiting
    }
}

fn indices(flags: &[bool]) -> Vec<usize> {
    (0..flags.len()).filter(|&i| flags[i]).collect()
}

fn finishing_stacks(view: &HandView, players: &Players) -> Result<Vec<Chips>, ExportError> {
    let ended = view
        .public_events()
        .find_map(|e| match e {
            Event::HandEnded { stacks } => Some(stacks),
            _ => None,
        })
        .ok_or(ExportError::Unfinished)?;
    players
        .seats
        .iter()
        .map(|s| {
            ended
                .iter()
                .find(|(seat, _)| *seat == s.seat)
                .map(|&(_, stack)| stack)
                .ok_or(ExportError::Unfinished)
        })
        .collect()
}

fn list<T: ToString>(items: impl IntoIterator<Item = T>) -> String {
    let items: Vec<String> = items.into_iter().map(|i| i.to_string()).collect();
    format!("[{}]", items.join(", "))
}

/// A TOML basic string. Names are chosen by players, so anything that could end the string
/// or the line is escaped.
fn toml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
