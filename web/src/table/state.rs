//! One watched table as this client knows it: the server's latest view plus what the view
//! alone does not say (the hand log, chat, who won what at the showdown).

use shared::eval::{HighValue, LowValue};
use shared::format::{BoardValues, Event, HandEquity, Share};
use shared::patch::ViewPatch;
use shared::protocol::{
    Clock, ErrorCode, SeatRequest, ServerMessage, TableId, TableView, ViewEvent,
};
use shared::rules::Chips;

/// Log lines kept; older ones scroll away.
const LOG_LINES: usize = 200;
const CHAT_LINES: usize = 100;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    pub hand: u64,
    pub event: ViewEvent,
    /// The name of the seat the event is about, as it was when it happened.
    pub name: String,
    /// For an event about several seats (equity), their names in the event's order.
    pub names: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Award {
    pub pot: usize,
    pub seat: u8,
    pub amount: Chips,
    pub share: Share,
    /// Paid from the pot's half for the second board of a hand run twice.
    pub second_run: bool,
    /// The winner's name as the award was made (empty where nobody noted it): a winner who
    /// leaves straight after the showdown stays named on the banner.
    pub name: String,
}

/// A hand shown down: its values on the board, and on the second board of a hand run twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shown {
    pub seat: u8,
    pub high: HighValue,
    pub low: Option<LowValue>,
    pub second: Option<BoardValues>,
}

/// The showdown of the last hand, shown until the next one starts; before it, during an
/// all-in run-out, each face-up hand's equity with the board so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Showdown {
    pub shown: Vec<Shown>,
    pub awards: Vec<Award>,
    pub equity: Vec<HandEquity>,
}

impl Showdown {
    /// Follows one event of a hand (the live table and the replayer share this).
    pub fn follow(&mut self, event: &Event) {
        match event {
            Event::HandStarted { .. } => *self = Showdown::default(),
            Event::Shown {
                seat,
                high,
                low,
                second,
                ..
            } => self.shown.push(Shown {
                seat: *seat,
                high: *high,
                low: *low,
                second: *second,
            }),
            Event::PotAwarded {
                pot,
                seat,
                amount,
                share,
                second_run,
            } => self.awards.push(Award {
                pot: *pot,
                seat: *seat,
                amount: *amount,
                share: *share,
                second_run: *second_run,
                name: String::new(),
            }),
            // A new street makes the last equity stale; the server's next one follows it.
            Event::BoardDealt { .. } | Event::SecondRunDealt { .. } => self.equity.clear(),
            Event::Equity { hands, .. } => self.equity = hands.clone(),
            _ => {}
        }
    }
}

/// Time each street of an all-in run-out stays on screen before the next card comes.
pub const RUN_OUT_STEP_MS: f64 = 1_000.0;

/// One step of a run-out: how much of each board is on screen, and each hand's equity then.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// Board cards shown.
    pub board: usize,
    /// Cards of the second board (run it twice) shown, none until the first run is out.
    pub second: usize,
    pub equity: Vec<HandEquity>,
}

/// An all-in run-out arrives in one message (the engine deals it at once); the table shows it
/// a street at a time, with each hand's equity, then the showdown. A hand run twice deals the
/// second run a street at a time once the first is out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOut {
    /// `Date.now()` when it arrived.
    pub started: u64,
    /// The steps before the showdown.
    pub steps: Vec<Step>,
    /// What each seat won, held back from its stack until the showdown is shown.
    pub won: Vec<(u8, Chips)>,
}

