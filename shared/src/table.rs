//! A table across hands: seats, buy-ins, the dead button, blinds owed and sitting out
//! (docs/rules.md §4 and §7). The table decides who is dealt in and who posts what, then runs one
//! [`Hand`] at a time.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::card::Deck;
use crate::hand::{
    Action, ActionError, Entrant, Event, Hand, HandResult, HandSetup, MAX_PLAYERS, Post, SetupError,
};
use crate::rules::{Chips, Stakes, StakesError};

/// Who sits in a seat, as the server knows them (an account id).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PlayerId(pub u128);

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableConfig {
    pub stakes: Stakes,
    /// Number of seats, 2 to 10.
    pub seats: u8,
    pub min_buy_in: Chips,
    pub max_buy_in: Chips,
    /// A player sat out for this many hands in a row is stood up.
    pub max_hands_sat_out: u32,
    /// An all-in with cards to come runs the board twice (docs/rules.md §3.8).
    #[serde(default)]
    pub run_twice: bool,
    /// The player left of the big blind may straddle (docs/rules.md §4.8).
    #[serde(default)]
    pub straddle: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfigError {
    #[error("a table has 2 to {MAX_PLAYERS} seats, not {0}")]
    Seats(u8),
    #[error("the minimum buy-in ({min}) must be positive and no more than the maximum ({max})")]
    BuyIns { min: Chips, max: Chips },
    #[error(transparent)]
    Stakes(#[from] StakesError),
}

impl TableConfig {
    /// Defaults of docs/rules.md §7: buy-in from 10 to 100 small bets (big blinds in pot and no
    /// limit), stood up after 10 hands sat out.
    pub fn new(stakes: Stakes, seats: u8) -> TableConfig {
        let unit = stakes.buy_in_unit();
        TableConfig {
            stakes,
            seats,
            min_buy_in: 10 * unit,
            max_buy_in: 100 * unit,
            max_hands_sat_out: 10,
            run_twice: false,
            straddle: false,
        }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        self.stakes.validate()?;
        if !(2..=MAX_PLAYERS as u8).contains(&self.seats) {
            return Err(ConfigError::Seats(self.seats));
        }
        if self.min_buy_in == 0 || self.min_buy_in > self.max_buy_in {
            return Err(ConfigError::BuyIns {
                min: self.min_buy_in,
                max: self.max_buy_in,
            });
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatStatus {
    /// Dealt in every hand.
    Playing,
    /// Not dealt in; misses the blinds that pass.
    SittingOut,
    /// New, or back with blinds owed: comes in when the big blind reaches the seat, or at once
    /// by posting (`post_now`) when not between the button and the blinds.
    Waiting { post_now: bool },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    pub player: PlayerId,
    pub name: String,
    pub stack: Chips,
    pub status: SeatStatus,
    pub missed_big: bool,
    pub missed_small: bool,
    pub hands_sat_out: u32,
    /// Sit out once the current hand is over (own request, or the clock ran out).
    pub sit_out_next: bool,
    /// Leave once the current hand is over.
    pub leaving: bool,
    /// Straddle whenever the seat is first left of the big blind (at a table that allows it).
    #[serde(default)]
    pub straddle: bool,
    /// Play on until the big blind reaches the seat, then sit out instead of posting it
    /// (docs/rules.md §7.13).
    #[serde(default)]
    pub sit_out_at_big_blind: bool,
    /// Show a losing hand at showdown rather than muck it (auto-muck off, docs/rules.md §6.5).
    #[serde(default)]
    pub show_losing: bool,
    /// Between hands, top the stack back up to this many chips (a preference the server acts
    /// on through the ledger; the engine only keeps it with the seat).
    #[serde(default)]
    pub auto_top_up: Option<Chips>,
    /// Sat out by the last hand for having no chips left, not by request.
    #[serde(default)]
    pub sat_out_broke: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Error, Serialize, Deserialize)]
#[serde(tag = "error", rename_all = "snake_case")]
pub enum TableError {
    #[error("there is no seat {0} at this table")]
    NoSuchSeat(u8),
    #[error("seat {0} is taken")]
    SeatTaken(u8),
    #[error("seat {0} is empty")]
    SeatEmpty(u8),
    #[error("you are already seated at this table")]
    AlreadySeated,
    #[error("a buy-in must be between {min} and {max} chips, not {amount}")]
    BuyInOutOfRange {
        amount: Chips,
        min: Chips,
        max: Chips,
    },
    #[error("a top-up may bring the stack to at most {max} chips")]
    TopUpTooLarge { max: Chips },
    #[error("you have no chips at this table: rebuy before sitting in")]
    NoChips,
    #[error("that can only be done between hands")]
    HandInProgress,
    #[error("a hand is already running")]
    HandRunning,
    #[error("no hand is running")]
    NoHand,
    #[error("at least two players must be ready to deal a hand")]
    NotEnoughPlayers,
    #[error("this table does not allow straddles")]
    NoStraddle,
    #[error(
        "there is no hand of yours to show: only a hand that won without a showdown can be shown after it"
    )]
    NothingToShow,
    #[error("an automatic top-up must be between {min} and {max} chips")]
    AutoTopUpOutOfRange { min: Chips, max: Chips },
    #[error("hand setup failed: {0}")]
    Setup(String),
}

impl From<SetupError> for TableError {
    fn from(e: SetupError) -> Self {
        TableError::Setup(e.to_string())
    }
}

/// Positions of the last hand dealt, for the dead-button rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Positions {
    pub button: u8,
    pub small_blind: u8,
    pub big_blind: u8,
}

/// Blinds a player who left still owes at this table (docs/rules.md §7.5, §7.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Debt {
    player: PlayerId,
    missed_big: bool,
    missed_small: bool,
    /// Hands still to be dealt before the table forgets the debt.
    hands_left: u32,
}

