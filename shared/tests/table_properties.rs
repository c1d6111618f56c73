//! The table under random seat churn (docs/rules.md §4, §7, §8): random sequences of sitting down
//! (posting now or waiting), leaving, sitting out and in, topping up, clock expiry, starting
//! hands and random legal actions, for 2-10 seats and all three structures. After every step:
//! no chip created or lost, the big blind moves exactly one ready seat per hand and nobody
//! posts it twice in a row, newcomers come in only as the rules allow, a table with two ready
//! players always deals, and blinds owed survive leaving and sitting down again.
//!
//! `SCOOP_TABLE_CASES` sets the number of cases (default 2000; the test command also runs 50,000 in release mode).

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a failed unwrap is a failed test

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shared::hand::{Action, BlindKind, Event};
use shared::rules::Rake;
use shared::table::{Deal, Leave, PlayerId, SeatStatus, Table, TableConfig, TableError};
use shared::{Chips, Deck, Stakes, Structure};

#[derive(Clone, Debug)]
enum Op {
    Sit {
        seat: u8,
        player: u8,
        buy_in_pct: u8,
        post_now: bool,
    },
    Leave {
        seat: u8,
    },
    SitOut {
        seat: u8,
    },
    /// The last big blind sits out: the small blind then falls on an empty-handed seat.
    SitOutBigBlind,
    SitIn {
        seat: u8,
        post_now: bool,
    },
    TopUp {
        seat: u8,
        pct: u8,
    },
    /// Sit out when the big blind next comes (docs/rules.md §7.13), or stop asking.
    SitOutAtBigBlind {
        seat: u8,
        on: bool,
    },
    /// Auto-muck off or on (§6.5), and the uncalled winner's show (§6.4): no chip moves.
    ShowLosing {
        seat: u8,
        on: bool,
    },
    Show {
        seat: u8,
    },
    TimeOut,
    Start,
    Act,
    /// Random actions until the running hand is over.
    PlayOut,
    /// Everyone to act folds (or checks when free): walks, including ones with dead money.
    FoldAround,
    StandUpIdle,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u8..10, 0u8..14, 0u8..=100, any::<bool>()).prop_map(|(seat, player, buy_in_pct, post_now)| Op::Sit { seat, player, buy_in_pct, post_now }),
        1 => (0u8..10).prop_map(|seat| Op::Leave { seat }),
        1 => (0u8..10).prop_map(|seat| Op::SitOut { seat }),
        1 => Just(Op::SitOutBigBlind),
        2 => (0u8..10, any::<bool>()).prop_map(|(seat, post_now)| Op::SitIn { seat, post_now }),
        1 => (0u8..10, 1u8..=100).prop_map(|(seat, pct)| Op::TopUp { seat, pct }),
        1 => Just(Op::TimeOut),
        1 => (0u8..10, any::<bool>()).prop_map(|(seat, on)| Op::SitOutAtBigBlind { seat, on }),
        1 => (0u8..10, any::<bool>()).prop_map(|(seat, on)| Op::ShowLosing { seat, on }),
        1 => (0u8..10).prop_map(|seat| Op::Show { seat }),
        5 => Just(Op::Start),
        8 => Just(Op::Act),
        3 => Just(Op::PlayOut),
        2 => Just(Op::FoldAround),
        1 => Just(Op::StandUpIdle),
    ]
}

#[derive(Clone, Debug)]
struct Case {
    structure: Structure,
    seats: u8,
    rake: bool,
    max_hands_sat_out: u32,
    seed: u64,
    ops: Vec<Op>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop_oneof![
            Just(Structure::FixedLimit),
            Just(Structure::PotLimit),
            Just(Structure::NoLimit)
        ],
        2u8..=10,
        any::<bool>(),
        1u32..=6,
        any::<u64>(),
        prop::collection::vec(op(), 20..300),
    )
        .prop_map(
            |(structure, seats, rake, max_hands_sat_out, seed, ops)| Case {
                structure,
                seats,
                rake,
                max_hands_sat_out,
                seed,
                ops,
            },
        )
}

