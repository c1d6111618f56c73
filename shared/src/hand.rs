//! One hand of Omaha Hi/Lo 8-or-better, from the blinds to the last chip paid out.
//!
//! `Hand` is a state machine: [`Hand::start`] posts blinds and deals, [`Hand::act`] applies one
//! player's decision and returns what happened as [`Event`]s. An illegal action returns an error
//! and leaves the hand exactly as it was (every check happens before the first write).
//! The hand knows nothing about the table around it: the table decides who posts what and
//! hands over a shuffled deck.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::card::{Card, Deck};
use crate::eval::{BoardEval, HighValue, LowValue, Showdown};
use crate::pot::{Award, Contender, Contribution, Pot, Share, build_pots, split_pot};
use crate::rules::{Chips, Stakes, StakesError, Structure};

pub const MAX_PLAYERS: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Street {
    Preflop,
    Flop,
    Turn,
    River,
}

impl Street {
    /// The board cards out before this street's are dealt: what a second run dealt from this
    /// street shares with the first board.
    pub fn board_before(self) -> usize {
        match self {
            Street::Preflop | Street::Flop => 0,
            Street::Turn => 3,
            Street::River => 4,
        }
    }
}

/// What a player puts in before the cards are dealt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Post {
    Nothing,
    SmallBlind,
    /// A live big blind: the positional one, or a new or returning player's.
    BigBlind,
    /// A missed small blind alone: dead, straight into the pot.
    DeadSmallBlind,
    /// Missed blinds: the big blind live plus the small blind dead.
    BigAndDeadSmall,
    /// A live straddle of two big blinds by the first player left of the big blind, who then
    /// acts last preflop (docs/rules.md §4.8).
    Straddle,
}

/// A player dealt into the hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entrant {
    pub seat: u8,
    pub stack: Chips,
    pub post: Post,
}

/// Everything a hand needs besides the deck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandSetup {
    pub stakes: Stakes,
    /// The button's seat, which may be empty (dead button).
    pub button: u8,
    /// Preflop action starts left of this seat.
    pub big_blind_seat: u8,
    pub entrants: Vec<Entrant>,
    /// An all-in with cards to come deals the rest of the board twice (docs/rules.md §3.8).
    pub run_twice: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SetupError {
    #[error("a hand needs 2 to {MAX_PLAYERS} players, got {0}")]
    PlayerCount(usize),
    #[error("seat {0} is dealt in twice")]
    DuplicateSeat(u8),
    #[error("seat {0} has no chips")]
    EmptyStack(u8),
    #[error(
        "seat {0} cannot straddle: the straddle is one, posted by the first player left of the \
         big blind with more than two big blinds, three or more players dealt in"
    )]
    Straddle(u8),
    #[error("the deck has {0} cards left, not enough to deal this hand")]
    ShortDeck(usize),
    #[error(transparent)]
    Stakes(#[from] StakesError),
}

/// A player's decision. Amounts are "to": the player's total bet in this betting round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    Fold,
    Check,
    Call,
    /// A bet (nothing to call yet) or a raise, to a total of `to` this round.
    RaiseTo {
        to: Chips,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Error, Serialize, Deserialize)]
#[serde(tag = "error", rename_all = "snake_case")]
pub enum ActionError {
    #[error("the hand is over")]
    HandOver,
    #[error("it is seat {expected}'s turn, not seat {got}'s")]
    NotYourTurn { expected: u8, got: u8 },
    #[error("seat {0} is not in this hand")]
    NotInHand(u8),
    #[error("there is a bet of {to_call} to call; you cannot check")]
    CannotCheck { to_call: Chips },
    #[error("there is nothing to call; check instead")]
    NothingToCall,
    #[error("raising is not allowed here: {reason}")]
    CannotRaise { reason: RaiseRefusal },
    #[error("a raise must be to between {min} and {max}, not {to}")]
    RaiseOutOfRange { to: Chips, min: Chips, max: Chips },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Error, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RaiseRefusal {
    #[error("the betting is capped for this round")]
    Capped,
    #[error("a short all-in did not reopen the betting for you")]
    NotReopened,
    #[error("you do not have more chips than the call")]
    NoChipsBehind,
    #[error("every other player is all-in")]
    NobodyToRaise,
}

/// The legal choices of the player to act.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Legal {
    pub seat: u8,
    /// Chips a call adds (already capped at the stack); zero when checking is allowed.
    pub to_call: Chips,
    pub can_check: bool,
    pub raise: Result<RaiseBounds, RaiseRefusal>,
}

/// Raise-to bounds. In fixed limit `min_to == max_to`. `min_to` is below a full raise only
/// when it is the player's whole stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaiseBounds {
    pub min_to: Chips,
    pub max_to: Chips,
    /// The pot-sized raise (the pot-limit maximum), capped at the stack; `None` in fixed limit.
    pub pot_to: Option<Chips>,
    /// Raising to `max_to` puts the player all-in.
    pub max_is_all_in: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlindKind {
    Small,
    Big,
    DeadSmall,
    Straddle,
}