/// How the running (or last) hand's positions were chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Deal {
    /// The table's first hand: everyone ready is dealt in.
    Fresh,
    /// The big blind moved on one seat and players came in by position (docs/rules.md §4.4).
    Positional,
    /// Nobody could come in by position, so every ready player was dealt in as at a fresh
    /// table, the big blind still moving on one seat (docs/rules.md §7.12).
    Restart,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    config: TableConfig,
    seats: Vec<Option<Seat>>,
    last: Option<Positions>,
    hand: Option<Hand>,
    /// Positions of the running hand, committed to `last` when it ends.
    current: Option<Positions>,
    deal: Option<Deal>,
    debts: Vec<Debt>,
    /// Who was dealt in where, in the running or last hand: a seat whose occupant has changed
    /// since holds someone else's cards, which its newcomer must never see nor show.
    dealt: Vec<(u8, PlayerId)>,
}

/// What the next hand will be: positions, who is dealt in and posts what.
struct Plan {
    positions: Positions,
    /// The seat the small blind fell on by the dead-button rule, before a heads-up hand moves
    /// it to the button: a player sitting out there misses it.
    small_blind_seat: u8,
    entrants: Vec<Entrant>,
    deal: Deal,
}

/// What leaving did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leave {
    /// The seat is free; this stack goes back to the player's balance.
    Now(Chips),
    /// The player is in the running hand: they are folded when their turn comes and leave
    /// when it ends.
    AfterHand,
}

impl Table {
    pub fn new(config: TableConfig) -> Result<Table, ConfigError> {
        config.validate()?;
        Ok(Table {
            seats: vec![None; config.seats as usize],
            config,
            last: None,
            hand: None,
            current: None,
            deal: None,
            debts: Vec::new(),
            dealt: Vec::new(),
        })
    }

    /// How the running or last hand was dealt.
    pub fn deal(&self) -> Option<Deal> {
        self.deal
    }

    /// Blinds a player who is not seated still owes here: `(missed_big, missed_small)`.
    pub fn owed_by(&self, player: PlayerId) -> Option<(bool, bool)> {
        self.debts
            .iter()
            .find(|d| d.player == player)
            .map(|d| (d.missed_big, d.missed_small))
    }

    pub fn config(&self) -> &TableConfig {
        &self.config
    }

    pub fn seat(&self, seat: u8) -> Option<&Seat> {
        self.seats.get(seat as usize)?.as_ref()
    }