/// What the cases reached, so that a generator gone blind fails the test instead of passing it.
static HANDS: AtomicU64 = AtomicU64::new(0);
static RESTARTS: AtomicU64 = AtomicU64::new(0);
static DEBTS_CARRIED: AtomicU64 = AtomicU64::new(0);
static NEWCOMERS_POSTING: AtomicU64 = AtomicU64::new(0);
static SHOWDOWNS: AtomicU64 = AtomicU64::new(0);
static DEAD_SMALL_WALKS: AtomicU64 = AtomicU64::new(0);
static MISSED_BLINDS: AtomicU64 = AtomicU64::new(0);

/// What the test knows from outside the table.
struct Model {
    table: Table,
    rng: ChaCha8Rng,
    /// Chips brought to the table (buy-ins and top-ups) and taken away (leaves, stand-ups, rake).
    brought: Chips,
    taken: Chips,
    /// The player who posted the positional big blind last hand, and the seat.
    last_big_blind: Option<(u8, PlayerId)>,
    /// Players who sat down since the last hand was dealt.
    sat_since_last_hand: BTreeSet<PlayerId>,
    /// Debts of players who left: (missed big, missed small, hands dealt since).
    left_owing: BTreeMap<PlayerId, (bool, bool, u32)>,
    hands: u32,
    /// The running hand has a dead small blind in it.
    dead_small_posted: bool,
}

fn ready(t: &Table) -> Vec<u8> {
    t.seats()
        .filter(|(_, s)| s.stack > 0 && s.status != SeatStatus::SittingOut)
        .map(|(i, _)| i)
        .collect()
}

/// The first seat of `ready` clockwise after `from` (exclusive).
fn next_after(seats: u8, from: u8, ready: &[u8]) -> Option<u8> {
    (1..=seats)
        .map(|k| (from + k) % seats)
        .find(|s| ready.contains(s))
}

fn between(seats: u8, a: u8, b: u8, x: u8) -> bool {
    let d = |v: u8| (u16::from(v) + u16::from(seats) - u16::from(a)) % u16::from(seats);
    d(x) > 0 && d(x) < d(b)
}

impl Model {
    fn new(c: &Case) -> Model {
        let mut stakes = match c.structure {
            Structure::FixedLimit => Stakes::fixed_limit(10),
            Structure::PotLimit => Stakes::pot_limit(5, 10),
            Structure::NoLimit => Stakes::no_limit(5, 10),
        };
        if c.rake {
            stakes.rake = Some(Rake {
                basis_points: 500,
                cap: 30,
            });
        }
        let mut config = TableConfig::new(stakes, c.seats);
        config.max_hands_sat_out = c.max_hands_sat_out;
        Model {
            table: Table::new(config).expect("valid config"),
            rng: ChaCha8Rng::seed_from_u64(c.seed),
            brought: 0,
            taken: 0,
            last_big_blind: None,
            sat_since_last_hand: BTreeSet::new(),
            left_owing: BTreeMap::new(),
            hands: 0,
            dead_small_posted: false,
        }
    }

    fn note_events(&mut self, events: &[Event]) {
        for e in events {
            match e {
                Event::RakeTaken { amount, .. } => self.taken += amount,
                Event::Shown { .. } => {
                    SHOWDOWNS.fetch_add(1, Ordering::Relaxed);
                }
                Event::HandEnded { .. }
                    if self.table.hand().is_some_and(|h| h.board().is_empty())
                        && self.dead_small_posted =>
                {
                    DEAD_SMALL_WALKS.fetch_add(1, Ordering::Relaxed);
                }
                _ => {}
            }
        }
    }

    fn note_gone(&mut self, player: PlayerId, stack: Chips, missed: (bool, bool)) {
        self.taken += stack;
        if missed.0 || missed.1 {
            self.left_owing.insert(player, (missed.0, missed.1, 0));
        } else {
            self.left_owing.remove(&player);
        }
    }