impl RunOut {
    /// The run-out in a message's events, if there is one. `board` and `second_board` are
    /// the boards' sizes at the end, `at` the time (`Date.now()`).
    fn find(events: &[ViewEvent], board: usize, second_board: usize, at: f64) -> Option<RunOut> {
        let public = || {
            events.iter().filter_map(|e| match e {
                ViewEvent::Public(e) => Some(e),
                ViewEvent::Dealt(_) => None,
            })
        };
        let dealt = |second: bool| -> usize {
            public()
                .map(|e| match e {
                    Event::BoardDealt { cards, .. } if !second => cards.len(),
                    Event::SecondRunDealt { cards, .. } if second => cards.len(),
                    _ => 0,
                })
                .sum()
        };
        let mut shown = board.checked_sub(dealt(false))?;
        // The second board starts with the cards both runs share.
        let second_run = dealt(true);
        let mut second = second_board.saturating_sub(second_run);
        let mut steps: Vec<Step> = Vec::new();
        let mut face_up = false;
        let mut won: Vec<(u8, Chips)> = Vec::new();
        let new_step = |board, second| Step {
            board,
            second,
            equity: Vec::new(),
        };
        for e in public() {
            match e {
                Event::HandsFaceUp { .. } => {
                    face_up = true;
                    steps.push(new_step(shown, 0));
                }
                Event::BoardDealt { cards, .. } => {
                    shown += cards.len();
                    if face_up && shown < 5 {
                        steps.push(new_step(shown, 0));
                    } else if face_up && second_run > 0 {
                        // The first run is out: the second board begins.
                        steps.push(new_step(shown, second));
                    }
                }
                Event::SecondRunDealt { cards, .. } => {
                    second += cards.len();
                    if face_up && second < 5 {
                        steps.push(new_step(shown, second));
                    }
                }
                Event::Equity { hands, .. } => {
                    if let Some(step) = steps.last_mut() {
                        step.equity = hands.clone();
                    }
                }
                Event::PotAwarded { seat, amount, .. } => {
                    match won.iter_mut().find(|w| w.0 == *seat) {
                        Some(w) => w.1 += amount,
                        None => won.push((*seat, *amount)),
                    }
                }
                _ => {}
            }
        }
        // Only a run-out that deals something is worth pacing.
        (face_up && shown > steps.first()?.board).then_some(RunOut {
            started: at as u64,
            steps,
            won,
        })
    }

    /// The step on screen at `at` (`Date.now()`), `None` once the showdown is.
    pub fn step(&self, at: f64) -> Option<usize> {
        let step = ((at - self.started as f64) / RUN_OUT_STEP_MS).max(0.0) as usize;
        (step < self.steps.len()).then_some(step)
    }

    /// `view` as it stood at `step`: the boards so far, the stacks before the awards.
    pub fn view_at(&self, step: usize, view: &TableView) -> TableView {
        let mut view = view.clone();
        if let Some(step) = self.steps.get(step) {
            view.board.truncate(step.board);
            view.second_board.truncate(step.second);
        }
        for seat in view.seats.iter_mut().flatten() {
            if let Some(&(_, won)) = self.won.iter().find(|w| w.0 == seat.seat) {
                seat.stack = seat.stack.saturating_sub(won);
            }
        }
        view
    }