    pub fn seats(&self) -> impl Iterator<Item = (u8, &Seat)> {
        self.seats
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().map(|s| (i as u8, s)))
    }

    pub fn seat_of(&self, player: PlayerId) -> Option<u8> {
        self.seats()
            .find(|(_, s)| s.player == player)
            .map(|(i, _)| i)
    }

    /// The running hand, or the last finished one until the next is dealt.
    pub fn hand(&self) -> Option<&Hand> {
        self.hand.as_ref()
    }

    pub fn hand_running(&self) -> bool {
        self.hand.as_ref().is_some_and(|h| !h.is_over())
    }

    pub fn positions(&self) -> Option<Positions> {
        self.current.or(self.last)
    }

    /// Chips on the table: stacks plus whatever is in a running hand.
    pub fn chips_on_table(&self) -> Chips {
        let idle: Chips = self
            .seats()
            .filter(|(i, _)| !self.in_hand(*i))
            .map(|(_, s)| s.stack)
            .sum();
        let running = self
            .hand
            .as_ref()
            .filter(|h| !h.is_over())
            .map_or(0, |h| h.chips_in_play());
        idle + running
    }

    fn in_hand(&self, seat: u8) -> bool {
        self.hand
            .as_ref()
            .is_some_and(|h| !h.is_over() && h.seats().any(|s| s == seat))
    }

    fn seat_mut(&mut self, seat: u8) -> Result<&mut Seat, TableError> {
        match self.seats.get_mut(seat as usize) {
            None => Err(TableError::NoSuchSeat(seat)),
            Some(None) => Err(TableError::SeatEmpty(seat)),
            Some(Some(s)) => Ok(s),
        }
    }

    /// The seat exists and is empty, and the player has no other seat here.
    fn check_free(&self, seat: u8, player: PlayerId) -> Result<(), TableError> {
        match self.seats.get(seat as usize) {
            None => Err(TableError::NoSuchSeat(seat)),
            Some(Some(_)) => Err(TableError::SeatTaken(seat)),
            Some(None) if self.seat_of(player).is_some() => Err(TableError::AlreadySeated),
            Some(None) => Ok(()),
        }
    }

    /// Whether `player` may take `seat` with `buy_in` chips: what `sit` checks, for a caller
    /// that must move the chips before the seat is taken.
    pub fn can_sit(&self, seat: u8, player: PlayerId, buy_in: Chips) -> Result<(), TableError> {
        self.check_free(seat, player)?;
        let (min, max) = (self.config.min_buy_in, self.config.max_buy_in);
        if !(min..=max).contains(&buy_in) {
            return Err(TableError::BuyInOutOfRange {
                amount: buy_in,
                min,
                max,
            });
        }
        Ok(())
    }

    /// Whether `seat` may add `amount` chips now: what `top_up` checks.
    pub fn can_top_up(&self, seat: u8, amount: Chips) -> Result<(), TableError> {
        if self.in_hand(seat) {
            return Err(TableError::HandInProgress);
        }
        let max = self.config.max_buy_in;
        let stack = match self.seats.get(seat as usize) {
            None => return Err(TableError::NoSuchSeat(seat)),
            Some(None) => return Err(TableError::SeatEmpty(seat)),
            Some(Some(s)) => s.stack,
        };
        let min = self.config.min_buy_in;
        if stack == 0 && amount > 0 && amount < min {
            // A rebuy after going broke is a buy-in (docs/rules.md §7.9).
            return Err(TableError::BuyInOutOfRange { amount, min, max });
        }
        match stack.checked_add(amount) {
            Some(total) if amount > 0 && total <= max => Ok(()),
            _ => Err(TableError::TopUpTooLarge { max }),
        }
    }

    /// Takes a seat with `buy_in` chips. The player waits for the big blind unless `post_now`.
    pub fn sit(
        &mut self,
        seat: u8,
        player: PlayerId,
        name: String,
        buy_in: Chips,
        post_now: bool,
    ) -> Result<(), TableError> {
        self.can_sit(seat, player, buy_in)?;
        self.seat_player(seat, player, name, buy_in, SeatStatus::Waiting { post_now })?;
        // No one escapes a blind by changing seats: what was owed comes back with the player.
        if let Some(i) = self.debts.iter().position(|d| d.player == player) {
            let debt = self.debts.swap_remove(i);
            if let Some(Some(s)) = self.seats.get_mut(seat as usize) {
                s.missed_big = debt.missed_big;
                s.missed_small = debt.missed_small;
            }
        }
        Ok(())
    }

    /// Remembers what a departing player owes, for as long as a sat-out player may stay seated.
    fn remember_debt(&mut self, seat: &Seat) {
        if (seat.missed_big || seat.missed_small) && self.config.max_hands_sat_out > 0 {
            self.debts.retain(|d| d.player != seat.player);
            self.debts.push(Debt {
                player: seat.player,
                missed_big: seat.missed_big,
                missed_small: seat.missed_small,
                hands_left: self.config.max_hands_sat_out,
            });
        }
    }

    /// Puts back a player who was seated when the server stopped, with the stack the
    /// database holds, sitting out until they return (docs/rules.md §9). Buy-in limits do not
    /// apply: the chips were already at the table.
    pub fn restore_seat(
        &mut self,
        seat: u8,
        player: PlayerId,
        name: String,
        stack: Chips,
    ) -> Result<(), TableError> {
        self.seat_player(seat, player, name, stack, SeatStatus::SittingOut)
    }

    fn seat_player(
        &mut self,
        seat: u8,
        player: PlayerId,
        name: String,
        stack: Chips,
        status: SeatStatus,
    ) -> Result<(), TableError> {
        self.check_free(seat, player)?;
        self.seats[seat as usize] = Some(Seat {
            player,
            name,
            stack,
            status,
            missed_big: false,
            missed_small: false,
            hands_sat_out: 0,
            sit_out_next: false,
            leaving: false,
            straddle: false,
            sit_out_at_big_blind: false,
            show_losing: false,
            auto_top_up: None,
            sat_out_broke: false,
        });
        Ok(())
    }

    /// Overwrites a seat's stack between hands: only to make the table agree with what the
    /// database holds after a write whose outcome was unknown.
    pub fn set_stack(&mut self, seat: u8, stack: Chips) -> Result<(), TableError> {
        if self.in_hand(seat) {
            return Err(TableError::HandInProgress);
        }
        self.seat_mut(seat)?.stack = stack;
        Ok(())
    }

    /// Stands a player up between hands without remembering what they owe: one stood up for
    /// sitting out too long comes back as a new player (docs/rules.md §7.6, §7.7).
    pub fn stand_up(&mut self, seat: u8) -> Result<Seat, TableError> {
        if self.in_hand(seat) {
            return Err(TableError::HandInProgress);
        }
        self.seat_mut(seat)?;
        self.seats[seat as usize]
            .take()
            .ok_or(TableError::SeatEmpty(seat))
    }

    /// Takes back a finished hand whose result could not be saved: every stack returns to
    /// what it was when the hand started and the result is forgotten (docs/rules.md §9).
    pub fn undo_finished_hand(&mut self) -> Result<(), TableError> {
        if self.hand_running() {
            return Err(TableError::HandRunning);
        }
        let hand = self.hand.take().ok_or(TableError::NoHand)?;
        for (seat, stack) in hand.starting_stacks() {
            if let Some(Some(s)) = self.seats.get_mut(seat as usize) {
                s.stack = stack;
            }
        }
        Ok(())
    }

    /// Leaves the table. Mid-hand the player is folded when their turn comes.
    pub fn leave(&mut self, seat: u8) -> Result<(Leave, Vec<Event>), TableError> {
        if self.in_hand(seat) && self.hand.as_ref().and_then(|h| h.has_folded(seat)) == Some(false)
        {
            self.seat_mut(seat)?.leaving = true;
            let events = self.fold_absent();
            return Ok((self.take_if_leaving(seat), events));
        }
        let s = self.seat_mut(seat)?;
        let stack = s.stack;
        if self.in_hand(seat) {
            // Folded already: the chips behind are theirs now.
            self.seat_mut(seat)?.leaving = true;
            return Ok((Leave::AfterHand, Vec::new()));
        }
        if let Some(s) = self.seats[seat as usize].take() {
            self.remember_debt(&s);
        }
        Ok((Leave::Now(stack), Vec::new()))
    }

    fn take_if_leaving(&mut self, seat: u8) -> Leave {
        if self.in_hand(seat) {
            return Leave::AfterHand;
        }
        match self.seats[seat as usize].take() {
            Some(s) => {
                self.remember_debt(&s);
                Leave::Now(s.stack)
            }
            None => Leave::Now(0),
        }
    }

    /// Sits out from the next hand (at once between hands).
    pub fn sit_out(&mut self, seat: u8) -> Result<(), TableError> {
        let in_hand = self.in_hand(seat);
        let s = self.seat_mut(seat)?;
        // Sitting out for any reason spends a request to sit out at the big blind (§7.13).
        s.sit_out_at_big_blind = false;
        s.sat_out_broke = false;
        if in_hand {
            s.sit_out_next = true;
        } else {
            s.status = SeatStatus::SittingOut;
        }
        Ok(())
    }

    /// Comes back: plays at once when no blind is owed, otherwise posts what is owed
    /// (`post_now`) or waits for the big blind. Refused with no chips (docs/rules.md §7.7).
    pub fn sit_in(&mut self, seat: u8, post_now: bool) -> Result<(), TableError> {
        // An all-in player has no chips behind but is still in the hand, and may take back
        // a sit-out asked for next hand.
        let in_hand = self.in_hand(seat);
        let s = self.seat_mut(seat)?;
        if s.stack == 0 && !in_hand {
            return Err(TableError::NoChips);
        }
        s.sit_out_next = false;
        s.sat_out_broke = false;
        s.hands_sat_out = 0;
        if s.status == SeatStatus::SittingOut {
            s.status = if s.missed_big || s.missed_small {
                SeatStatus::Waiting { post_now }
            } else {
                SeatStatus::Playing
            };
        }
        Ok(())
    }

    /// Adds chips between hands, up to the maximum buy-in.
    pub fn top_up(&mut self, seat: u8, amount: Chips) -> Result<(), TableError> {
        self.can_top_up(seat, amount)?;
        let s = self.seat_mut(seat)?;
        s.stack += amount;
        Ok(())
    }

    /// Seats sat out for the table's number of hands and not in a hand: to be stood up
    /// (docs/rules.md §7.7). A caller that must move chips first asks this, then `stand_up`.
    pub fn idle_seats(&self) -> Vec<u8> {
        let limit = self.config.max_hands_sat_out;
        self.seats()
            .filter(|&(i, s)| {
                s.status == SeatStatus::SittingOut && s.hands_sat_out >= limit && !self.in_hand(i)
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// Stands up players sat out too long; returns their seats and stacks.
    pub fn stand_up_idle(&mut self) -> Vec<(u8, Seat)> {
        self.idle_seats()
            .into_iter()
            .filter_map(|i| Some((i, self.stand_up(i).ok()?)))
            .collect()
    }

    /// The next occupied seat clockwise after `from` (exclusive) that satisfies `pred`.
    fn next_seat(&self, from: u8, pred: impl Fn(u8, &Seat) -> bool) -> Option<u8> {
        let n = self.seats.len() as u8;
        (1..=n)
            .map(|k| (from + k) % n)
            .find(|&i| self.seats[i as usize].as_ref().is_some_and(|s| pred(i, s)))
    }

    /// Seats strictly between `a` and `b` clockwise.
    fn between(&self, a: u8, b: u8, seat: u8) -> bool {
        let n = self.seats.len() as u16;
        let d = |x: u8| (u16::from(x) + n - u16::from(a)) % n;
        d(seat) > 0 && d(seat) < d(b)
    }

    /// Turns the seat's straddle on or off, from the next hand on.
    pub fn set_straddle(&mut self, seat: u8, on: bool) -> Result<(), TableError> {
        if on && !self.config.straddle {
            return Err(TableError::NoStraddle);
        }
        self.seat_mut(seat)?.straddle = on;
        Ok(())
    }

    /// Sits the player out when the big blind next reaches their seat, or stops that.
    pub fn set_sit_out_at_big_blind(&mut self, seat: u8, on: bool) -> Result<(), TableError> {
        self.seat_mut(seat)?.sit_out_at_big_blind = on;
        Ok(())
    }

    /// Auto-muck on (`show` false, the default) or off: a losing hand at showdown is shown.
    /// Takes effect in the running hand too.
    pub fn set_show_losing(&mut self, seat: u8, show: bool) -> Result<(), TableError> {
        self.seat_mut(seat)?.show_losing = show;
        if let Some(hand) = self.hand.as_mut() {
            hand.set_show_losing(seat, show);
        }
        Ok(())
    }

    /// The stack to top back up to between hands, or none. It must be a stack a buy-in could
    /// bring (docs/rules.md §7.1): the automatic top-up of an empty stack is a rebuy.
    pub fn set_auto_top_up(&mut self, seat: u8, to: Option<Chips>) -> Result<(), TableError> {
        let (min, max) = (self.config.min_buy_in, self.config.max_buy_in);
        if to.is_some_and(|to| !(min..=max).contains(&to)) {
            return Err(TableError::AutoTopUpOutOfRange { min, max });
        }
        self.seat_mut(seat)?.auto_top_up = to;
        Ok(())
    }

    /// The chips an automatic top-up would add to `seat` now: none in a hand, below the
    /// target, or for a player leaving.
    pub fn auto_top_up_due(&self, seat: u8) -> Option<Chips> {
        let s = self.seat(seat)?;
        let to = s.auto_top_up?.min(self.config.max_buy_in);
        (to > s.stack && !s.leaving && !self.in_hand(seat)).then(|| to - s.stack)
    }

    /// Whether the player now in `seat` is the one dealt into the running or last hand there
    /// (a newcomer to a seat between hands is not: the cards there are not theirs).
    pub fn dealt_in(&self, seat: u8) -> bool {
        self.seat(seat)
            .is_some_and(|s| self.dealt.contains(&(seat, s.player)))
    }

    /// The winner of a hand that ended without a showdown turns their cards up after it
    /// (docs/rules.md §6.4): everyone sees them until the next hand is dealt.
    pub fn show_cards(&mut self, seat: u8) -> Result<(), TableError> {
        if self.hand_running() {
            return Err(TableError::HandInProgress);
        }
        if self.dealt_in(seat) && self.hand.as_mut().is_some_and(|h| h.show_uncalled(seat)) {
            Ok(())
        } else {
            Err(TableError::NothingToShow)
        }
    }

    /// The first entrant left of the big blind straddles if they asked to, with more than the
    /// straddle behind, posting nothing else, three or more players dealt in (docs/rules.md
    /// §4.8).
    fn add_straddle(&self, plan: &mut Plan) {
        if !self.config.straddle || plan.entrants.len() < 3 {
            return;
        }
        // Distance clockwise from the big blind: the smallest is the first seat left of it.
        let n = u16::from(self.config.seats);
        let big_blind = u16::from(plan.positions.big_blind);
        let Some(e) = plan
            .entrants
            .iter_mut()
            .filter(|e| e.seat != plan.positions.big_blind)
            .min_by_key(|e| (u16::from(e.seat) + n - big_blind) % n)
        else {
            return;
        };
        let wants = self
            .seat(e.seat)
            .is_some_and(|s| s.straddle && !s.leaving && !s.sit_out_next);
        if wants && e.post == Post::Nothing && e.stack > 2 * self.config.stakes.big_blind {
            e.post = Post::Straddle;
        }
    }

    /// Works out the positions and posts for the next hand, deals it and starts it.
    pub fn start_hand(&mut self, deck: Deck) -> Result<Vec<Event>, TableError> {
        if self.hand_running() {
            return Err(TableError::HandRunning);
        }
        let mut plan = self.plan()?;
        // A player who asked to sit out at their big blind is sat out as it reaches them,
        // before anyone posts, and the big blind moves on as if they had been out already
        // (docs/rules.md §7.13). Each pass sits one seat out, so this ends.
        while let Some(s) = self.seats[plan.positions.big_blind as usize]
            .as_mut()
            .filter(|s| s.sit_out_at_big_blind)
        {
            s.sit_out_at_big_blind = false;
            s.status = SeatStatus::SittingOut;
            plan = self.plan()?;
        }
        self.add_straddle(&mut plan);
        let positions = plan.positions;
        let setup = HandSetup {
            stakes: self.config.stakes,
            button: positions.button,
            big_blind_seat: positions.big_blind,
            entrants: plan.entrants.clone(),
            run_twice: self.config.run_twice,
        };
        let (mut hand, events) = Hand::start(setup, deck)?;
        for e in &plan.entrants {
            if self.seat(e.seat).is_some_and(|s| s.show_losing) {
                hand.set_show_losing(e.seat, true);
            }
        }

        // The plan succeeded: commit seat states.
        let last_bb = self.last.map(|p| p.big_blind);
        for i in 0..self.seats.len() as u8 {
            let dealt = plan.entrants.iter().find(|e| e.seat == i).copied();
            let passed = last_bb.is_some_and(|l| self.between(l, positions.big_blind, i))
                || i == positions.big_blind;
            let Some(s) = self.seats[i as usize].as_mut() else {
                continue;
            };
            match dealt {
                Some(e) => {
                    s.status = SeatStatus::Playing;
                    s.hands_sat_out = 0;
                    // A restart is a new game, and a heads-up hand has no dead blinds (the
                    // player who is not the big blind posts the small one): nothing owed from
                    // before is still owed.
                    if matches!(e.post, Post::BigBlind | Post::BigAndDeadSmall)
                        || i == positions.big_blind
                        || plan.deal == Deal::Restart
                        || plan.entrants.len() == 2
                    {
                        s.missed_big = false;
                        s.missed_small = false;
                    }
                    if e.post == Post::DeadSmallBlind || e.post == Post::SmallBlind {
                        s.missed_small = false;
                    }
                    s.stack = 0; // in the hand now; restored when it ends
                }
                None if s.status == SeatStatus::SittingOut || s.stack == 0 => {
                    s.hands_sat_out += 1;
                    if passed {
                        s.missed_big = true;
                    }
                    if i == plan.small_blind_seat {
                        s.missed_small = true;
                    }
                }
                None => {}
            }
        }
        for d in &mut self.debts {
            d.hands_left = d.hands_left.saturating_sub(1);
        }
        self.debts.retain(|d| d.hands_left > 0);
        self.current = Some(positions);
        self.deal = Some(plan.deal);
        self.dealt = plan
            .entrants
            .iter()
            .filter_map(|e| Some((e.seat, self.seat(e.seat)?.player)))
            .collect();
        self.hand = Some(hand);
        let mut events = events;
        events.extend(self.fold_absent());
        Ok(events)
    }

    /// Seated with chips and not sitting out: the big blind stops here, and a restart deals
    /// this player in.
    fn ready(seat: &Seat) -> bool {
        seat.stack > 0 && seat.status != SeatStatus::SittingOut
    }

    /// Decides positions and entrants without changing anything.
    fn plan(&self) -> Result<Plan, TableError> {
        let ready = |_: u8, s: &Seat| Self::ready(s);
        if self.seats().filter(|(_, s)| Self::ready(s)).count() < 2 {
            return Err(TableError::NotEnoughPlayers);
        }
        let Some(last) = self.last else {
            return self.fresh_plan();
        };
        // Dead button (docs/rules.md §4.4): the big blind moves on one ready seat, the small blind
        // falls on the last big blind's seat and the button on the last small blind's.
        let big_blind = self
            .next_seat(last.big_blind, ready)
            .ok_or(TableError::NotEnoughPlayers)?;
        let small_blind = last.big_blind;
        let n = self.seats.len() as u8;
        let moved_normally = (big_blind == last.button
            || self.between(last.big_blind, last.button, big_blind))
            && big_blind != last.small_blind;
        let button = if moved_normally {
            last.small_blind
        } else {
            // The big blind had to move past the button (everyone from the last big blind
            // round to the button left or sat out): the button sits just before the small
            // blind, so the order button, small blind, big blind still holds.
            (small_blind + n - 1) % n
        };
        let positions = Positions {
            button,
            small_blind,
            big_blind,
        };
        let next_big_blind = self.next_seat(big_blind, ready);
        let mut entrants: Vec<Entrant> = Vec::new();
        for (i, s) in self.seats() {
            if !Self::ready(s) {
                continue;
            }
            let post = match s.status {
                _ if i == big_blind => Post::BigBlind,
                SeatStatus::Playing if i == small_blind => Post::SmallBlind,
                SeatStatus::Playing | SeatStatus::SittingOut => Post::Nothing,
                SeatStatus::Waiting { post_now } => {
                    // A newcomer, or a player back with blinds owed, comes in before the big
                    // blind reaches them only by posting, and never from the button, the small
                    // blind or between them and the big blind: they wait for the button to pass
                    // (docs/rules.md §7.3). From the seat that is next hand's big blind they wait one
                    // hand rather than post a big blind twice in a row (§7.4).
                    if !post_now
                        || i == button
                        || i == small_blind
                        || self.between(button, big_blind, i)
                        || Some(i) == next_big_blind
                    {
                        continue;
                    }
                    match (s.missed_big, s.missed_small) {
                        (true, _) => Post::BigAndDeadSmall,
                        (false, true) => Post::DeadSmallBlind,
                        (false, false) => Post::BigBlind,
                    }
                }
            };
            entrants.push(Entrant {
                seat: i,
                stack: s.stack,
                post,
            });
        }
        if entrants.len() >= 2 {
            return Ok(self.heads_up(positions, entrants, Deal::Positional));
        }
        // Nobody can come in by position, yet two or more players are ready: restart the game
        // rather than stop dealing for ever (docs/rules.md §7.11, §7.12).
        let entrants = self.everyone_ready(small_blind, big_blind);
        Ok(self.heads_up(positions, entrants, Deal::Restart))
    }

    /// The table's first hand: the button on the first ready seat, the blinds on the next two.
    fn fresh_plan(&self) -> Result<Plan, TableError> {
        let ready = |_: u8, s: &Seat| Self::ready(s);
        let n = self.seats.len() as u8;
        let first = self
            .next_seat(n - 1, ready)
            .ok_or(TableError::NotEnoughPlayers)?;
        let second = self
            .next_seat(first, ready)
            .ok_or(TableError::NotEnoughPlayers)?;
        let third = self
            .next_seat(second, ready)
            .ok_or(TableError::NotEnoughPlayers)?;
        let positions = if third == first {
            Positions {
                button: first,
                small_blind: first,
                big_blind: second,
            }
        } else {
            Positions {
                button: first,
                small_blind: second,
                big_blind: third,
            }
        };
        let entrants = self.everyone_ready(positions.small_blind, positions.big_blind);
        Ok(self.heads_up(positions, entrants, Deal::Fresh))
    }

    /// Every ready player, the two blinds posting and nobody else.
    fn everyone_ready(&self, small_blind: u8, big_blind: u8) -> Vec<Entrant> {
        self.seats()
            .filter(|(_, s)| Self::ready(s))
            .map(|(i, s)| Entrant {
                seat: i,
                stack: s.stack,
                post: if i == big_blind {
                    Post::BigBlind
                } else if i == small_blind {
                    Post::SmallBlind
                } else {
                    Post::Nothing
                },
            })
            .collect()
    }

    /// Heads-up the player who is not the big blind has the button and posts the small blind
    /// (docs/rules.md §4.3); the dead-button small blind seat is kept for missed blinds.
    fn heads_up(&self, positions: Positions, mut entrants: Vec<Entrant>, deal: Deal) -> Plan {
        let small_blind_seat = positions.small_blind;
        let other = match entrants.as_slice() {
            [a, b] if a.seat == positions.big_blind => Some(b.seat),
            [a, b] if b.seat == positions.big_blind => Some(a.seat),
            _ => None,
        };
        let Some(other) = other else {
            return Plan {
                positions,
                small_blind_seat,
                entrants,
                deal,
            };
        };
        for e in entrants.iter_mut() {
            if e.seat == other {
                e.post = Post::SmallBlind;
            }
        }
        Plan {
            positions: Positions {
                button: other,
                small_blind: other,
                big_blind: positions.big_blind,
            },
            small_blind_seat,
            entrants,
            deal,
        }
    }

    /// A player's action in the running hand.
    pub fn act(&mut self, seat: u8, action: Action) -> Result<Vec<Event>, ActionError> {
        let hand = self.hand.as_mut().ok_or(ActionError::HandOver)?;
        let mut events = hand.act(seat, action)?;
        events.extend(self.fold_absent());
        self.finish_if_over();
        Ok(events)
    }

    /// The clock ran out for `seat`: check if allowed, otherwise fold; sit out next hand.
    pub fn time_out(&mut self, seat: u8) -> Result<Vec<Event>, ActionError> {
        let legal = self
            .hand
            .as_ref()
            .and_then(Hand::legal)
            .ok_or(ActionError::HandOver)?;
        if legal.seat != seat {
            return Err(ActionError::NotYourTurn {
                expected: legal.seat,
                got: seat,
            });
        }
        if let Some(Some(s)) = self.seats.get_mut(seat as usize) {
            s.sit_out_next = true;
        }
        let action = if legal.can_check {
            Action::Check
        } else {
            Action::Fold
        };
        self.act(seat, action)
    }

    /// Folds (or checks) for players who left mid-hand when their turn comes.
    fn fold_absent(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        while let Some(hand) = self.hand.as_mut()
            && let Some(legal) = hand.legal()
            && self.seats[legal.seat as usize]
                .as_ref()
                .is_some_and(|s| s.leaving)
        {
            let action = if legal.can_check {
                Action::Check
            } else {
                Action::Fold
            };
            match hand.act(legal.seat, action) {
                Ok(e) => events.extend(e),
                Err(_) => break,
            }
        }
        self.finish_if_over();
        events
    }

    /// Once the hand is over, stacks go back to the seats and deferred requests take effect.
    fn finish_if_over(&mut self) {
        if self.current.is_none() {
            return; // already applied
        }
        let Some(result) = self.hand.as_ref().and_then(|h| h.result()).cloned() else {
            return;
        };
        self.apply_result(&result);
    }

    fn apply_result(&mut self, result: &HandResult) {
        for &(seat, stack) in &result.stacks {
            if let Some(Some(s)) = self.seats.get_mut(seat as usize) {
                s.stack = stack;
            }
        }
        self.end_hand();
    }

    fn end_hand(&mut self) {
        if let Some(p) = self.current.take() {
            self.last = Some(p);
        }
        // The finished hand stays for the table view (results, shown cards) until the next.
        for s in self.seats.iter_mut().flatten() {
            if s.sit_out_next || s.stack == 0 {
                // Only the broke, not those who asked to sit out (or ran out of time), may be
                // sat back in by an automatic rebuy (§7.15).
                s.sat_out_broke = s.stack == 0 && !s.sit_out_next;
                s.status = SeatStatus::SittingOut;
                s.sit_out_next = false;
                s.sit_out_at_big_blind = false;
            }
        }
    }

    /// Seats that asked to leave during the hand; the server returns their stacks.
    pub fn take_leavers(&mut self) -> Vec<(u8, Seat)> {
        let mut gone = Vec::new();
        for i in 0..self.seats.len() {
            if self.in_hand(i as u8) {
                continue;
            }
            if self.seats[i].as_ref().is_some_and(|s| s.leaving)
                && let Some(s) = self.seats[i].take()
            {
                self.remember_debt(&s);
                gone.push((i as u8, s));
            }
        }
        gone
    }

    /// Abandons the running hand: every stack goes back to what it was when the hand started
    /// (docs/rules.md §9), and the hand's players are sat out until they return.
    pub fn void_hand(&mut self) -> Result<(), TableError> {
        if !self.hand_running() {
            return Err(TableError::NoHand);
        }
        let hand = self.hand.take().ok_or(TableError::NoHand)?;
        for (seat, stack) in hand.starting_stacks() {
            if let Some(Some(s)) = self.seats.get_mut(seat as usize) {
                s.stack = stack;
                s.status = SeatStatus::SittingOut;
            }
        }
        // The void hand does not move the button.
        self.current = None;
        Ok(())
    }
}