/// What a settled action looked like, for logs and the table view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Acted {
    Fold,
    Check,
    /// `amount` is what the call added.
    Call {
        amount: Chips,
    },
    Bet {
        to: Chips,
    },
    Raise {
        to: Chips,
    },
}

/// Everything that happens in a hand, in order. Hole cards appear here: events are the
/// operator's complete record, and reach clients only through `view::project`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    HandStarted {
        button: u8,
        stacks: Vec<(u8, Chips)>,
    },
    BlindPosted {
        seat: u8,
        blind: BlindKind,
        amount: Chips,
        all_in: bool,
    },
    HoleCards {
        seat: u8,
        cards: [Card; 4],
    },
    Acted {
        seat: u8,
        action: Acted,
        stack: Chips,
        all_in: bool,
    },
    UncalledBetReturned {
        seat: u8,
        amount: Chips,
    },
    /// Betting on a street is over; the bets are gathered into these pots.
    PotsGathered {
        pots: Vec<Pot>,
    },
    BoardDealt {
        street: Street,
        cards: Vec<Card>,
    },
    /// Run it twice: the second run's cards for `street`, after the first run is complete.
    SecondRunDealt {
        street: Street,
        cards: Vec<Card>,
    },
    /// Betting is over with at most one player able to act: every hand is turned up at once.
    HandsFaceUp {
        hands: Vec<(u8, [Card; 4])>,
    },
    Shown {
        seat: u8,
        cards: [Card; 4],
        high: HighValue,
        low: Option<LowValue>,
        /// The hand's values on the second board, when the hand was run twice.
        second: Option<Showdown>,
    },
    Mucked {
        seat: u8,
    },
    RakeTaken {
        pot: usize,
        amount: Chips,
    },
    PotAwarded {
        pot: usize,
        seat: u8,
        amount: Chips,
        share: Share,
        /// Paid from the pot's half for the second board (run it twice).
        second_run: bool,
    },
    HandEnded {
        stacks: Vec<(u8, Chips)>,
    },
}

/// How the hand ended: what each pot paid and the stacks after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandResult {
    pub pots: Vec<SettledPot>,
    pub rake: Chips,
    /// Final stacks in seat order from the first seat left of the button.
    pub stacks: Vec<(u8, Chips)>,
    /// Whether the flop was dealt (no flop, no drop).
    pub saw_flop: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettledPot {
    pub amount: Chips,
    pub rake: Chips,
    pub eligible: Vec<u8>,
    /// What the pot paid on the (first) board.
    pub awards: Vec<Award>,
    /// Run twice: what the pot's half for the second board paid.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub second_run: Vec<Award>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Player {
    seat: u8,
    starting_stack: Chips,
    stack: Chips,
    hole: [Card; 4],
    /// Live chips in front of the player this betting round.
    bet: Chips,
    /// Everything put into the pot this hand, dead blinds and current bet included.
    contributed: Chips,
    folded: bool,
    /// The bet level the player last acted at this round; `None` until they act.
    acted_at: Option<Chips>,
}

impl Player {
    fn all_in(&self) -> bool {
        self.stack == 0
    }

    fn can_act(&self) -> bool {
        !self.folded && self.stack > 0
    }
}

/// A pot settled: its index, the pot, its rake, what the first board paid and what the second
/// board paid (run twice).
type Settled = (usize, Pot, Chips, Vec<Award>, Vec<Award>);

/// One hand in progress or finished.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hand {
    stakes: Stakes,
    button: u8,
    /// Dealing order: the first seat left of the button first, the button (or the seat
    /// before a dead button) last. Postflop action, showdown and odd chips follow it.
    players: Vec<Player>,
    deck: Deck,
    board: Vec<Card>,
    run_twice: bool,
    /// Run twice: the second run's cards (the board's last cards, dealt again).
    second_run: Vec<Card>,
    street: Street,
    current_bet: Chips,
    /// The bet level reached by the last full bet or raise (fixed-limit completions build on it).
    full_level: Chips,
    /// The size of the last full bet or raise this round (the minimum raise increment).
    full_size: Chips,
    /// Full bets and raises this round, for the fixed-limit cap (preflop the big blind counts).
    bets_made: u8,
    last_aggressor: Option<usize>,
    to_act: Option<usize>,
    /// Seats whose hole cards have been turned face up (all-in or showdown).
    shown: Vec<u8>,
    /// Seats whose hand is shown at showdown even when it wins nothing (auto-muck off).
    show_losing: Vec<u8>,
    result: Option<HandResult>,
}

