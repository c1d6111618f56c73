//! One watched table as this client knows it: the server's latest view plus what the view
//! alone does not say (the hand log, chat, who won what at the showdown).

use shared::eval::{HighValue, LowValue};
use shared::format::{Event, Share};
use shared::protocol::{Clock, ErrorCode, ServerMessage, TableId, TableView, ViewEvent};
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
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Award {
    pub pot: usize,
    pub seat: u8,
    pub amount: Chips,
    pub share: Share,
}

/// The showdown of the last hand, shown until the next one starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Showdown {
    pub shown: Vec<(u8, HighValue, Option<LowValue>)>,
    pub awards: Vec<Award>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TableState {
    pub id: TableId,
    pub seq: u64,
    pub view: Option<TableView>,
    pub clock: Option<Clock>,
    /// `Date.now()` when `clock` arrived: the clock counts down from there.
    pub clock_at: f64,
    /// The longest decision clock seen: the table's clock, learnt from the server.
    pub decision_ms: u64,
    pub log: Vec<LogEntry>,
    pub chat: Vec<(String, String)>,
    pub showdown: Showdown,
    pub error: Option<(ErrorCode, String)>,
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
    js_sys::Date::now()
}

impl TableState {
    pub fn new(id: TableId) -> TableState {
        TableState {
            id,
            seq: 0,
            view: None,
            clock: None,
            clock_at: 0.0,
            decision_ms: 0,
            log: Vec::new(),
            chat: Vec::new(),
            showdown: Showdown::default(),
            error: None,
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
            } if table == self.id => {
                self.seq = seq;
                self.view = Some(*view);
                self.set_clock(clock);
                None
            }
            ServerMessage::Events {
                table,
                seq,
                events,
                view,
                clock,
            } if table == self.id => {
                let gap = self.gap(seq);
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
            } if table == self.id => {
                let gap = self.gap(seq);
                self.chat.push((from, text));
                if self.chat.len() > CHAT_LINES {
                    self.chat.remove(0);
                }
                gap
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
        match &event {
            ViewEvent::Public(Event::HandStarted { .. }) => {
                self.showdown = Showdown::default();
                self.error = None;
            }
            ViewEvent::Public(Event::Shown {
                seat, high, low, ..
            }) => {
                self.showdown.shown.push((*seat, *high, *low));
            }
            ViewEvent::Public(Event::PotAwarded {
                pot,
                seat,
                amount,
                share,
            }) => {
                self.showdown.awards.push(Award {
                    pot: *pot,
                    seat: *seat,
                    amount: *amount,
                    share: *share,
                });
            }
            _ => {}
        }
        let name = event_seat(&event)
            .map(|s| self.name_of(s, next))
            .unwrap_or_default();
        self.log.push(LogEntry { hand, event, name });
        if self.log.len() > LOG_LINES {
            self.log.remove(0);
        }
    }
}
