//! A hand written in PokerStars' text hand-history layout, which hand trackers import.
//!
//! The wording follows real PokerStars Omaha Hi/Lo and Stud Hi/Lo histories: `shows [..] (HI:
//! a straight, Deuce to Six; LO: 6,4,3,2,A)`, `No low hand qualified`, `collected N from side
//! pot-2`, and in the summary `showed [..] and won (N) with HI: ..`. Chips are play chips,
//! written without a currency. Seats are numbered from 1 as PokerStars does.

use std::collections::BTreeMap;

use super::HandView;
use crate::card::Card;
use crate::eval::{HandCategory, HighValue, LowValue};
use crate::format::{Acted, BlindKind, BoardValues, Event};
use crate::hand::Street;
use crate::pot::Pot;
use crate::protocol::{Dealt, ViewEvent};
use crate::rules::{Chips, Structure};
use crate::{Rank, Stakes};

/// The hand as `view`'s viewer sees it, as PokerStars would have written it for them.
pub fn to_pokerstars(view: &HandView) -> String {
    let mut hand = StarsHand::new(view);
    hand.header();
    hand.play();
    hand.summary();
    hand.lines.push(String::new());
    hand.lines.join("\n")
}

/// A hand shown down.
struct Shown {
    cards: [Card; 4],
    high: HighValue,
    low: Option<LowValue>,
    /// Its values on the second board of a hand run twice.
    second: Option<BoardValues>,
}

struct StarsHand<'a> {
    view: &'a HandView,
    lines: Vec<String>,
    street: Street,
    /// The bet to beat, since "raises X to Y" states the raise over it.
    level: Chips,
    /// Blind lines not written yet: posted in dealing order, which heads-up puts the big
    /// blind first, and PokerStars always writes the small blind first.
    blinds: Vec<(bool, String)>,
    hole_cards_header: bool,
    showdown_header: bool,
    small_blind: Option<u8>,
    /// The first big blind posted: the positional one (newcomers post theirs after it).
    big_blind: Option<u8>,
    /// Seats that put chips in, blinds included ("didn't bet" in the summary otherwise).
    paid: Vec<u8>,
    folded: BTreeMap<u8, Street>,
    /// Hole cards as dealt to the viewer: their own (or, for the operator, everyone's).
    dealt: BTreeMap<u8, [Card; 4]>,
    shown: BTreeMap<u8, Shown>,
    mucked: Vec<u8>,
    board: Vec<Card>,
    /// The second board of a hand run twice, as it is dealt.
    second_board: Vec<Card>,
    pots: Vec<Pot>,
    rake: Chips,
    /// (pot, seat) -> chips won, in the order awarded.
    awards: Vec<((usize, u8), Chips)>,
}

impl<'a> StarsHand<'a> {
    fn new(view: &'a HandView) -> Self {
        StarsHand {
            view,
            lines: Vec::new(),
            street: Street::Preflop,
            // Preflop everyone faces a full big blind, even a short one.
            level: view.stakes.big_blind,
            blinds: Vec::new(),
            hole_cards_header: false,
            showdown_header: false,
            small_blind: None,
            big_blind: None,
            paid: Vec::new(),
            folded: BTreeMap::new(),
            dealt: BTreeMap::new(),
            shown: BTreeMap::new(),
            mucked: Vec::new(),
            board: Vec::new(),
            second_board: Vec::new(),
            pots: Vec::new(),
            rake: 0,
            awards: Vec::new(),
        }
    }

    /// The player's name on one line: a line break in a name would let it forge history lines.
    fn name(&self, seat: u8) -> String {
        match self.view.seat(seat) {
            Some(s) => s
                .name
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect(),
            None => format!("Seat {}", u16::from(seat) + 1),
        }
    }

    fn header(&mut self) {
        let view = self.view;
        self.lines.push(format!(
            "PokerStars Hand #{}:  Omaha Hi/Lo {} - {}",
            view.number,
            game(&view.stakes),
            stars_time(&view.started_at).unwrap_or_else(|| view.started_at.clone()),
        ));
        self.lines.push(format!(
            "Table '{}' {}-max Seat #{} is the button",
            view.table_name,
            view.seat_count,
            u16::from(view.button) + 1
        ));
        let mut seats: Vec<_> = view.seats.iter().collect();
        seats.sort_by_key(|s| s.seat);
        for s in seats {
            self.lines.push(format!(
                "Seat {}: {} ({} in chips)",
                u16::from(s.seat) + 1,
                self.name(s.seat),
                s.starting_stack
            ));
        }
    }