impl Hand {
    /// Posts the blinds and deals four cards to each player, one at a time from the first
    /// seat left of the button.
    pub fn start(setup: HandSetup, mut deck: Deck) -> Result<(Hand, Vec<Event>), SetupError> {
        setup.stakes.validate()?;
        let n = setup.entrants.len();
        if !(2..=MAX_PLAYERS).contains(&n) {
            return Err(SetupError::PlayerCount(n));
        }
        let mut entrants = setup.entrants.clone();
        entrants.sort_by_key(|e| clockwise_from(setup.button, e.seat));
        for pair in entrants.windows(2) {
            if pair[0].seat == pair[1].seat {
                return Err(SetupError::DuplicateSeat(pair[0].seat));
            }
        }
        if let Some(e) = entrants.iter().find(|e| e.stack == 0) {
            return Err(SetupError::EmptyStack(e.seat));
        }
        // Hole cards, three burns and five board cards.
        if deck.remaining() < 4 * n + 8 {
            return Err(SetupError::ShortDeck(deck.remaining()));
        }
        // Preflop action starts left of the big blind, or left of a straddle there.
        let bb_distance = clockwise_from(setup.button, setup.big_blind_seat);
        let left_of_big_blind = entrants
            .iter()
            .position(|e| clockwise_from(setup.button, e.seat) > bb_distance)
            .unwrap_or(0);
        let straddle = setup.stakes.big_blind.saturating_mul(2);
        for (i, e) in entrants.iter().enumerate() {
            if e.post == Post::Straddle && (i != left_of_big_blind || n < 3 || e.stack <= straddle)
            {
                return Err(SetupError::Straddle(e.seat));
            }
        }
        let straddled = entrants[left_of_big_blind].post == Post::Straddle;
        let first = if straddled {
            (left_of_big_blind + 1) % n
        } else {
            left_of_big_blind
        };

        let stakes = setup.stakes;
        let mut events = vec![Event::HandStarted {
            button: setup.button,
            stacks: entrants.iter().map(|e| (e.seat, e.stack)).collect(),
        }];
        // One card at a time from the first seat left of the button; the length check above
        // guarantees the cards.
        let dealt: Vec<Card> = (0..4 * n).filter_map(|_| deck.deal()).collect();
        let mut players: Vec<Player> = entrants
            .iter()
            .enumerate()
            .map(|(i, e)| Player {
                seat: e.seat,
                starting_stack: e.stack,
                stack: e.stack,
                hole: [dealt[i], dealt[n + i], dealt[2 * n + i], dealt[3 * n + i]],
                bet: 0,
                contributed: 0,
                folded: false,
                acted_at: None,
            })
            .collect();

        for (p, e) in players.iter_mut().zip(&entrants) {
            let (live, dead) = match e.post {
                Post::Nothing => (None, 0),
                Post::SmallBlind => (Some((BlindKind::Small, stakes.small_blind)), 0),
                Post::BigBlind => (Some((BlindKind::Big, stakes.big_blind)), 0),
                Post::DeadSmallBlind => (None, stakes.small_blind),
                Post::BigAndDeadSmall => {
                    (Some((BlindKind::Big, stakes.big_blind)), stakes.small_blind)
                }
                Post::Straddle => (Some((BlindKind::Straddle, straddle)), 0),
            };
            if let Some((blind, amount)) = live {
                let amount = amount.min(p.stack);
                p.stack -= amount;
                p.bet = amount;
                p.contributed = amount;
                events.push(Event::BlindPosted {
                    seat: p.seat,
                    blind,
                    amount,
                    all_in: p.stack == 0,
                });
            }
            let dead = dead.min(p.stack);
            if dead > 0 {
                p.stack -= dead;
                p.contributed += dead;
                events.push(Event::BlindPosted {
                    seat: p.seat,
                    blind: BlindKind::DeadSmall,
                    amount: dead,
                    all_in: p.stack == 0,
                });
            }
        }

        for p in &players {
            events.push(Event::HoleCards {
                seat: p.seat,
                cards: p.hole,
            });
        }

        // Everyone must match a full big blind, even when the big blind itself is short. A
        // straddle is a blind of two big blinds: the next raise is to four, and in fixed limit
        // it is the round's second bet.
        let (level, bets_made) = if straddled {
            (straddle, 2)
        } else {
            (stakes.big_blind, 1)
        };
        let mut hand = Hand {
            stakes,
            button: setup.button,
            players,
            deck,
            board: Vec::with_capacity(5),
            run_twice: setup.run_twice,
            second_run: Vec::new(),
            street: Street::Preflop,
            current_bet: level,
            full_level: level,
            full_size: level,
            bets_made,
            last_aggressor: None,
            to_act: None,
            shown: Vec::new(),
            show_losing: Vec::new(),
            result: None,
        };
        hand.to_act = hand.first_needing_action(first);
        if hand.to_act.is_none() {
            hand.end_round(&mut events);
        }
        Ok((hand, events))
    }

    pub fn stakes(&self) -> &Stakes {
        &self.stakes
    }