    fn apply(&mut self, op: &Op) -> Result<(), TestCaseError> {
        let seats = self.table.config().seats;
        match *op {
            Op::Sit {
                seat,
                player,
                buy_in_pct,
                post_now,
            } => {
                let seat = seat % seats;
                let (min, max) = (
                    self.table.config().min_buy_in,
                    self.table.config().max_buy_in,
                );
                let buy_in = min + (max - min) * Chips::from(buy_in_pct) / 100;
                let id = PlayerId(u128::from(player));
                if self
                    .table
                    .sit(seat, id, format!("p{player}"), buy_in, post_now)
                    .is_ok()
                {
                    self.brought += buy_in;
                    self.sat_since_last_hand.insert(id);
                    // No one escapes a blind by changing seats (docs/rules.md §7.6).
                    if let Some((big, small, hands)) = self.left_owing.remove(&id) {
                        let s = self.table.seat(seat).expect("just seated");
                        if hands < self.table.config().max_hands_sat_out {
                            DEBTS_CARRIED.fetch_add(1, Ordering::Relaxed);
                            prop_assert_eq!(
                                (s.missed_big, s.missed_small),
                                (big, small),
                                "debts lost by sitting down again"
                            );
                        }
                    }
                }
            }
            Op::Leave { seat } => {
                let seat = seat % seats;
                let Some(s) = self.table.seat(seat).cloned() else {
                    prop_assert!(self.table.leave(seat).is_err());
                    return Ok(());
                };
                let (leave, events) = self
                    .table
                    .leave(seat)
                    .map_err(|e| TestCaseError::fail(format!("leave refused: {e}")))?;
                self.note_events(&events);
                if let Leave::Now(stack) = leave {
                    self.note_gone(s.player, stack, (s.missed_big, s.missed_small));
                }
                self.collect_leavers();
            }
            Op::SitOut { seat } => {
                let _ = self.table.sit_out(seat % seats);
            }
            Op::SitOutBigBlind => {
                if let Some(p) = self.table.positions() {
                    let _ = self.table.sit_out(p.big_blind);
                }
            }
            Op::SitIn { seat, post_now } => {
                let _ = self.table.sit_in(seat % seats, post_now);
            }
            Op::TopUp { seat, pct } => {
                let seat = seat % seats;
                let max = self.table.config().max_buy_in;
                let amount = max * Chips::from(pct) / 100;
                if self.table.top_up(seat, amount).is_ok() {
                    self.brought += amount;
                }
            }
            Op::SitOutAtBigBlind { seat, on } => {
                let _ = self.table.set_sit_out_at_big_blind(seat % seats, on);
            }
            Op::ShowLosing { seat, on } => {
                let _ = self.table.set_show_losing(seat % seats, on);
            }
            Op::Show { seat } => {
                let _ = self.table.show_cards(seat % seats);
            }
            Op::TimeOut => {
                if let Some(seat) = self.table.hand().and_then(|h| h.to_act()) {
                    let events = self
                        .table
                        .time_out(seat)
                        .map_err(|e| TestCaseError::fail(format!("time-out refused: {e}")))?;
                    self.note_events(&events);
                    self.collect_leavers();
                }
            }
            Op::Start => self.start()?,
            Op::Act => self.act()?,
            Op::FoldAround => {
                while let Some(legal) = self.table.hand().and_then(|h| h.legal()) {
                    let action = if legal.can_check {
                        Action::Check
                    } else {
                        Action::Fold
                    };
                    self.apply_action(legal.seat, action)?;
                    self.check_conservation()?;
                }
            }
            Op::PlayOut => {
                while self.table.hand_running() {
                    self.act()?;
                    self.check_conservation()?;
                }
            }
            Op::StandUpIdle => {
                if !self.table.hand_running() {
                    for (_, s) in self.table.stand_up_idle() {
                        self.taken += s.stack;
                        // Stood up after the limit: the table no longer remembers debts.
                        self.left_owing.remove(&s.player);
                    }
                }
            }
        }
        self.check_conservation()
    }

    fn collect_leavers(&mut self) {
        if self.table.hand_running() {
            return;
        }
        for (_, s) in self.table.take_leavers() {
            self.note_gone(s.player, s.stack, (s.missed_big, s.missed_small));
        }
    }

    fn act(&mut self) -> Result<(), TestCaseError> {
        let Some(legal) = self.table.hand().and_then(|h| h.legal()) else {
            return Ok(());
        };
        let roll = self.rng.random_range(0..10);
        let action = match (roll, legal.raise) {
            (0, _) if !legal.can_check => Action::Fold,
            (1..=3, Ok(b)) => Action::RaiseTo {
                to: self.rng.random_range(b.min_to..=b.max_to),
            },
            _ if legal.can_check => Action::Check,
            _ => Action::Call,
        };
        self.apply_action(legal.seat, action)
    }