    fn play(&mut self) {
        let view = self.view;
        let mut events = view.events.iter().peekable();
        while let Some(event) = events.next() {
            let event = match event {
                ViewEvent::Public(Event::BlindPosted {
                    seat,
                    blind,
                    amount,
                    all_in,
                }) => {
                    // Missed blinds are posted as a big blind then a dead small blind, which
                    // PokerStars writes as one line.
                    let dead_small = match events.peek() {
                        Some(ViewEvent::Public(Event::BlindPosted {
                            seat: next,
                            blind: BlindKind::DeadSmall,
                            amount,
                            all_in,
                        })) if *blind == BlindKind::Big && next == seat => Some((*amount, *all_in)),
                        _ => None,
                    };
                    if dead_small.is_some() {
                        events.next();
                    }
                    self.blind(*seat, *blind, (*amount, *all_in), dead_small);
                    continue;
                }
                event => event,
            };
            self.write_blinds();
            match event {
                ViewEvent::Dealt(Dealt { seat, cards }) => self.deal(*seat, *cards),
                ViewEvent::Public(Event::HoleCards { seat, cards }) => {
                    self.deal(*seat, Some(*cards))
                }
                ViewEvent::Public(event) => self.public(event),
            }
        }
        self.write_blinds();
        self.collected();
    }

    fn blind(
        &mut self,
        seat: u8,
        blind: BlindKind,
        (amount, all_in): (Chips, bool),
        dead_small: Option<(Chips, bool)>,
    ) {
        let (what, amount, all_in) = match (blind, dead_small) {
            (_, Some((dead, all_in))) => {
                ("small & big blinds", amount.saturating_add(dead), all_in)
            }
            (BlindKind::Big, None) => ("big blind", amount, all_in),
            (BlindKind::Straddle, None) => {
                self.level = amount;
                ("straddle", amount, all_in)
            }
            (BlindKind::Small | BlindKind::DeadSmall, None) => ("small blind", amount, all_in),
        };
        match blind {
            BlindKind::Small => self.small_blind = self.small_blind.or(Some(seat)),
            BlindKind::Big => self.big_blind = self.big_blind.or(Some(seat)),
            BlindKind::DeadSmall | BlindKind::Straddle => {}
        }
        self.paid.push(seat);
        let line = format!("{}: posts {what} {amount}", self.name(seat));
        self.blinds
            .push((blind != BlindKind::Small, all_in_suffix(line, all_in)));
    }

    fn write_blinds(&mut self) {
        self.blinds.sort_by_key(|(after_small, _)| *after_small);
        let lines = self.blinds.drain(..).map(|(_, line)| line);
        self.lines.extend(lines);
    }

    /// Every seat's deal opens the hole cards; only cards the viewer sees are written.
    fn deal(&mut self, seat: u8, cards: Option<[Card; 4]>) {
        if !self.hole_cards_header {
            self.hole_cards_header = true;
            self.lines.push("*** HOLE CARDS ***".to_string());
        }
        if let Some(cards) = cards {
            self.dealt.insert(seat, cards);
            self.lines.push(format!(
                "Dealt to {} {}",
                self.name(seat),
                card_list(&cards)
            ));
        }
    }