    pub fn button(&self) -> u8 {
        self.button
    }

    pub fn street(&self) -> Street {
        self.street
    }

    pub fn board(&self) -> &[Card] {
        &self.board
    }

    /// The deck in dealing order, for the operator's hand history.
    pub fn deck(&self) -> &Deck {
        &self.deck
    }

    pub fn is_over(&self) -> bool {
        self.result.is_some()
    }

    pub fn result(&self) -> Option<&HandResult> {
        self.result.as_ref()
    }

    /// The seat whose turn it is.
    pub fn to_act(&self) -> Option<u8> {
        self.to_act.map(|i| self.players[i].seat)
    }

    /// Seats in the hand, from the first seat left of the button.
    pub fn seats(&self) -> impl Iterator<Item = u8> + '_ {
        self.players.iter().map(|p| p.seat)
    }

    pub fn hole_cards(&self, seat: u8) -> Option<[Card; 4]> {
        self.player(seat).map(|p| p.hole)
    }

    pub fn stack(&self, seat: u8) -> Option<Chips> {
        self.player(seat).map(|p| p.stack)
    }

    /// Chips the seat has in front of it this betting round.
    pub fn bet(&self, seat: u8) -> Option<Chips> {
        self.player(seat).map(|p| p.bet)
    }

    pub fn has_folded(&self, seat: u8) -> Option<bool> {
        self.player(seat).map(|p| p.folded)
    }

    /// Chips the seat has put into the pot this hand.
    pub fn contributed(&self, seat: u8) -> Option<Chips> {
        self.player(seat).map(|p| p.contributed)
    }

    /// All chips in the middle: gathered pots plus the bets of the current round.
    pub fn pot_total(&self) -> Chips {
        self.players.iter().map(|p| p.contributed).sum()
    }

    /// Pots as they stand (bets of the current round included).
    pub fn pots(&self) -> Vec<Pot> {
        build_pots(&self.contributions())
    }

    /// Stacks plus everything in the pot: constant from the first blind to the payout.
    pub fn chips_in_play(&self) -> Chips {
        match &self.result {
            Some(r) => r.stacks.iter().map(|s| s.1).sum::<Chips>() + r.rake,
            None => self.players.iter().map(|p| p.stack + p.contributed).sum(),
        }
    }

    fn player(&self, seat: u8) -> Option<&Player> {
        self.players.iter().find(|p| p.seat == seat)
    }

    fn contributions(&self) -> Vec<Contribution> {
        self.players
            .iter()
            .map(|p| Contribution {
                seat: p.seat,
                amount: p.contributed,
                folded: p.folded,
            })
            .collect()
    }

    /// The legal choices of the player to act, or `None` when nobody is to act.
    pub fn legal(&self) -> Option<Legal> {
        let i = self.to_act?;
        let p = &self.players[i];
        let owed = self.current_bet - p.bet;
        Some(Legal {
            seat: p.seat,
            to_call: owed.min(p.stack),
            can_check: owed == 0,
            raise: self.raise_bounds(i),
        })
    }

    fn raise_bounds(&self, i: usize) -> Result<RaiseBounds, RaiseRefusal> {
        let p = &self.players[i];
        let owed = self.current_bet - p.bet;
        if p.stack <= owed {
            return Err(RaiseRefusal::NoChipsBehind);
        }
        let opponents_can_act = self
            .players
            .iter()
            .enumerate()
            .any(|(j, q)| j != i && q.can_act());
        if !opponents_can_act {
            return Err(RaiseRefusal::NobodyToRaise);
        }
        if let Some(level) = p.acted_at
            && !self.reopens(self.current_bet - level)
        {
            return Err(RaiseRefusal::NotReopened);
        }
        let all_in_to = p.bet + p.stack;
        match self.stakes.structure {
            Structure::FixedLimit => {
                let live = self.players.iter().filter(|q| !q.folded).count();
                let capped = !(self.stakes.uncapped_heads_up && live == 2);
                if capped && self.bets_made >= 4 {
                    return Err(RaiseRefusal::Capped);
                }
                let to = (self.full_level + self.limit_bet()).min(all_in_to);
                Ok(RaiseBounds {
                    min_to: to,
                    max_to: to,
                    pot_to: None,
                    max_is_all_in: to == all_in_to,
                })
            }
            Structure::PotLimit | Structure::NoLimit => {
                let min_to =
                    (self.current_bet + self.full_size.max(self.stakes.big_blind)).min(all_in_to);
                // Pot after the raiser calls, added on top of the call.
                let pot_to = (self.current_bet + self.pot_total() + owed).min(all_in_to);
                let max_to = match self.stakes.structure {
                    Structure::PotLimit => pot_to.max(min_to),
                    _ => all_in_to,
                };
                Ok(RaiseBounds {
                    min_to,
                    max_to,
                    pot_to: Some(pot_to.max(min_to)),
                    max_is_all_in: max_to == all_in_to,
                })
            }
        }
    }

    fn limit_bet(&self) -> Chips {
        match self.street {
            Street::Preflop | Street::Flop => self.stakes.small_bet,
            Street::Turn | Street::River => self.stakes.big_bet,
        }
    }

    /// Whether raises totalling `increase` since a player last acted reopen the betting for
    /// them (TDA: a full raise, or short all-ins adding up to one; in fixed limit half a bet
    /// counts as a full raise).
    fn reopens(&self, increase: Chips) -> bool {
        match self.stakes.structure {
            Structure::FixedLimit => increase > 0 && increase * 2 >= self.limit_bet(),
            _ => increase > 0 && increase >= self.full_size.max(self.stakes.big_blind),
        }
    }

    /// Applies `action` by `seat`. On error nothing has changed.
    pub fn act(&mut self, seat: u8, action: Action) -> Result<Vec<Event>, ActionError> {
        if self.result.is_some() {
            return Err(ActionError::HandOver);
        }
        let Some(i) = self.to_act else {
            return Err(ActionError::HandOver);
        };
        let expected = self.players[i].seat;
        if seat != expected {
            return Err(match self.player(seat) {
                Some(_) => ActionError::NotYourTurn {
                    expected,
                    got: seat,
                },
                None => ActionError::NotInHand(seat),
            });
        }
        let owed = self.current_bet - self.players[i].bet;
        let acted = match action {
            Action::Fold => Acted::Fold,
            Action::Check if owed > 0 => {
                return Err(ActionError::CannotCheck {
                    to_call: owed.min(self.players[i].stack),
                });
            }
            Action::Check => Acted::Check,
            Action::Call if owed == 0 => return Err(ActionError::NothingToCall),
            Action::Call => Acted::Call {
                amount: owed.min(self.players[i].stack),
            },
            Action::RaiseTo { to } => {
                let bounds = self
                    .raise_bounds(i)
                    .map_err(|reason| ActionError::CannotRaise { reason })?;
                if to < bounds.min_to || to > bounds.max_to {
                    return Err(ActionError::RaiseOutOfRange {
                        to,
                        min: bounds.min_to,
                        max: bounds.max_to,
                    });
                }
                if self.current_bet == 0 {
                    Acted::Bet { to }
                } else {
                    Acted::Raise { to }
                }
            }
        };

        // Validated: from here on the action happens.
        let mut events = Vec::new();
        let current_bet = self.current_bet;
        let p = &mut self.players[i];
        match acted {
            Acted::Fold => p.folded = true,
            Acted::Check => {}
            Acted::Call { amount } => {
                p.stack -= amount;
                p.bet += amount;
                p.contributed += amount;
            }
            Acted::Bet { to } | Acted::Raise { to } => {
                let added = to - p.bet;
                p.stack -= added;
                p.bet = to;
                p.contributed += added;
            }
        }
        p.acted_at = Some(current_bet.max(p.bet));
        events.push(Event::Acted {
            seat,
            action: acted,
            stack: p.stack,
            all_in: p.all_in(),
        });
        if let Acted::Bet { to } | Acted::Raise { to } = acted {
            let full = match self.stakes.structure {
                Structure::FixedLimit => (to - self.full_level) * 2 >= self.limit_bet(),
                _ => to - current_bet >= self.full_size.max(self.stakes.big_blind),
            };
            if full {
                self.full_size = match self.stakes.structure {
                    Structure::FixedLimit => self.limit_bet(),
                    _ => to - current_bet,
                };
                self.full_level = to;
                self.bets_made = self.bets_made.saturating_add(1);
            }
            self.current_bet = to;
            self.last_aggressor = Some(i);
        }

        if self.players.iter().filter(|p| !p.folded).count() == 1 {
            self.to_act = None;
            self.return_uncalled(&mut events);
            self.gather(&mut events);
            self.settle(&mut events);
            return Ok(events);
        }
        self.to_act = self.first_needing_action(i + 1);
        if self.to_act.is_none() {
            self.end_round(&mut events);
        }
        Ok(events)
    }

    /// Whether player `i` still has a decision to make this round.
    fn needs_action(&self, i: usize) -> bool {
        let p = &self.players[i];
        if !p.can_act() {
            return false;
        }
        let others_can_act = self
            .players
            .iter()
            .enumerate()
            .any(|(j, q)| j != i && q.can_act());
        if p.bet < self.current_bet {
            // Facing only all-in players whose bets this player already covers (a big blind
            // all-in for no more than the small blind), a call or a fold changes nothing that
            // matters: there is no decision (docs/rules.md §5.9).
            return others_can_act
                || self
                    .players
                    .iter()
                    .enumerate()
                    .any(|(j, q)| j != i && !q.folded && q.bet > p.bet);
        }
        // A matched player who has not acted yet (the big blind's option) acts only if
        // somebody could still answer a raise.
        p.acted_at.is_none() && others_can_act
    }

    /// The first player from index `start` on (wrapping) who must act.
    fn first_needing_action(&self, start: usize) -> Option<usize> {
        let n = self.players.len();
        (0..n)
            .map(|k| (start + k) % n)
            .find(|&j| self.needs_action(j))
    }

    /// The excess of the highest bet over the second highest goes back to its owner.
    fn return_uncalled(&mut self, events: &mut Vec<Event>) {
        let Some((top, _)) = self.players.iter().enumerate().max_by_key(|(_, p)| p.bet) else {
            return;
        };
        let second = self
            .players
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != top)
            .map(|(_, p)| p.bet)
            .max()
            .unwrap_or(0);
        let p = &mut self.players[top];
        let excess = p.bet.saturating_sub(second);
        if excess > 0 {
            p.bet -= excess;
            p.contributed -= excess;
            p.stack += excess;
            events.push(Event::UncalledBetReturned {
                seat: p.seat,
                amount: excess,
            });
        }
    }

    fn gather(&mut self, events: &mut Vec<Event>) {
        for p in &mut self.players {
            p.bet = 0;
            p.acted_at = None;
        }
        events.push(Event::PotsGathered { pots: self.pots() });
    }

    fn end_round(&mut self, events: &mut Vec<Event>) {
        self.return_uncalled(events);
        self.gather(events);
        let able = self.players.iter().filter(|p| p.can_act()).count();
        if self.street == Street::River {
            // Called all-in on the river: every hand is turned up, as after an earlier all-in
            // (TDA 16; docs/rules.md §6.3), so a losing caller may not muck.
            if self.shown.is_empty() && self.players.iter().any(|p| !p.folded && p.all_in()) {
                self.turn_face_up(events);
            }
            self.settle(events);
            return;
        }
        if able < 2 {
            self.turn_face_up(events);
            let from = self.board.len();
            while self.street != Street::River {
                self.deal_street(events);
            }
            if self.run_twice {
                self.deal_second_run(from, events);
            }
            self.settle(events);
            return;
        }
        self.deal_street(events);
        self.current_bet = 0;
        self.full_level = 0;
        self.full_size = 0;
        self.bets_made = 0;
        self.last_aggressor = None;
        self.to_act = self.first_needing_action(0);
        if self.to_act.is_none() {
            self.end_round(events);
        }
    }

    /// Betting is over with an all-in player: every live hand is shown at once.
    fn turn_face_up(&mut self, events: &mut Vec<Event>) {
        self.shown = self
            .players
            .iter()
            .filter(|p| !p.folded)
            .map(|p| p.seat)
            .collect();
        events.push(Event::HandsFaceUp {
            hands: self
                .players
                .iter()
                .filter(|p| !p.folded)
                .map(|p| (p.seat, p.hole))
                .collect(),
        });
    }

    fn deal_street(&mut self, events: &mut Vec<Event>) {
        let (street, count) = match self.street {
            Street::Preflop => (Street::Flop, 3),
            Street::Flop => (Street::Turn, 1),
            Street::Turn | Street::River => (Street::River, 1),
        };
        // Burn one. `start` checked that the deck holds every card the hand can need.
        let _ = self.deck.deal();
        let cards: Vec<Card> = (0..count).filter_map(|_| self.deck.deal()).collect();
        self.board.extend(&cards);
        self.street = street;
        events.push(Event::BoardDealt { street, cards });
    }

    /// Run it twice (docs/rules.md §3.8): the board's cards from index `from` on are dealt
    /// again, burns included, once the first run is complete. A deck too short for that (ten
    /// players all in before the flop) runs once.
    fn deal_second_run(&mut self, from: usize, events: &mut Vec<Event>) {
        let streets: &[(Street, usize)] = match from {
            0 => &[(Street::Flop, 3), (Street::Turn, 1), (Street::River, 1)],
            3 => &[(Street::Turn, 1), (Street::River, 1)],
            4 => &[(Street::River, 1)],
            _ => &[],
        };
        let needed: usize = streets.iter().map(|(_, count)| 1 + count).sum();
        if streets.is_empty() || self.deck.remaining() < needed {
            return;
        }
        for &(street, count) in streets {
            let _ = self.deck.deal();
            let cards: Vec<Card> = (0..count).filter_map(|_| self.deck.deal()).collect();
            self.second_run.extend(&cards);
            events.push(Event::SecondRunDealt { street, cards });
        }
    }

    /// The second board of a hand run twice: the cards both runs share, then the second run's.
    pub fn second_board(&self) -> Option<Vec<Card>> {
        if self.second_run.is_empty() {
            return None;
        }
        let shared = self.board.len().checked_sub(self.second_run.len())?;
        Some(
            self.board[..shared]
                .iter()
                .chain(&self.second_run)
                .copied()
                .collect(),
        )
    }

    /// Each live player's values on `board`, `None` for folded players or an unfinished board.
    fn evaluate(&self, board: &[Card]) -> Vec<Option<Showdown>> {
        match <[Card; 5]>::try_from(board) {
            Ok(board) => {
                let eval = BoardEval::new(&board);
                self.players
                    .iter()
                    .map(|p| (!p.folded).then(|| eval.player(&p.hole)))
                    .collect()
            }
            Err(_) => vec![None; self.players.len()],
        }
    }

    /// The pot's contenders in showdown order, with their values on one board.
    fn contenders(&self, pot: &Pot, showdown: &[Option<Showdown>]) -> Vec<Contender> {
        self.players
            .iter()
            .zip(showdown)
            .filter(|(p, _)| pot.eligible.contains(&p.seat))
            .filter_map(|(p, s)| {
                s.map(|s| Contender {
                    seat: p.seat,
                    high: s.high,
                    low: s.low,
                })
            })
            .collect()
    }

    /// Shows hands in showdown order, takes the rake and pays every pot.
    fn settle(&mut self, events: &mut Vec<Event>) {
        let live: Vec<usize> = (0..self.players.len())
            .filter(|&i| !self.players[i].folded)
            .collect();
        let saw_flop = !self.board.is_empty();
        let pots = self.pots();

        let contested = live.len() > 1;
        let showdown = if contested {
            self.evaluate(&self.board)
        } else {
            vec![None; self.players.len()]
        };
        let second: Option<Vec<Option<Showdown>>> = self
            .second_board()
            .filter(|_| contested)
            .map(|board| self.evaluate(&board));

        // Rake before the split, pot by pot, main pot first, up to the cap per hand.
        let mut rake_left = match self.stakes.rake {
            Some(r) if saw_flop => r.cap,
            _ => 0,
        };
        let mut settled = Vec::with_capacity(pots.len());
        for (index, pot) in pots.iter().enumerate() {
            let rake = match self.stakes.rake {
                Some(r) => (pot.amount * Chips::from(r.basis_points) / 10_000).min(rake_left),
                None => 0,
            };
            rake_left -= rake;
            let amount = pot.amount - rake;
            let (awards, second_awards) = match (pot.eligible.as_slice(), &second) {
                // Uncontested: nothing to compare, and maybe no board to compare on.
                ([only], _) => (
                    vec![Award {
                        seat: *only,
                        amount,
                        share: Share::Whole,
                    }],
                    Vec::new(),
                ),
                // Run twice: half the pot for each board, the odd chip to the first.
                (_, Some(second)) => {
                    let half = amount / 2;
                    (
                        split_pot(amount - half, &self.contenders(pot, &showdown)),
                        split_pot(half, &self.contenders(pot, second)),
                    )
                }
                (_, None) => (
                    split_pot(amount, &self.contenders(pot, &showdown)),
                    Vec::new(),
                ),
            };
            settled.push((index, pot.clone(), rake, awards, second_awards));
        }

        if contested {
            let no_second = Vec::new();
            let second = second.as_ref().unwrap_or(&no_second);
            let shown = self.reveal(&live, &showdown, second, &settled, events);
            for seat in shown {
                if !self.shown.contains(&seat) {
                    self.shown.push(seat);
                }
            }
        }
        let mut total_rake = 0;
        let mut result_pots = Vec::with_capacity(settled.len());
        for (index, pot, rake, awards, second_run) in settled {
            if rake > 0 {
                events.push(Event::RakeTaken {
                    pot: index,
                    amount: rake,
                });
            }
            total_rake += rake;
            let paid = awards.iter().map(|a| (a, false));
            for (a, second_run) in paid.chain(second_run.iter().map(|a| (a, true))) {
                if let Some(p) = self.players.iter_mut().find(|p| p.seat == a.seat) {
                    p.stack += a.amount;
                }
                events.push(Event::PotAwarded {
                    pot: index,
                    seat: a.seat,
                    amount: a.amount,
                    share: a.share,
                    second_run,
                });
            }
            result_pots.push(SettledPot {
                amount: pot.amount,
                rake,
                eligible: pot.eligible,
                awards,
                second_run,
            });
        }
        for p in &mut self.players {
            p.contributed = 0;
        }
        let stacks: Vec<(u8, Chips)> = self.players.iter().map(|p| (p.seat, p.stack)).collect();
        events.push(Event::HandEnded {
            stacks: stacks.clone(),
        });
        self.to_act = None;
        self.result = Some(HandResult {
            pots: result_pots,
            rake: total_rake,
            stacks,
            saw_flop,
        });
    }

    /// Showdown order (docs/rules.md §6): after an all-in everything is already face up; otherwise
    /// the last river aggressor, or the first live player left of the button, shows first, then
    /// clockwise; a later hand is shown only if it wins part of a pot, and mucked otherwise.
    fn reveal(
        &self,
        live: &[usize],
        showdown: &[Option<Showdown>],
        second: &[Option<Showdown>],
        settled: &[Settled],
        events: &mut Vec<Event>,
    ) -> Vec<u8> {
        let mut shown = Vec::new();
        let faced_up = events
            .iter()
            .any(|e| matches!(e, Event::HandsFaceUp { .. }));
        let first = self
            .last_aggressor
            .filter(|&i| !self.players[i].folded)
            .unwrap_or(live[0]);
        let n = self.players.len();
        let order = (0..n)
            .map(|k| (first + k) % n)
            .filter(|&i| !self.players[i].folded);
        for (k, i) in order.enumerate() {
            let p = &self.players[i];
            let wins = settled.iter().any(|(_, _, _, awards, second_run)| {
                awards
                    .iter()
                    .chain(second_run)
                    .any(|a| a.seat == p.seat && a.amount > 0)
            });
            match showdown[i] {
                Some(s) if faced_up || k == 0 || wins || self.show_losing.contains(&p.seat) => {
                    shown.push(p.seat);
                    events.push(Event::Shown {
                        seat: p.seat,
                        cards: p.hole,
                        high: s.high,
                        low: s.low,
                        second: second.get(i).copied().flatten(),
                    })
                }
                _ => events.push(Event::Mucked { seat: p.seat }),
            }
        }
        shown
    }

    /// Auto-muck off (`show`) or on for `seat`: whether a losing hand is shown at showdown
    /// (docs/rules.md §6.5).
    pub fn set_show_losing(&mut self, seat: u8, show: bool) {
        self.show_losing.retain(|&s| s != seat);
        if show {
            self.show_losing.push(seat);
        }
    }

    /// After a hand won without a showdown, its winner turns their cards up (docs/rules.md
    /// §6.4). False, changing nothing, for anyone else or at any other time.
    pub fn show_uncalled(&mut self, seat: u8) -> bool {
        let allowed = self.may_show_uncalled(seat);
        if allowed {
            self.shown.push(seat);
        }
        allowed
    }

    /// Whether `seat` won this finished hand without a showdown and has not shown it yet.
    pub fn may_show_uncalled(&self, seat: u8) -> bool {
        let mut live = self.players.iter().filter(|p| !p.folded);
        self.result.is_some()
            && live.next().is_some_and(|p| p.seat == seat)
            && live.next().is_none()
            && !self.shown.contains(&seat)
    }

    /// Whether `seat`'s hole cards are face up for everyone.
    pub fn is_shown(&self, seat: u8) -> bool {
        self.shown.contains(&seat)
    }

    /// Whether `seat` was dealt in and has not folded.
    pub fn is_live(&self, seat: u8) -> bool {
        self.player(seat).is_some_and(|p| !p.folded)
    }

    /// Chips each seat had when the hand started (for voiding an interrupted hand).
    pub fn starting_stacks(&self) -> Vec<(u8, Chips)> {
        self.players
            .iter()
            .map(|p| (p.seat, p.starting_stack))
            .collect()
    }
}