    pub fn showdown_at(&self, step: usize) -> Showdown {
        Showdown {
            equity: self
                .steps
                .get(step)
                .map(|s| s.equity.clone())
                .unwrap_or_default(),
            ..Showdown::default()
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TableState {
    pub id: TableId,
    pub seq: u64,
    pub view: Option<TableView>,
    /// The `seq` of the message that brought `view`: a change the server measured from an
    /// earlier or equal one applies to it.
    view_seq: u64,
    /// A snapshot has been asked for since a change did not apply: until it comes, later
    /// changes are dropped without asking again.
    awaiting_snapshot: bool,
    pub clock: Option<Clock>,
    /// `Date.now()` when `clock` arrived: the clock counts down from there.
    pub clock_at: f64,
    /// The longest decision clock seen: the table's clock, learnt from the server.
    pub decision_ms: u64,
    pub log: Vec<LogEntry>,
    pub chat: Vec<ChatLine>,
    pub showdown: Showdown,
    /// An all-in run-out being shown street by street.
    pub run_out: Option<RunOut>,
    pub error: Option<(ErrorCode, String)>,
    /// The host's panel (sent to the host only): the invite's token and the seats asked for.
    pub host_panel: Option<HostPanel>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatLine {
    pub from: String,
    pub text: String,
    /// When the server took it (milliseconds since the Unix epoch), if it said.
    pub at: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostPanel {
    pub invite: Option<String>,
    pub pending: Vec<SeatRequest>,
}

pub fn event_seat(event: &ViewEvent) -> Option<u8> {
    match event {
        ViewEvent::Dealt(d) => Some(d.seat),
        ViewEvent::Public(e) => match e {
            Event::BlindPosted { seat, .. }
            | Event::HoleCards { seat, .. }
            | Event::Acted { seat, .. }
            | Event::UncalledBetReturned { seat, .. }
            | Event::Shown { seat, .. }
            | Event::Mucked { seat }
            | Event::PotAwarded { seat, .. } => Some(*seat),
            _ => None,
        },
    }
}

fn now() -> f64 {
    // The unit tests run natively, where there is no `Date`.
    #[cfg(target_arch = "wasm32")]
    return js_sys::Date::now();
    #[cfg(not(target_arch = "wasm32"))]
    0.0
}

impl TableState {
    pub fn new(id: TableId) -> TableState {
        TableState {
            id,
            seq: 0,
            view: None,
            view_seq: 0,
            awaiting_snapshot: false,
            clock: None,
            clock_at: 0.0,
            decision_ms: 0,
            log: Vec::new(),
            chat: Vec::new(),
            showdown: Showdown::default(),
            run_out: None,
            error: None,
            host_panel: None,
        }
    }

    fn name_of(&self, seat: u8, next: &TableView) -> String {
        [self.view.as_ref(), Some(next)]
            .into_iter()
            .flatten()
            .find_map(|v| {
                v.seats
                    .get(usize::from(seat))?
                    .as_ref()
                    .map(|s| s.name.clone())
            })
            .unwrap_or_else(|| format!("#{}", seat + 1))
    }

    /// Takes one message; answers the table id when a sequence gap calls for a resync.
    pub fn apply(&mut self, msg: ServerMessage) -> Option<TableId> {
        match msg {
            ServerMessage::Snapshot {
                table,
                seq,
                view,
                clock,
                log,
            } if table == self.id => {
                self.seq = seq;
                self.view_seq = seq;
                self.awaiting_snapshot = false;
                // The hand so far replaces what this client had of it (nothing, after a
                // reload), and with it who won what.
                if !log.is_empty() {
                    self.log.retain(|entry| entry.hand != view.hand);
                    self.showdown = Showdown::default();
                    self.run_out = None;
                    for event in log {
                        self.record(event, &view);
                    }
                }
                self.view = Some(*view);
                self.set_clock(clock);
                // The server follows every snapshot with the table's recent chat.
                self.chat.clear();
                None
            }
            ServerMessage::Events {
                table,
                seq,
                events,
                view,
                since,
                patch,
                clock,
            } if table == self.id => {
                let gap = self.gap(seq);
                let Some(view) = self.follow(view, since, patch) else {
                    // The snapshot asked for brings the table and the hand so far.
                    let ask = !self.awaiting_snapshot;
                    self.awaiting_snapshot = true;
                    return ask.then(|| self.id.clone());
                };
                self.view_seq = seq;
                let boards = (view.board.len(), view.second_board.len());
                if let Some(run_out) = RunOut::find(&events, boards.0, boards.1, now()) {
                    self.run_out = Some(run_out);
                }
                for event in events {
                    self.record(event, &view);
                }
                self.view = Some(*view);
                self.set_clock(clock);
                gap
            }
            ServerMessage::Chat {
                table,
                seq,
                from,
                text,
                at,
            } if table == self.id => {
                let gap = self.gap(seq);
                self.chat.push(ChatLine { from, text, at });
                if self.chat.len() > CHAT_LINES {
                    self.chat.remove(0);
                }
                gap
            }
            ServerMessage::HostPanel {
                table,
                invite,
                pending,
            } if table == self.id => {
                self.host_panel = Some(HostPanel { invite, pending });
                None
            }
            ServerMessage::Error {
                code,
                message,
                table,
            } if table.as_deref().is_none_or(|t| t == self.id) => {
                self.error = Some((code, message));
                None
            }
            _ => None,
        }
    }

    /// The view an events message leaves: the whole view it carries, or the change it
    /// carries applied to the view held, if that is the one the change starts from.
    fn follow(
        &self,
        view: Option<Box<TableView>>,
        since: Option<u64>,
        patch: Option<Box<ViewPatch>>,
    ) -> Option<Box<TableView>> {
        if view.is_some() {
            return view;
        }
        let held = self.view.as_ref().filter(|_| !self.awaiting_snapshot)?;
        let (since, patch) = since.zip(patch)?;
        if since > self.view_seq {
            return None;
        }
        let mut next = Box::new(held.clone());
        patch.apply(&mut next).ok()?;
        Some(next)
    }

    /// A jump in sequence numbers means messages were lost: ask for a full snapshot. The
    /// full view in every message already keeps the table right; the resync is for certainty.
    fn gap(&mut self, seq: u64) -> Option<TableId> {
        let missed = self.seq != 0 && seq > self.seq + 1;
        self.seq = self.seq.max(seq);
        missed.then(|| self.id.clone())
    }

    /// The server computes the clock it sends before it restarts the clock for the next
    /// decision, so a message's clock can belong to the player who just acted (or be absent
    /// at a hand's first decision). Then the new decision is shown with the full decision
    /// time last seen, which is what the server has just started.
    fn set_clock(&mut self, clock: Option<Clock>) {
        self.clock_at = now();
        if let Some(c) = clock.filter(|c| !c.in_time_bank) {
            self.decision_ms = self.decision_ms.max(c.remaining_ms);
        }
        let to_act = self
            .view
            .as_ref()
            .filter(|v| v.hand_running)
            .and_then(|v| v.to_act);
        self.clock = match (clock, to_act) {
            (Some(c), Some(seat)) if c.seat == seat => Some(c),
            (_, Some(seat)) if self.decision_ms > 0 => Some(Clock {
                seat,
                remaining_ms: self.decision_ms,
                time_bank_ms: 0,
                in_time_bank: false,
            }),
            _ => None,
        };
    }

    fn record(&mut self, event: ViewEvent, next: &TableView) {
        let hand = next.hand;
        if let ViewEvent::Public(e) = &event {
            if matches!(e, Event::HandStarted { .. }) {
                self.error = None;
                self.run_out = None;
            }
            self.showdown.follow(e);
        }
        let name = event_seat(&event)
            .map(|s| self.name_of(s, next))
            .unwrap_or_default();
        if let ViewEvent::Public(Event::PotAwarded { .. }) = &event
            && let Some(award) = self.showdown.awards.last_mut()
        {
            award.name = name.clone();
        }
        let names = match &event {
            ViewEvent::Public(Event::Equity { hands, .. }) => {
                hands.iter().map(|h| self.name_of(h.seat, next)).collect()
            }
            _ => Vec::new(),
        };
        self.log.push(LogEntry {
            hand,
            event,
            name,
            names,
        });
        if self.log.len() > LOG_LINES {
            self.log.remove(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use shared::card::Card;
    use shared::hand::Street;

    use super::*;

    fn public(e: Event) -> ViewEvent {
        ViewEvent::Public(e)
    }

    fn dealt(street: Street, cards: &str) -> ViewEvent {
        public(Event::BoardDealt {
            street,
            cards: Card::parse_many(cards).unwrap_or_default(),
        })
    }

    fn equity(pot: u32) -> ViewEvent {
        public(Event::Equity {
            street: Street::Flop,
            hands: vec![HandEquity {
                seat: 0,
                pot,
                scoop: 0,
            }],
        })
    }

    /// A heads-up hand in which the first to act folds, as seat 0 sees it: the view after
    /// it and its events.
    fn folded_hand() -> (TableView, Vec<ViewEvent>) {
        use shared::table::{PlayerId, Table, TableConfig};
        use shared::view::{Viewer, project, table_view};
        let mut table = Table::new(TableConfig::new(shared::rules::Stakes::no_limit(5, 10), 6))
            .expect("a table");
        for seat in [0u8, 1] {
            let id = PlayerId(u128::from(seat) + 1);
            table
                .sit(seat, id, format!("p{seat}"), 500, true)
                .expect("a seat");
        }
        let mut events = table
            .start_hand(shared::card::Deck::ordered())
            .expect("a hand");
        let to_act = table
            .hand()
            .and_then(|h| h.to_act())
            .expect("someone to act");
        events.extend(
            table
                .act(to_act, shared::hand::Action::Fold)
                .expect("a fold"),
        );
        let events = events
            .iter()
            .map(|e| project(&e.into(), Viewer::Seat(0)))
            .collect();
        (table_view(&table, Viewer::Seat(0), 3), events)
    }

    #[test]
    fn a_snapshot_with_the_hand_so_far_rebuilds_its_log_and_who_won() {
        let (view, events) = folded_hand();
        let snapshot = |log: Vec<ViewEvent>| ServerMessage::Snapshot {
            table: "t".into(),
            seq: 9,
            view: Box::new(view.clone()),
            clock: None,
            log,
        };
        let mut state = TableState::new("t".into());
        state.apply(snapshot(events.clone()));
        assert_eq!(
            state.log.len(),
            events.len(),
            "the hand's log after a reload"
        );
        assert!(state.log.iter().all(|e| e.hand == 3));
        assert_eq!(state.showdown.awards.len(), 1, "and who won it");
        assert!(!state.showdown.awards[0].name.is_empty());
        // A second snapshot of the same hand (a resync) does not repeat it; one without a
        // log (an older server) keeps what is there.
        state.apply(snapshot(events.clone()));
        assert_eq!(state.log.len(), events.len());
        state.apply(snapshot(Vec::new()));
        assert_eq!(state.log.len(), events.len());
    }

    #[test]
    fn a_change_applies_to_the_view_it_starts_from_and_else_asks_for_a_snapshot_once() {
        let (after, events) = folded_hand();
        let mut before = after.clone();
        before.hand_running = true;
        before.to_act = Some(0);
        let change = |seq, since| ServerMessage::Events {
            table: "t".into(),
            seq,
            events: events.clone(),
            view: None,
            since: Some(since),
            patch: Some(Box::new(ViewPatch::between(&before, &after))),
            clock: None,
        };
        let mut state = TableState::new("t".into());
        state.apply(ServerMessage::Snapshot {
            table: "t".into(),
            seq: 4,
            view: Box::new(before.clone()),
            clock: None,
            log: Vec::new(),
        });
        // A chat line takes seq 5; the change is measured from the view of 4.
        state.apply(ServerMessage::Chat {
            table: "t".into(),
            seq: 5,
            from: "p1".into(),
            text: "gl".into(),
            at: None,
        });
        assert_eq!(state.apply(change(6, 4)), None);
        assert_eq!(state.view.as_ref(), Some(&after));
        assert_eq!(state.log.len(), events.len());
        // A change from a view this client never got: one request for a snapshot, and the
        // view is left as it was rather than patched wrong.
        // (Measured from a view of seq 7, which this client, holding 6, never got.)
        assert_eq!(state.apply(change(7, 7)), Some("t".into()));
        assert_eq!(state.apply(change(8, 7)), None, "asked once");
        assert_eq!(state.view.as_ref(), Some(&after));
    }

    #[test]
    fn chat_lines_keep_when_the_server_took_them() {
        let mut state = TableState::new("t".into());
        let chat = |seq, at| ServerMessage::Chat {
            table: "t".into(),
            seq,
            from: "ann".into(),
            text: "gl".into(),
            at,
        };
        state.apply(chat(1, Some(1_796_212_800_000)));
        state.apply(chat(2, None));
        let at: Vec<Option<u64>> = state.chat.iter().map(|l| l.at).collect();
        assert_eq!(at, [Some(1_796_212_800_000), None]);
    }

    #[test]
    fn an_all_in_before_the_flop_is_shown_a_street_a_second_then_the_showdown() {
        let events = vec![
            public(Event::HandsFaceUp { hands: Vec::new() }),
            equity(500_000),
            dealt(Street::Flop, "2h7dTs"),
            equity(600_000),
            dealt(Street::Turn, "9c"),
            equity(700_000),
            dealt(Street::River, "5h"),
            public(Event::PotAwarded {
                pot: 0,
                seat: 0,
                amount: 40,
                share: Share::Whole,
                second_run: false,
            }),
        ];
        let run_out = RunOut::find(&events, 5, 0, 10_000.0).expect("a run-out");
        let boards: Vec<usize> = run_out.steps.iter().map(|s| s.board).collect();
        assert_eq!(boards, [0, 3, 4]);
        assert_eq!(run_out.step(10_000.0), Some(0));
        assert_eq!(run_out.step(11_500.0), Some(1));
        assert_eq!(run_out.step(12_100.0), Some(2));
        assert_eq!(run_out.step(13_000.0), None, "then the showdown");
        assert_eq!(run_out.showdown_at(1).equity[0].pot, 600_000);
        assert!(
            run_out.showdown_at(1).awards.is_empty(),
            "no winner before the river"
        );
        assert_eq!(run_out.won, [(0, 40)]);
    }

    #[test]
    fn a_hand_run_twice_deals_the_second_run_a_street_at_a_time_after_the_first() {
        let second = |street, cards| {
            public(Event::SecondRunDealt {
                street,
                cards: Card::parse_many(cards).unwrap_or_default(),
            })
        };
        let award = |seat, second_run| {
            public(Event::PotAwarded {
                pot: 0,
                seat,
                amount: 20,
                share: Share::Whole,
                second_run,
            })
        };
        let events = vec![
            public(Event::HandsFaceUp { hands: Vec::new() }),
            equity(500_000),
            dealt(Street::Turn, "9c"),
            equity(600_000),
            dealt(Street::River, "5h"),
            second(Street::Turn, "Kd"),
            second(Street::River, "3c"),
            award(0, false),
            award(1, true),
            award(0, true),
        ];
        let run_out = RunOut::find(&events, 5, 5, 0.0).expect("a run-out");
        let boards: Vec<(usize, usize)> =
            run_out.steps.iter().map(|s| (s.board, s.second)).collect();
        assert_eq!(boards, [(3, 0), (4, 0), (5, 3), (5, 4)]);
        assert_eq!(run_out.showdown_at(1).equity[0].pot, 600_000);
        assert!(run_out.showdown_at(2).equity.is_empty());
        assert_eq!(run_out.won, [(0, 40), (1, 20)]);

        let mut showdown = Showdown::default();
        for e in &events {
            if let ViewEvent::Public(e) = e {
                showdown.follow(e);
            }
        }
        let second_run: Vec<bool> = showdown.awards.iter().map(|a| a.second_run).collect();
        assert_eq!(second_run, [false, true, true]);
    }

    #[test]
    fn a_showdown_without_cards_to_come_is_not_paced() {
        let events = vec![
            dealt(Street::River, "5h"),
            public(Event::HandsFaceUp { hands: Vec::new() }),
        ];
        assert_eq!(RunOut::find(&events, 5, 0, 0.0), None);
        assert_eq!(
            RunOut::find(&[dealt(Street::Flop, "2h7dTs")], 3, 0, 0.0),
            None
        );
    }

    #[test]
    fn equity_goes_stale_when_the_next_card_comes() {
        let mut showdown = Showdown::default();
        let ViewEvent::Public(e) = equity(550_000) else {
            unreachable!()
        };
        showdown.follow(&e);
        assert_eq!(showdown.equity.len(), 1);
        let ViewEvent::Public(river) = dealt(Street::River, "5h") else {
            unreachable!()
        };
        showdown.follow(&river);
        assert!(showdown.equity.is_empty());
    }
}