    fn public(&mut self, event: &Event) {
        match event {
            Event::Acted {
                seat,
                action,
                all_in,
                ..
            } => self.acted(*seat, *action, *all_in),
            Event::UncalledBetReturned { seat, amount } => self.lines.push(format!(
                "Uncalled bet ({amount}) returned to {}",
                self.name(*seat)
            )),
            Event::PotsGathered { pots } => self.pots = pots.clone(),
            Event::BoardDealt { street, cards } => self.board_dealt(*street, cards),
            Event::SecondRunDealt { street, cards } => self.second_run_dealt(*street, cards),
            Event::Shown {
                seat,
                cards,
                high,
                low,
                second,
            } => {
                let shown = Shown {
                    cards: *cards,
                    high: *high,
                    low: *low,
                    second: *second,
                };
                let line = format!(
                    "{}: shows {} ({})",
                    self.name(*seat),
                    card_list(cards),
                    describe(&shown)
                );
                self.showdown(line);
                self.shown.insert(*seat, shown);
            }
            Event::Mucked { seat } => {
                self.showdown(format!("{}: mucks hand", self.name(*seat)));
                self.mucked.push(*seat);
            }
            Event::RakeTaken { amount, .. } => self.rake = self.rake.saturating_add(*amount),
            Event::PotAwarded {
                pot, seat, amount, ..
            } => {
                // One line per player and pot, even when they won both halves.
                let key = (*pot, *seat);
                match self.awards.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, won)) => *won = won.saturating_add(*amount),
                    None => self.awards.push((key, *amount)),
                }
            }
            // Hands turned up at an all-in are written at the showdown, as PokerStars did.
            Event::HandStarted { .. }
            | Event::BlindPosted { .. }
            | Event::HoleCards { .. }
            | Event::HandsFaceUp { .. }
            | Event::HandEnded { .. }
            // PokerStars' text has no equity line.
            | Event::Equity { .. } => {}
        }
    }

    fn acted(&mut self, seat: u8, action: Acted, all_in: bool) {
        let name = self.name(seat);
        let line = match action {
            Acted::Fold => {
                self.folded.insert(seat, self.street);
                format!("{name}: folds")
            }
            Acted::Check => format!("{name}: checks"),
            Acted::Call { amount } => format!("{name}: calls {amount}"),
            Acted::Bet { to } => {
                self.level = to;
                format!("{name}: bets {to}")
            }
            Acted::Raise { to } => {
                let by = to.saturating_sub(self.level);
                self.level = to;
                format!("{name}: raises {by} to {to}")
            }
        };
        if !matches!(action, Acted::Fold | Acted::Check) {
            self.paid.push(seat);
        }
        self.lines.push(all_in_suffix(line, all_in));
    }

    fn board_dealt(&mut self, street: Street, cards: &[Card]) {
        self.street = street;
        self.level = 0;
        let line = match street {
            Street::Preflop | Street::Flop => format!("*** FLOP *** {}", card_list(cards)),
            Street::Turn => format!(
                "*** TURN *** {} {}",
                card_list(&self.board),
                card_list(cards)
            ),
            Street::River => format!(
                "*** RIVER *** {} {}",
                card_list(&self.board),
                card_list(cards)
            ),
        };
        self.board.extend(cards);
        self.lines.push(line);
    }

    /// Run twice, PokerStars writes the second run as "SECOND" streets, on the board so far.
    fn second_run_dealt(&mut self, street: Street, cards: &[Card]) {
        if self.second_board.is_empty() {
            self.second_board = self.board[..street.board_before().min(self.board.len())].to_vec();
        }
        let name = match street {
            Street::Preflop | Street::Flop => "FLOP",
            Street::Turn => "TURN",
            Street::River => "RIVER",
        };
        let line = if self.second_board.is_empty() {
            format!("*** SECOND {name} *** {}", card_list(cards))
        } else {
            format!(
                "*** SECOND {name} *** {} {}",
                card_list(&self.second_board),
                card_list(cards)
            )
        };
        self.second_board.extend(cards);
        self.lines.push(line);
    }

    fn showdown(&mut self, line: String) {
        if !self.showdown_header {
            self.showdown_header = true;
            self.lines.push("*** SHOW DOWN ***".to_string());
        }
        self.lines.push(line);
    }

    /// PokerStars pays the last side pot first and the main pot last.
    fn collected(&mut self) {
        let mut awards = self.awards.clone();
        awards.sort_by_key(|((pot, _), _)| std::cmp::Reverse(*pot));
        for ((pot, seat), won) in awards {
            self.lines.push(format!(
                "{} collected {won} from {}",
                self.name(seat),
                pot_name(pot, self.pots.len())
            ));
        }
        if self.showdown_header {
            if self.shown.values().all(|s| s.low.is_none()) {
                self.lines.push("No low hand qualified".to_string());
            }
        } else if let [((_, seat), _)] = self.awards[..] {
            self.lines
                .push(format!("{}: doesn't show hand", self.name(seat)));
        }
    }

    fn won(&self, seat: u8) -> Chips {
        self.awards
            .iter()
            .filter(|((_, s), _)| *s == seat)
            .fold(0, |sum, (_, won)| sum.saturating_add(*won))
    }

    fn summary(&mut self) {
        self.lines.push("*** SUMMARY ***".to_string());
        let total = self
            .pots
            .iter()
            .fold(0, |sum: Chips, p| sum.saturating_add(p.amount));
        let mut line = format!("Total pot {total}");
        if self.pots.len() > 1 {
            // The pots as collected, after the rake.
            let mut rake_by_pot: Vec<Chips> = vec![0; self.pots.len()];
            for event in self.view.public_events() {
                if let Event::RakeTaken { pot, amount } = event
                    && let Some(r) = rake_by_pot.get_mut(*pot)
                {
                    *r = r.saturating_add(*amount);
                }
            }
            for (i, (pot, rake)) in self.pots.iter().zip(rake_by_pot).enumerate() {
                let name = capitalised(&pot_name(i, self.pots.len()));
                line.push_str(&format!(" {name} {}.", pot.amount.saturating_sub(rake)));
            }
        }
        line.push_str(&format!(" | Rake {}", self.rake));
        self.lines.push(line);
        if !self.second_board.is_empty() {
            self.lines.push("Hand was run twice".to_string());
            self.lines
                .push(format!("FIRST Board {}", card_list(&self.board)));
            self.lines
                .push(format!("SECOND Board {}", card_list(&self.second_board)));
        } else if !self.board.is_empty() {
            self.lines.push(format!("Board {}", card_list(&self.board)));
        }

        let mut seats: Vec<u8> = self.view.seats.iter().map(|s| s.seat).collect();
        seats.sort_unstable();
        for seat in seats {
            let mut line = format!("Seat {}: {}", u16::from(seat) + 1, self.name(seat));
            if seat == self.view.button {
                line.push_str(" (button)");
            }
            if Some(seat) == self.small_blind {
                line.push_str(" (small blind)");
            }
            if Some(seat) == self.big_blind {
                line.push_str(" (big blind)");
            }
            if let Some(outcome) = self.outcome(seat) {
                line.push(' ');
                line.push_str(&outcome);
            }
            self.lines.push(line);
        }
    }

    /// How the hand ended for `seat`, as the summary says it.
    fn outcome(&self, seat: u8) -> Option<String> {
        let won = self.won(seat);
        if let Some(street) = self.folded.get(&seat) {
            return Some(
                match street {
                    Street::Preflop if !self.paid.contains(&seat) => {
                        "folded before Flop (didn't bet)"
                    }
                    Street::Preflop => "folded before Flop",
                    Street::Flop => "folded on the Flop",
                    Street::Turn => "folded on the Turn",
                    Street::River => "folded on the River",
                }
                .to_string(),
            );
        }
        if let Some(shown) = self.shown.get(&seat) {
            let cards = card_list(&shown.cards);
            let hand = describe(shown);
            return Some(if won > 0 {
                format!("showed {cards} and won ({won}) with {hand}")
            } else {
                format!("showed {cards} and lost with {hand}")
            });
        }
        if self.mucked.contains(&seat) {
            return Some(match self.dealt.get(&seat) {
                Some(cards) => format!("mucked {}", card_list(cards)),
                None => "mucked".to_string(),
            });
        }
        (won > 0).then(|| format!("collected ({won})"))
    }
}