/// How far clockwise `seat` is from the first seat left of `button` (0 for that seat).
/// Seat numbers are small, so any modulus above the table size gives the same order.
pub(crate) fn clockwise_from(button: u8, seat: u8) -> u16 {
    (u16::from(seat) + 256 - u16::from(button) - 1) % 256
}

/// Builds a deck that deals the given hole cards (in dealing order, from the first seat left
/// of the button), board and second run (the cards a hand run twice dealt again, empty if it
/// was not), with burn cards and any missing board cards taken from the cards nobody holds.
/// Used to replay recorded hands.
pub fn deck_for(
    holes: &[[Card; 4]],
    board: &[Card],
    second_run: &[Card],
) -> Result<Deck, crate::card::CardError> {
    let mut used = 0u64;
    for &c in holes.iter().flatten().chain(board).chain(second_run) {
        used |= 1 << c.index();
    }
    let mut spare = (0..52u8)
        .filter(|i| used & (1 << i) == 0)
        .filter_map(Card::from_index);
    let mut order = Vec::with_capacity(52);
    for round in 0..4 {
        order.extend(holes.iter().map(|h| h[round]));
    }
    let mut board_cards = board.iter().copied();
    for count in [3, 1, 1] {
        order.extend(spare.next());
        for _ in 0..count {
            order.extend(board_cards.next().or_else(|| spare.next()));
        }
    }
    let second_streets: &[usize] = match second_run.len() {
        5 => &[3, 1, 1],
        2 => &[1, 1],
        1 => &[1],
        _ => &[],
    };
    let mut second_cards = second_run.iter().copied();
    for &count in second_streets {
        order.extend(spare.next());
        order.extend(second_cards.by_ref().take(count));
    }
    order.extend(spare);
    Deck::stacked(order)
}