    /// A legal action: the table must take it.
    fn apply_action(&mut self, seat: u8, action: Action) -> Result<(), TestCaseError> {
        let events = self
            .table
            .act(seat, action)
            .map_err(|e| TestCaseError::fail(format!("{action:?} refused: {e}")))?;
        self.note_events(&events);
        self.collect_leavers();
        Ok(())
    }

    fn start(&mut self) -> Result<(), TestCaseError> {
        if self.table.hand_running() {
            prop_assert_eq!(
                self.table.start_hand(Deck::ordered()).err(),
                Some(TableError::HandRunning)
            );
            return Ok(());
        }
        let seats = self.table.config().seats;
        let ready = ready(&self.table);
        // A seat that asked to sit out at its big blind is passed over by it (§7.13).
        let takes_big_blind: Vec<u8> = ready
            .iter()
            .copied()
            .filter(|&i| self.table.seat(i).is_some_and(|s| !s.sit_out_at_big_blind))
            .collect();
        let before: BTreeMap<u8, (PlayerId, SeatStatus)> = self
            .table
            .seats()
            .map(|(i, s)| (i, (s.player, s.status)))
            .collect();
        let last = self.table.positions();
        let deck = Deck::shuffled(&mut self.rng);
        let events = match self.table.start_hand(deck) {
            Ok(events) => events,
            Err(e) => {
                // Liveness: two ready players always get a hand (counted after those who sat
                // out at their big blind).
                let left = self::ready(&self.table).len();
                prop_assert!(left < 2, "{left} ready, yet: {e}");
                prop_assert_eq!(e, TableError::NotEnoughPlayers);
                return Ok(());
            }
        };
        prop_assert!(ready.len() >= 2, "dealt with {} ready", ready.len());
        self.dead_small_posted = events.iter().any(|e| {
            matches!(
                e,
                Event::BlindPosted {
                    blind: BlindKind::DeadSmall,
                    ..
                }
            )
        });
        self.note_events(&events);
        self.hands += 1;
        HANDS.fetch_add(1, Ordering::Relaxed);
        for debt in self.left_owing.values_mut() {
            debt.2 += 1;
        }
        let p = self.table.positions().expect("a hand is running");
        let deal = self.table.deal().expect("a hand is running");
        let player_at = |seat: u8| before.get(&seat).map(|b| b.0);
        if deal == Deal::Restart {
            RESTARTS.fetch_add(1, Ordering::Relaxed);
        }

        // The big blind moves exactly one ready seat.
        if let Some(last) = last {
            prop_assert_eq!(
                Some(p.big_blind),
                next_after(seats, last.big_blind, &takes_big_blind)
            );
            prop_assert!(deal != Deal::Fresh);
            // Sat-out seats the big blind passed have missed it; the sat-out seat the small
            // blind fell on (the last big blind's, heads-up too) has missed that (§7.5).
            for (&seat, &(_, status)) in &before {
                if status != SeatStatus::SittingOut {
                    continue;
                }
                let Some(s) = self.table.seat(seat) else {
                    continue;
                };
                if between(seats, last.big_blind, p.big_blind, seat) {
                    prop_assert!(s.missed_big, "seat {seat} missed the big blind: {p:?}");
                    MISSED_BLINDS.fetch_add(1, Ordering::Relaxed);
                }
                if seat == last.big_blind {
                    prop_assert!(s.missed_small, "seat {seat} missed the small blind");
                    MISSED_BLINDS.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        // Nobody posts the positional big blind twice in a row without having sat down anew.
        let bb_player = player_at(p.big_blind).expect("the big blind is seated");
        if let Some((_, last_player)) = self.last_big_blind {
            prop_assert!(
                bb_player != last_player || self.sat_since_last_hand.contains(&bb_player),
                "{bb_player:?} posts the big blind twice in a row"
            );
        }
        self.last_big_blind = Some((p.big_blind, bb_player));
        self.sat_since_last_hand.clear();

        let posted: Vec<(u8, BlindKind)> = events
            .iter()
            .filter_map(|e| match e {
                Event::BlindPosted { seat, blind, .. } => Some((*seat, *blind)),
                _ => None,
            })
            .collect();
        let dealt: Vec<u8> = events
            .iter()
            .filter_map(|e| match e {
                Event::HoleCards { seat, .. } => Some(*seat),
                _ => None,
            })
            .collect();
        prop_assert!(posted.contains(&(p.big_blind, BlindKind::Big)));
        // Clockwise: button, small blind, big blind (one seat for the first two heads-up).
        if p.button != p.small_blind {
            prop_assert!(
                between(seats, p.button, p.big_blind, p.small_blind),
                "positions out of order: {p:?}"
            );
        }
        // One small blind, posted from the small blind's seat when that seat is dealt in.
        let smalls: Vec<u8> = posted
            .iter()
            .filter(|(_, b)| *b == BlindKind::Small)
            .map(|(s, _)| *s)
            .collect();
        if dealt.contains(&p.small_blind) {
            prop_assert_eq!(smalls, vec![p.small_blind]);
        } else {
            prop_assert!(smalls.is_empty(), "{smalls:?} posted a small blind");
        }
        // Players who were waiting come in by position only as the rules allow.
        if deal == Deal::Positional && dealt.len() > 2 {
            for &seat in &dealt {
                let was_waiting =
                    matches!(before.get(&seat), Some((_, SeatStatus::Waiting { .. })));
                if !was_waiting || seat == p.big_blind {
                    continue;
                }
                prop_assert!(
                    seat != p.button
                        && seat != p.small_blind
                        && !between(seats, p.button, p.big_blind, seat),
                    "waiting seat {seat} dealt in between the button and the big blind: {p:?}"
                );
                prop_assert!(
                    posted.contains(&(seat, BlindKind::Big))
                        || posted.contains(&(seat, BlindKind::DeadSmall)),
                    "waiting seat {seat} dealt in without posting"
                );
                // From the seat that is next hand's big blind they would post twice in a row.
                prop_assert_ne!(
                    Some(seat),
                    next_after(seats, p.big_blind, &ready),
                    "waiting seat {} posts now and is next hand's big blind",
                    seat
                );
                NEWCOMERS_POSTING.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    fn check_conservation(&self) -> Result<(), TestCaseError> {
        prop_assert_eq!(
            self.table.chips_on_table() + self.taken,
            self.brought,
            "chips created or lost"
        );
        Ok(())
    }
}

fn run(c: &Case) -> Result<(), TestCaseError> {
    let mut m = Model::new(c);
    for op in &c.ops {
        m.apply(op)?;
    }
    // Play on until no hand can start: every hand ends, and liveness holds to the end.
    for _ in 0..2000 {
        if m.table.hand_running() {
            m.act()?;
        } else {
            break;
        }
        m.check_conservation()?;
    }
    prop_assert!(!m.table.hand_running(), "a hand never ended");
    Ok(())
}

#[test]
fn table_keeps_every_chip_moves_the_big_blind_and_never_freezes_under_seat_churn() {
    let cases = std::env::var("SCOOP_TABLE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    if let Err(e) = runner.run(&case(), |c| run(&c)) {
        panic!("{e}");
    }
    let reached = [
        ("hands", HANDS.load(Ordering::Relaxed)),
        ("restarts", RESTARTS.load(Ordering::Relaxed)),
        (
            "debts carried to a new seat",
            DEBTS_CARRIED.load(Ordering::Relaxed),
        ),
        (
            "newcomers posting",
            NEWCOMERS_POSTING.load(Ordering::Relaxed),
        ),
        ("hands shown", SHOWDOWNS.load(Ordering::Relaxed)),
        (
            "missed blinds marked",
            MISSED_BLINDS.load(Ordering::Relaxed),
        ),
        (
            "hands ended preflop with a dead small blind",
            DEAD_SMALL_WALKS.load(Ordering::Relaxed),
        ),
    ];
    eprintln!("{cases} cases reached {reached:?}");
    for (what, count) in reached {
        assert!(count > 0, "no case reached any {what}: {reached:?}");
    }
}