/// "Pot Limit (10/20)"; fixed limit is named by its bets, as PokerStars does.
fn game(stakes: &Stakes) -> String {
    match stakes.structure {
        Structure::FixedLimit => format!("Limit ({}/{})", stakes.small_bet, stakes.big_bet),
        Structure::PotLimit => format!("Pot Limit ({}/{})", stakes.small_blind, stakes.big_blind),
        Structure::NoLimit => format!("No Limit ({}/{})", stakes.small_blind, stakes.big_blind),
    }
}

/// "2026-11-29T18:00:00Z" as "2026/11/29 18:00:00 UTC"; `None` for anything else.
fn stars_time(rfc3339: &str) -> Option<String> {
    let (date, time) = rfc3339.split_once('T')?;
    let clock = time.get(..8)?;
    let zone = time.get(8..)?;
    // Fractions of a second are dropped; any offset but UTC would make the time a lie.
    let zone = zone.trim_start_matches(|c: char| c == '.' || c.is_ascii_digit());
    let well_formed = date.len() == 10
        && date.bytes().all(|b| b.is_ascii_digit() || b == b'-')
        && clock.bytes().all(|b| b.is_ascii_digit() || b == b':')
        && matches!(zone, "Z" | "z" | "+00:00");
    well_formed.then(|| format!("{} {clock} UTC", date.replace('-', "/")))
}

fn all_in_suffix(line: String, all_in: bool) -> String {
    if all_in {
        line + " and is all-in"
    } else {
        line
    }
}

fn card_list(cards: &[Card]) -> String {
    let cards: Vec<String> = cards.iter().map(Card::to_string).collect();
    format!("[{}]", cards.join(" "))
}

fn pot_name(index: usize, count: usize) -> String {
    match (index, count) {
        (_, 0 | 1) => "pot".to_string(),
        (0, _) => "main pot".to_string(),
        (_, 2) => "side pot".to_string(),
        (i, _) => format!("side pot-{i}"),
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// "HI: a full house, Kings full of Sevens; LO: 8,6,4,2,A".
fn describe(shown: &Shown) -> String {
    let first = describe_values(shown.high, shown.low);
    match shown.second {
        Some(second) => format!(
            "FIRST {first}; SECOND {}",
            describe_values(second.high, second.low)
        ),
        None => first,
    }
}

fn describe_values(high: HighValue, low: Option<LowValue>) -> String {
    let high = format!("HI: {}", high_hand(high));
    match low {
        Some(low) => {
            let ranks: Vec<String> = low
                .ranks()
                .iter()
                .map(|r| r.to_char().to_string())
                .collect();
            format!("{high}; LO: {}", ranks.join(","))
        }
        None => high,
    }
}

/// PokerStars' words for a high hand: "a pair of Kings", "a straight, Ace to Five".
fn high_hand(value: HighValue) -> String {
    let ranks = value.ranks();
    let rank = |i: usize| ranks.get(i).copied().unwrap_or(Rank::TWO);
    let one = |i: usize| capitalised(rank(i).name());
    let many = |i: usize| capitalised(rank(i).plural());
    // A straight's low card: four below the top, or the ace under a five.
    let bottom = || match rank(0).index().checked_sub(4).and_then(Rank::new) {
        Some(low) => capitalised(low.name()),
        None => "Ace".to_string(),
    };
    match value.category() {
        HandCategory::HighCard => format!("high card {}", one(0)),
        HandCategory::Pair => format!("a pair of {}", many(0)),
        HandCategory::TwoPair => format!("two pair, {} and {}", many(0), many(1)),
        HandCategory::Trips => format!("three of a kind, {}", many(0)),
        HandCategory::Straight => format!("a straight, {} to {}", bottom(), one(0)),
        HandCategory::Flush => format!("a flush, {} high", one(0)),
        HandCategory::FullHouse => format!("a full house, {} full of {}", many(0), many(1)),
        HandCategory::Quads => format!("four of a kind, {}", many(0)),
        HandCategory::StraightFlush if rank(0) == Rank::ACE => "a Royal Flush".to_string(),
        HandCategory::StraightFlush => {
            format!("a straight flush, {} to {}", bottom(), one(0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::evaluate;

    fn words(hole: &str, board: &str) -> String {
        let cards = Card::parse_exact::<4>(hole).unwrap();
        let showdown = evaluate(&cards, &Card::parse_exact::<5>(board).unwrap());
        describe(&Shown {
            cards,
            high: showdown.high,
            low: showdown.low,
            second: None,
        })
    }

    #[test]
    fn hands_are_worded_the_way_pokerstars_words_them() {
        for (hole, board, expected) in [
            (
                "Ah2d9c9s",
                "3h4c5dKsQs",
                "HI: a straight, Ace to Five; LO: 5,4,3,2,A",
            ),
            (
                "2c6dKhKd",
                "3s4h5cJdQc",
                "HI: a straight, Deuce to Six; LO: 6,5,4,3,2",
            ),
            ("AhKh2c3d", "QhJhTh4s9c", "HI: a Royal Flush"),
            (
                "9s8s2c2d",
                "7s6s5sKdKh",
                "HI: a straight flush, Five to Nine; LO: 8,7,6,5,2",
            ),
            ("QcQd3c4c", "QhQs9dKc2h", "HI: four of a kind, Queens"),
            (
                "Kd7cQh9d",
                "2c5d7hKcKs",
                "HI: a full house, Kings full of Sevens",
            ),
            ("Ah9hTcTd", "2h5hKh7c8d", "HI: a flush, Ace high"),
            ("AcKd7h2s", "QsJc9d4h3c", "HI: high card Ace"),
            ("AsKs6h6d", "AdKc9h8c3s", "HI: two pair, Aces and Kings"),
        ] {
            assert_eq!(words(hole, board), expected, "{hole} on {board}");
        }
    }

    #[test]
    fn start_times_are_written_in_utc_or_left_as_recorded() {
        let time = "2026/11/29 18:00:00 UTC";
        assert_eq!(stars_time("2026-11-29T18:00:00Z").as_deref(), Some(time));
        assert_eq!(
            stars_time("2026-11-29T18:00:00.250Z").as_deref(),
            Some(time)
        );
        assert_eq!(
            stars_time("2026-11-29T18:00:00+00:00").as_deref(),
            Some(time)
        );
        assert_eq!(stars_time("2026-11-29T19:00:00+01:00"), None);
        assert_eq!(stars_time("yesterday"), None);
    }
}
