//! Sending each change to everyone watching the table, through the per-viewer projection,
//! without letting a slow connection cost the table anything.

use axum::extract::ws::Utf8Bytes;
use std::collections::{HashMap, VecDeque};

use shared::format;

use shared::patch::ViewPatch;
use shared::protocol::{Clock, HomeView, ServerMessage, TableView, ViewEvent};
use shared::table::Table;
use shared::view::{Viewer, project, public_view, seat_patch, view_for};
use uuid::Uuid;

use super::command::{ConnId, Outbound, Outgoing, player_id};
use super::relay::{Holds, Relayed, RemoteSocket};

/// Where a watcher's messages go.
enum Sink {
    /// A socket on this node: its queue.
    Local(Outbound),
    /// A socket on another node (cluster mode): the table's relay to NATS.
    Remote(RemoteSocket),
}

impl Sink {
    fn has_room(&self) -> bool {
        match self {
            Sink::Local(out) => out.capacity() > 0,
            Sink::Remote(r) => r.relay.capacity() > 0,
        }
    }

    /// Queues one message; `false` when the queue is full (the watcher is behind). A
    /// snapshot names the view it gives (`holds`), which a remote socket's gateway keeps.
    fn send(&self, text: Utf8Bytes, holds: Holds) -> bool {
        match self {
            Sink::Local(out) => out.try_send(Outgoing::Frame(text)).is_ok(),
            Sink::Remote(r) => r
                .relay
                .try_send(Relayed::Socket {
                    gateway: r.gateway,
                    conn: r.conn,
                    holds,
                    text,
                })
                .is_ok(),
        }
    }
}

struct Watcher {
    account: Option<Uuid>,
    /// The invite it came with: a private table that moves to another node checks it there.
    invite: Option<String>,
    sink: Sink,
    /// A message was dropped because the connection fell behind: it gets the current
    /// snapshot once it has room again, and nothing until then.
    stale: bool,
    /// The view this connection was last sent: whose (a seat's or the spectators') and the
    /// `seq` of the audience's view it equals. A change is sent only to a connection that
    /// holds the view the change starts from; any other gets a snapshot.
    holds: Option<(Viewer, u64)>,
}

/// A watcher of this node let go by a table that moved to another node.
pub struct Leaving {
    pub conn: ConnId,
    pub account: Option<Uuid>,
    pub invite: Option<String>,
    pub out: Outbound,
}

/// What every message about one change shares.
pub struct Frame<'a> {
    pub table_id: &'a str,
    pub name: &'a str,
    pub seq: u64,
    pub table: &'a Table,
    pub hand_number: u64,
    pub clock: Option<Clock>,
    /// A player's table: its host and settings, shown to everyone.
    pub home: Option<&'a HomeView>,
    /// The hand so far (between hands, the last one), which a snapshot carries.
    pub log: &'a [format::Event],
    /// Players on the waiting list.
    pub waiting: u32,
}

/// What someone without a seat sees of a player's table that allows no spectators: who sits
/// where with what, and whether a hand is on; not the hand.
fn seats_only(view: &mut TableView) {
    view.street = None;
    view.board.clear();
    view.pots.clear();
    view.to_act = None;
    view.legal = None;
    for seat in view.seats.iter_mut().flatten() {
        seat.bet = 0;
        seat.cards = None;
        seat.live = false;
        seat.all_in = false;
    }
}

impl Frame<'_> {
    /// Whether this viewer sees the game, or the seats only.
    fn sees_the_game(&self, viewer: Viewer) -> bool {
        matches!(viewer, Viewer::Seat(_)) || self.home.is_none_or(|h| h.spectators)
    }

    /// What a spectator would see, before [`Frame::view_from`] makes it a viewer's: built once
    /// per broadcast, whatever the number of seats.
    fn public(&self) -> TableView {
        let mut view = public_view(self.table, self.hand_number);
        view.name = self.name.to_string();
        view.home = self.home.cloned();
        view.waiting = self.waiting;
        view
    }

    fn view_from(&self, public: &TableView, viewer: Viewer) -> TableView {
        let mut view = view_for(public, self.table, viewer);
        if !self.sees_the_game(viewer) {
            seats_only(&mut view);
        }
        view
    }

    fn view(&self, viewer: Viewer) -> TableView {
        self.view_from(&self.public(), viewer)
    }

    fn viewer(&self, account: Option<Uuid>) -> Viewer {
        match account.and_then(|a| self.table.seat_of(player_id(a))) {
            Some(seat) => Viewer::Seat(seat),
            None => Viewer::Spectator,
        }
    }

    /// What this audience is told of a change: the events as it may see them and what they
    /// changed in the view it was sent at `since`.
    fn change(
        &self,
        events: &[format::Event],
        viewer: Viewer,
        since: u64,
        patch: ViewPatch,
    ) -> Change {
        let sees = self.sees_the_game(viewer);
        Change {
            sees,
            since,
            events: match sees {
                true => events.iter().map(|e| project(e, viewer)).collect(),
                false => Vec::new(),
            },
            patch,
        }
    }

    /// The change's message, and the change back from it (to compare the next audience's
    /// with) without copying it.
    fn encode_change(&self, change: Change) -> (Utf8Bytes, Option<Change>) {
        let Change {
            sees,
            since,
            events,
            patch,
        } = change;
        let message = ServerMessage::Events {
            table: self.table_id.to_string(),
            seq: self.seq,
            events,
            view: None,
            since: Some(since),
            patch: Some(Box::new(patch)),
            clock: self.clock.filter(|_| sees),
        };
        let text = encode(&message);
        let change = match message {
            ServerMessage::Events {
                events,
                patch: Some(patch),
                ..
            } => Some(Change {
                sees,
                since,
                events,
                patch: *patch,
            }),
            _ => None,
        };
        (text, change)
    }

    fn snapshot(&self, viewer: Viewer, view: &TableView) -> Utf8Bytes {
        let sees = self.sees_the_game(viewer);
        encode(&ServerMessage::Snapshot {
            table: self.table_id.to_string(),
            seq: self.seq,
            view: Box::new(view.clone()),
            clock: self.clock.filter(|_| sees),
            log: match sees {
                true => {
                    // A newcomer to a seat reads the last hand as a spectator did: the cards
                    // dealt there were someone else's.
                    let reader = match viewer {
                        Viewer::Seat(s) if !self.table.dealt_in(s) => Viewer::Spectator,
                        other => other,
                    };
                    self.log.iter().map(|e| project(e, reader)).collect()
                }
                false => Vec::new(),
            },
        })
    }
}

/// What an audience's message about one change says; audiences told the same thing (the
/// seats that neither acted nor are to act, most of the time) share one serialisation.
#[derive(PartialEq)]
struct Change {
    sees: bool,
    since: u64,
    events: Vec<ViewEvent>,
    patch: ViewPatch,
}

/// Room for a typical change (a hand's messages average about 550 bytes), so that serialising
/// one does not grow its buffer three times.
const ENCODE_CAPACITY: usize = 1024;

pub fn encode(msg: &ServerMessage) -> Utf8Bytes {
    let mut buf = Vec::with_capacity(ENCODE_CAPACITY);
    match serde_json::to_writer(&mut buf, msg).map(|()| String::from_utf8(buf)) {
        Ok(Ok(text)) => text.into(),
        _ => Utf8Bytes::default(),
    }
}

/// Chat lines kept for watchers who arrive later.
pub const CHAT_BACKLOG: usize = 50;

#[derive(Default)]
pub struct Watchers {
    map: HashMap<ConnId, Watcher>,
    /// The last [`CHAT_BACKLOG`] chat lines, sent after every snapshot: whoever joins,
    /// reloads or resyncs reads the conversation they walked into.
    chat: VecDeque<Utf8Bytes>,
    /// Each audience's last view: what the next change is measured from. Only audiences
    /// someone watches as are kept.
    sent: HashMap<Viewer, Base>,
    /// The public view the last broadcast built the audiences' views on, and its `seq`.
    public: Option<(u64, TableView)>,
    /// The clock the last broadcast carried.
    clock: Option<Clock>,
}

/// Ten seats and the spectators.
const AUDIENCES: usize = 11;

/// An audience's last view and the `seq` it was sent with.
struct Base {
    seq: u64,
    view: TableView,
    /// Built by the last broadcast on [`Watchers::public`]: then a seat's next change can be
    /// worked out from the public view's (`shared::view::seat_patch`), without building and
    /// comparing the seat's whole view.
    on_public: bool,
}

/// One audience's share of a broadcast: what changed for it, its new view when that had to
/// be built, and its message for the connections that hold its last view and for those that
/// need a snapshot, each built once.
struct Audience {
    /// What changed since the audience's last view (none when it has no last view).
    patch: Option<ViewPatch>,
    /// Built only for a snapshot, or when the change could not be worked out from the
    /// public view's; otherwise the last view with `patch` applied, at the end.
    view: Option<TableView>,
    change: Option<Utf8Bytes>,
    snapshot: Option<Utf8Bytes>,
    /// Whether the change went to the relay, once, for every remote socket holding its
    /// base (cluster mode).
    relayed: Option<bool>,
}

/// The chat backlog after a snapshot. Best effort: an old chat line that does not fit in a
/// full queue is not worth marking the watcher behind for (it would get the snapshot again).
fn send_backlog(chat: &VecDeque<Utf8Bytes>, sink: &Sink) {
    for line in chat {
        if !sink.send(line.clone(), None) {
            return;
        }
    }
}

impl Watchers {
    /// This node's watchers' connections, accounts and queues, leaving none: the table moved
    /// to another node, and they watch it there now. Other nodes' sockets are let go: their
    /// gateways hear of the move and watch it there themselves.
    pub fn take_all(&mut self) -> Vec<Leaving> {
        self.sent.clear();
        self.public = None;
        self.map
            .drain()
            .filter_map(|(conn, w)| match w.sink {
                Sink::Local(out) => Some(Leaving {
                    conn,
                    account: w.account,
                    invite: w.invite,
                    out,
                }),
                Sink::Remote(_) => None,
            })
            .collect()
    }

    /// A watcher on this node (`out`), or on another one (`remote`).
    pub fn add(
        &mut self,
        conn: ConnId,
        account: Option<Uuid>,
        invite: Option<String>,
        out: Outbound,
        remote: Option<RemoteSocket>,
    ) {
        let sink = match remote {
            Some(remote) => Sink::Remote(remote),
            None => Sink::Local(out),
        };
        self.map.insert(
            conn,
            Watcher {
                account,
                invite,
                sink,
                stale: false,
                holds: None,
            },
        );
    }

    pub fn remove(&mut self, conn: ConnId) {
        self.map.remove(&conn);
    }

    /// Watchers who are not seated at the table.
    pub fn spectators(&self, table: &Table) -> u32 {
        let n = self
            .map
            .values()
            .filter(|w| {
                w.account
                    .is_none_or(|a| table.seat_of(player_id(a)).is_none())
            })
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// Everyone gets the current snapshot with the next broadcast (the table changed in a way
    /// events cannot describe, such as a hand taken back).
    pub fn mark_all_stale(&mut self) {
        for w in self.map.values_mut() {
            w.stale = true;
        }
    }

    /// Sends this change to every watcher, seated players first (their writers are woken
    /// before a crowd of spectators'). Each audience's message is serialised once (the
    /// spectators share one, each seat has its own) and carries what changed since the view
    /// that audience was last sent. A watcher that does not hold that view (it fell behind,
    /// or now watches as someone else: it sat down or stood up) gets the current snapshot,
    /// also built once per audience; one whose queue is full is skipped until it has room.
    /// Returns the number of messages serialised, or `None` when the change is no change to
    /// anyone (no event, every audience's view and the clock as last sent, and every watcher
    /// holding its audience's view): then nothing is sent and `frame.seq` is not used, so
    /// that clients, which take a jump in `seq` for a lost message, see none. A hand's end
    /// is followed by such a broadcast whenever nobody left, stood up or topped up, one
    /// change in twenty-six of a hand at full speed.
    pub fn broadcast(&mut self, frame: &Frame<'_>, events: &[format::Event]) -> Option<usize> {
        // At most a seat's audience per seat and the spectators': a short list, searched.
        let mut audiences: Vec<(Viewer, Audience)> = Vec::with_capacity(AUDIENCES);
        let mut unchanged = events.is_empty() && frame.clock == self.clock;
        let mut public = None;
        let mut public_patch = None;
        for w in self.map.values() {
            if w.stale && !w.sink.has_room() {
                continue;
            }
            let viewer = frame.viewer(w.account);
            let base = self.sent.get(&viewer);
            if !audiences.iter().any(|(v, _)| *v == viewer) {
                let public = public.get_or_insert_with(|| frame.public());
                let old_public = self
                    .public
                    .as_ref()
                    .filter(|(seq, _)| base.is_some_and(|b| b.on_public && b.seq == *seq));
                // Each audience's change is worked out once, not once per watcher (a crowd
                // of spectators shares one).
                let (patch, view) = match (viewer, base, old_public) {
                    (Viewer::Seat(seat), Some(base), Some((_, old_public))) => {
                        let public_patch = public_patch
                            .get_or_insert_with(|| ViewPatch::between(old_public, public));
                        let patch = seat_patch(public_patch, public, &base.view, frame.table, seat);
                        (Some(patch), None)
                    }
                    _ => {
                        let view = frame.view_from(public, viewer);
                        (base.map(|b| ViewPatch::between(&b.view, &view)), Some(view))
                    }
                };
                unchanged = unchanged && patch.as_ref().is_some_and(ViewPatch::is_empty);
                audiences.push((
                    viewer,
                    Audience {
                        patch,
                        view,
                        change: None,
                        snapshot: None,
                        relayed: None,
                    },
                ));
            }
            unchanged =
                unchanged && !w.stale && base.is_some_and(|b| w.holds == Some((viewer, b.seq)));
        }
        if unchanged {
            return None;
        }
        self.clock = frame.clock;
        let Some(public) = public else {
            // Nobody to tell.
            self.sent.clear();
            self.public = None;
            return Some(0);
        };
        let mut built = 0;
        // The changes serialised so far, at most one per audience.
        let mut changes: Vec<(Change, Utf8Bytes)> = Vec::with_capacity(AUDIENCES);
        let Watchers {
            map, chat, sent, ..
        } = &mut *self;
        for players_pass in [true, false] {
            for w in map.values_mut() {
                if w.stale && !w.sink.has_room() {
                    continue;
                }
                let viewer = frame.viewer(w.account);
                if matches!(viewer, Viewer::Seat(_)) != players_pass {
                    continue;
                }
                let Audience {
                    patch,
                    view,
                    change,
                    snapshot,
                    relayed,
                } = match audiences.iter_mut().find(|(v, _)| *v == viewer) {
                    Some((_, audience)) => audience,
                    // Every watcher served here was given its audience above.
                    None => continue,
                };
                let base = sent
                    .get(&viewer)
                    .filter(|b| !w.stale && w.holds == Some((viewer, b.seq)))
                    .map(|b| b.seq);
                let text = match base {
                    Some(since) => change.get_or_insert_with(|| {
                        let patch = patch.clone().unwrap_or_default();
                        let told = frame.change(events, viewer, since, patch);
                        if let Some((_, text)) = changes.iter().find(|(c, _)| *c == told) {
                            return text.clone();
                        }
                        built += 1;
                        let (text, told) = frame.encode_change(told);
                        if let Some(told) = told {
                            changes.push((told, text.clone()));
                        }
                        text
                    }),
                    None => snapshot.get_or_insert_with(|| {
                        built += 1;
                        let view = view.get_or_insert_with(|| frame.view_from(&public, viewer));
                        frame.snapshot(viewer, view)
                    }),
                }
                .clone();
                let sent_ok = match (&w.sink, base) {
                    // The same change for every remote socket of the audience: relayed once,
                    // and each gateway passes it to its sockets that hold the base.
                    (Sink::Remote(r), Some(since)) => *relayed.get_or_insert_with(|| {
                        r.relay
                            .try_send(Relayed::Audience {
                                viewer,
                                since,
                                seq: frame.seq,
                                text,
                            })
                            .is_ok()
                    }),
                    (sink, _) => {
                        let holds = base.is_none().then_some((viewer, Some(frame.seq)));
                        sink.send(text, holds)
                    }
                };
                let snapshot = base.is_none();
                w.stale = !sent_ok;
                if !w.stale {
                    w.holds = Some((viewer, frame.seq));
                    if snapshot && frame.sees_the_game(viewer) {
                        send_backlog(chat, &w.sink);
                    }
                }
            }
        }
        // What each audience now holds is the base of the next change; the views of
        // audiences nobody watches as any more (a seat left empty) are let go.
        let mut old = std::mem::take(sent);
        for (viewer, audience) in audiences {
            let view = match (audience.view, audience.patch, old.remove(&viewer)) {
                (Some(view), _, _) => view,
                (None, Some(patch), Some(base)) => {
                    let mut view = base.view;
                    match patch.apply(&mut view) {
                        Ok(()) => view,
                        Err(_) => frame.view_from(&public, viewer),
                    }
                }
                _ => frame.view_from(&public, viewer),
            };
            debug_assert!(view == frame.view_from(&public, viewer), "{viewer:?}");
            let base = Base {
                seq: frame.seq,
                view,
                on_public: true,
            };
            sent.insert(viewer, base);
        }
        self.public = Some((frame.seq, public));
        Some(built)
    }

    /// The current table to one watcher (joining, or asking after a gap), then the chat
    /// backlog.
    pub fn snapshot(&mut self, conn: ConnId, frame: &Frame<'_>) {
        let Some(w) = self.map.get_mut(&conn) else {
            return;
        };
        let viewer = frame.viewer(w.account);
        let view = frame.view(viewer);
        let text = frame.snapshot(viewer, &view);
        // The next change is measured from the audience's last view: this watcher follows
        // it if that is what it is sent now. Otherwise the table changed without a
        // broadcast; this view becomes the audience's base if none was sent at this `seq`
        // (anyone holding the older one gets a snapshot next time), else this watcher
        // gets one.
        let (holds, new_base) = match self.sent.get(&viewer) {
            Some(base) if base.view == view => (Some(base.seq), false),
            Some(base) if base.seq == frame.seq => (None, false),
            _ => (Some(frame.seq), true),
        };
        w.stale = !w.sink.send(text, Some((viewer, holds)));
        if w.stale {
            return;
        }
        if new_base {
            let base = Base {
                seq: frame.seq,
                view,
                on_public: false,
            };
            self.sent.insert(viewer, base);
        }
        w.holds = holds.map(|seq| (viewer, seq));
        if frame.sees_the_game(viewer) {
            send_backlog(&self.chat, &w.sink);
        }
    }

    /// A chat line to everyone who `reads` lets read it (at a player's table without
    /// spectators, only the seated players), kept for the backlog.
    pub fn chat(&mut self, line: Utf8Bytes, reads: impl Fn(Option<Uuid>) -> bool) {
        for w in self.map.values_mut() {
            if reads(w.account) && !w.sink.send(line.clone(), None) {
                w.stale = true;
            }
        }
        self.chat.push_back(line);
        if self.chat.len() > CHAT_BACKLOG {
            self.chat.pop_front();
        }
    }

    /// A message to every socket of one account (the host's panel, a removal notice).
    pub fn send_to(&mut self, account: Uuid, text: &Utf8Bytes) {
        for w in self.map.values_mut() {
            if w.account == Some(account) && !w.sink.send(text.clone(), None) {
                w.stale = true;
            }
        }
    }

    /// Lets go of every watcher `keep` refuses, telling each with `notice` (and another
    /// node's gateway to pass nothing more of the table to it).
    pub fn drop_unless(&mut self, keep: impl Fn(Option<Uuid>) -> bool, notice: &Utf8Bytes) {
        self.map.retain(|_, w| {
            let kept = keep(w.account);
            if !kept {
                let _ = match &w.sink {
                    Sink::Local(out) => out.try_send(Outgoing::Frame(notice.clone())).is_ok(),
                    Sink::Remote(r) => r
                        .relay
                        .try_send(Relayed::LetGo {
                            gateway: r.gateway,
                            conn: r.conn,
                            text: notice.clone(),
                        })
                        .is_ok(),
                };
            }
            kept
        });
    }

    /// The same message to everyone (chat, notices); a full queue marks the watcher behind.
    pub fn send_all(&mut self, text: &Utf8Bytes) {
        for w in self.map.values_mut() {
            if !w.sink.send(text.clone(), None) {
                w.stale = true;
            }
        }
    }

    #[cfg(test)]
    pub fn stale_count(&self) -> usize {
        self.map.values().filter(|w| w.stale).count()
    }

    #[cfg(test)]
    pub fn is_stale(&self, conn: ConnId) -> bool {
        self.map.get(&conn).is_some_and(|w| w.stale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::rules::Stakes;
    use shared::table::{PlayerId, TableConfig};
    use tokio::sync::mpsc;

    fn table() -> Table {
        let mut t = Table::new(TableConfig::new(Stakes::no_limit(5, 10), 6)).expect("table");
        for seat in [0u8, 1] {
            t.sit(
                seat,
                PlayerId(u128::from(seat) + 1),
                format!("p{seat}"),
                500,
                true,
            )
            .expect("sit");
        }
        t
    }

    fn frame(table: &Table, seq: u64) -> Frame<'_> {
        Frame {
            table_id: "t",
            name: "t",
            seq,
            table,
            hand_number: 0,
            // A clock running down: each broadcast is a change, though the table stays put.
            clock: Some(Clock {
                seat: 0,
                remaining_ms: 100_000 - seq,
                time_bank_ms: 0,
                in_time_bank: false,
            }),
            home: None,
            log: &[],
            waiting: 0,
        }
    }

    /// A private player's table that shows the game to its seated players only.
    fn no_spectators() -> HomeView {
        HomeView {
            host: "p0".into(),
            paused: false,
            private: true,
            spectators: false,
            seat_approval: false,
        }
    }

    fn watch(
        w: &mut Watchers,
        conn: ConnId,
        account: Option<u128>,
        queue: usize,
    ) -> mpsc::Receiver<Outgoing> {
        let (out, rx) = mpsc::channel(queue);
        w.add(conn, account.map(Uuid::from_u128), None, out, None);
        rx
    }

    fn text(o: Outgoing) -> Utf8Bytes {
        match o {
            Outgoing::Frame(t) => t,
            other => panic!("not a frame: {other:?}"),
        }
    }

    #[test]
    fn stalled_watchers_cost_no_serialisation_and_get_the_current_snapshot_once_they_read() {
        let table = table();
        let mut w = Watchers::default();
        let mut seat0 = watch(&mut w, 1, Some(1), 1024);
        let mut seat1 = watch(&mut w, 2, Some(2), 1024);
        let mut reader = watch(&mut w, 3, None, 1024);
        // A crowd of spectators that never read: a queue of one, filled at once.
        let mut crowd: Vec<mpsc::Receiver<Outgoing>> = (100..1100)
            .map(|conn| watch(&mut w, conn, None, 1))
            .collect();
        let mut frames = 0;
        for seq in 1..=20 {
            frames += w.broadcast(&frame(&table, seq), &[]).unwrap_or_default();
        }
        // Each audience's first snapshot is serialised once (seat 0, seat 1, the spectators,
        // the stalled crowd among them), and each later change once in all: only the clock
        // moves, so every audience is told the same.
        assert!(frames <= 3 + 19, "{frames} frames for 20 changes");
        assert!(w.stale_count() >= 1000);
        for rx in [&mut seat0, &mut seat1, &mut reader] {
            let mut got = 0;
            while rx.try_recv().is_ok() {
                got += 1;
            }
            assert_eq!(got, 20, "readers miss nothing");
        }
        // One of the crowd reads what it had: the next change brings it the current table.
        let first = text(crowd[0].try_recv().expect("its one queued message"));
        assert!(first.contains("\"seq\":1"), "{first}");
        let more = w.broadcast(&frame(&table, 21), &[]);
        let next = text(crowd[0].try_recv().expect("a snapshot"));
        let msg: ServerMessage = serde_json::from_str(&next).expect("a server message");
        assert!(
            matches!(msg, ServerMessage::Snapshot { seq: 21, .. }),
            "the current snapshot, not the backlog: {next}"
        );
        assert!(!w.is_stale(100));
        // The rest of the crowd is still behind and still costs nothing: the one snapshot,
        // and the change the readers share.
        assert_eq!(more, Some(2));
    }

    #[test]
    fn other_nodes_get_each_change_once_per_audience_and_their_snapshots_one_by_one() {
        use super::super::relay::{Relayed, RemoteSocket};
        let table = table();
        let mut w = Watchers::default();
        let (relay, mut relayed) = mpsc::channel(64);
        let gateway = Uuid::from_u128(7);
        // Seat 0's player and three spectators on another node, one spectator here.
        for (conn, account) in [(1, Some(1)), (2, None), (3, None), (4, None)] {
            let remote = RemoteSocket {
                gateway,
                conn: 100 + conn,
                relay: relay.clone(),
            };
            let (out, _) = mpsc::channel(4);
            w.add(conn, account.map(Uuid::from_u128), None, out, Some(remote));
        }
        let mut local = watch(&mut w, 5, None, 64);
        w.broadcast(&frame(&table, 1), &[]);
        // First, a snapshot each, saying which view it holds.
        let mut snapshots = Vec::new();
        while let Ok(item) = relayed.try_recv() {
            let Relayed::Socket {
                gateway: g,
                conn,
                holds,
                text,
            } = item
            else {
                panic!("a change before any snapshot");
            };
            assert_eq!(g, gateway);
            assert!(text.contains("\"snapshot\""), "{text}");
            snapshots.push((conn, holds));
        }
        snapshots.sort_by_key(|(conn, _)| *conn);
        assert_eq!(
            snapshots,
            vec![
                (101, Some((Viewer::Seat(0), Some(1)))),
                (102, Some((Viewer::Spectator, Some(1)))),
                (103, Some((Viewer::Spectator, Some(1)))),
                (104, Some((Viewer::Spectator, Some(1)))),
            ]
        );
        // Then each change once for seat 0 and once for the three spectators.
        w.broadcast(&frame(&table, 2), &[]);
        let mut audiences = Vec::new();
        while let Ok(item) = relayed.try_recv() {
            let Relayed::Audience {
                viewer,
                since,
                seq,
                text,
            } = item
            else {
                panic!("a socket's own message for a change");
            };
            assert!(text.contains("\"events\""), "{text}");
            audiences.push((viewer, since, seq));
        }
        audiences.sort_by_key(|(v, _, _)| matches!(v, Viewer::Spectator));
        assert_eq!(
            audiences,
            vec![(Viewer::Seat(0), 1, 2), (Viewer::Spectator, 1, 2)]
        );
        // The spectator here is sent its own, the same change.
        let local_change = text(
            local
                .try_recv()
                .and_then(|_| local.try_recv())
                .expect("a change"),
        );
        assert!(local_change.contains("\"since\":1"), "{local_change}");
    }

    #[test]
    fn a_table_that_moves_lets_go_of_its_watchers_here_with_their_invites_and_of_no_other() {
        use super::super::relay::RemoteSocket;
        let mut w = Watchers::default();
        let (out, _rx) = mpsc::channel(4);
        w.add(1, None, Some("token".into()), out.clone(), None);
        let (relay, _relayed) = mpsc::channel(4);
        let remote = RemoteSocket {
            gateway: Uuid::from_u128(7),
            conn: 5,
            relay,
        };
        w.add(2, None, None, out, Some(remote));
        let leaving = w.take_all();
        assert_eq!(
            leaving.len(),
            1,
            "the other node's socket follows on its own"
        );
        assert_eq!(leaving[0].conn, 1);
        assert_eq!(
            leaving[0].invite.as_deref(),
            Some("token"),
            "a private table checks the invite again where it moved"
        );
        assert!(w.take_all().is_empty());
    }

    fn message(rx: &mut mpsc::Receiver<Outgoing>) -> ServerMessage {
        let frame = text(rx.try_recv().expect("a frame"));
        serde_json::from_str(&frame).expect("a server message")
    }

    /// The next message is a change at `seq` measured from the view at `since`.
    fn assert_change(rx: &mut mpsc::Receiver<Outgoing>, seq: u64, since: u64) {
        let msg = message(rx);
        assert!(
            matches!(msg, ServerMessage::Events { seq: s, since: Some(f), .. } if s == seq && f == since),
            "{msg:?}"
        );
    }

    #[test]
    fn a_broadcast_that_changes_nothing_for_anyone_sends_nothing_and_takes_no_seq() {
        let table = table();
        let mut w = Watchers::default();
        let mut seat0 = watch(&mut w, 1, Some(1), 64);
        let mut spectator = watch(&mut w, 2, None, 64);
        let still = |seq| Frame {
            clock: None,
            ..frame(&table, seq)
        };
        assert!(
            w.broadcast(&still(1), &[]).is_some(),
            "everyone's first snapshot"
        );
        assert!(matches!(
            message(&mut seat0),
            ServerMessage::Snapshot { seq: 1, .. }
        ));
        assert!(matches!(
            message(&mut spectator),
            ServerMessage::Snapshot { seq: 1, .. }
        ));
        assert_eq!(w.broadcast(&still(2), &[]), None);
        assert!(seat0.try_recv().is_err() && spectator.try_recv().is_err());
        // A clock is a change, measured from the last view sent.
        assert!(w.broadcast(&frame(&table, 2), &[]).is_some());
        for rx in [&mut seat0, &mut spectator] {
            assert_change(rx, 2, 1);
        }
        // So is the clock stopping, and an event.
        assert!(w.broadcast(&still(3), &[]).is_some());
        let event = format::Event::HandsFaceUp { hands: Vec::new() };
        assert!(w.broadcast(&still(4), &[event]).is_some());
        assert_eq!(w.broadcast(&still(5), &[]), None);
        // So is a watcher who needs a snapshot; the others follow the `seq` it takes.
        let mut newcomer = watch(&mut w, 3, None, 64);
        for rx in [&mut seat0, &mut spectator] {
            while rx.try_recv().is_ok() {}
        }
        assert!(w.broadcast(&still(5), &[]).is_some());
        assert!(matches!(
            message(&mut newcomer),
            ServerMessage::Snapshot { seq: 5, .. }
        ));
        for rx in [&mut seat0, &mut spectator] {
            assert_change(rx, 5, 4);
        }
    }

    /// What a client holds after this message, given what it held before.
    fn follow(held: Option<TableView>, msg: ServerMessage) -> TableView {
        match msg {
            ServerMessage::Snapshot { view, .. } => *view,
            ServerMessage::Events {
                since: Some(_),
                patch: Some(patch),
                view: None,
                ..
            } => {
                let mut view = held.expect("a change comes after a snapshot");
                patch.apply(&mut view).expect("the change applies");
                view
            }
            other => panic!("neither a snapshot nor a change: {other:?}"),
        }
    }

    #[test]
    fn each_seat_sees_its_own_cards_and_spectators_see_none() {
        let mut table = table();
        table
            .start_hand(shared::card::Deck::shuffled(&mut rand::rng()))
            .expect("a hand");
        let mut w = Watchers::default();
        let mut seat0 = watch(&mut w, 1, Some(1), 8);
        let mut spectator = watch(&mut w, 2, None, 8);
        w.broadcast(&frame(&table, 1), &[]);
        let mine = follow(None, message(&mut seat0));
        let theirs = follow(None, message(&mut spectator));
        let cards = |v: &TableView, seat: usize| v.seats[seat].as_ref().and_then(|s| s.cards);
        assert!(cards(&mine, 0).is_some(), "a player sees their hand");
        assert!(cards(&mine, 1).is_none(), "but not the other's");
        assert!(cards(&theirs, 0).is_none() && cards(&theirs, 1).is_none());
    }

    #[test]
    fn after_the_snapshot_each_audience_gets_what_changed_and_holds_the_table_as_it_is() {
        let mut table = table();
        let mut w = Watchers::default();
        let mut rx = [
            watch(&mut w, 1, Some(1), 64),
            watch(&mut w, 2, Some(2), 64),
            watch(&mut w, 3, None, 64),
            watch(&mut w, 4, None, 64),
        ];
        for conn in 1..=4 {
            w.snapshot(conn, &frame(&table, 1));
        }
        let mut held: Vec<TableView> = rx.iter_mut().map(|r| follow(None, message(r))).collect();
        table
            .start_hand(shared::card::Deck::shuffled(&mut rand::rng()))
            .expect("a hand");
        let (mut seq, mut last) = (1, 1);
        loop {
            // A chat line between changes takes a `seq` too.
            seq += 1;
            let line = encode(&ServerMessage::Chat {
                table: "t".into(),
                seq,
                from: "p0".into(),
                text: "gl".into(),
                at: None,
            });
            w.chat(line, |_| true);
            seq += 1;
            let built = w.broadcast(&frame(&table, seq), &[]);
            assert!(
                matches!(built, Some(1..=3)),
                "one change at most per audience (two seats and the spectators): {built:?}"
            );
            for (n, r) in rx.iter_mut().enumerate() {
                let ServerMessage::Chat { .. } = message(r) else {
                    panic!("the chat line first");
                };
                let msg = message(r);
                let ServerMessage::Events { since, view, .. } = &msg else {
                    panic!("a change, not a snapshot: {msg:?}");
                };
                assert!(view.is_none(), "only what changed");
                assert_eq!(*since, Some(last), "from the view of the last change");
                held[n] = follow(Some(held[n].clone()), msg);
                let now = frame(&table, seq);
                let viewer = now.viewer(w.map[&(n as u64 + 1)].account);
                assert_eq!(held[n], now.view(viewer), "watcher {n}");
            }
            last = seq;
            let Some(seat) = table.hand().and_then(|h| h.to_act()) else {
                break;
            };
            table
                .act(seat, shared::hand::Action::Fold)
                .expect("a fold is legal");
        }
    }

    #[test]
    fn seats_told_the_same_as_the_spectators_share_their_serialisation() {
        let mut table = Table::new(TableConfig::new(Stakes::no_limit(5, 10), 6)).expect("table");
        for seat in 0u8..4 {
            let player = PlayerId(u128::from(seat) + 1);
            table
                .sit(seat, player, format!("p{seat}"), 500, true)
                .expect("sit");
        }
        table
            .start_hand(shared::card::Deck::shuffled(&mut rand::rng()))
            .expect("a hand");
        let mut w = Watchers::default();
        let mut seats: Vec<_> = (0u8..4)
            .map(|seat| watch(&mut w, u64::from(seat) + 1, Some(u128::from(seat) + 1), 64))
            .collect();
        let mut spectator = watch(&mut w, 9, None, 64);
        assert_eq!(
            w.broadcast(&frame(&table, 1), &[]),
            Some(5),
            "a snapshot each"
        );
        let mut held: Vec<TableView> = seats.iter_mut().map(|r| follow(None, message(r))).collect();
        let mut theirs = follow(None, message(&mut spectator));
        let actor = table.hand().and_then(|h| h.to_act()).expect("someone acts");
        let events: Vec<format::Event> = table
            .act(actor, shared::hand::Action::Call)
            .expect("a call")
            .iter()
            .map(format::Event::from)
            .collect();
        let next = table
            .hand()
            .and_then(|h| h.to_act())
            .expect("someone acts next");
        // The caller's message shows its own cards, the next player's carries its legal
        // actions; the two other seats are told what the spectators are.
        assert_eq!(w.broadcast(&frame(&table, 2), &events), Some(3));
        let texts: Vec<Utf8Bytes> = seats
            .iter_mut()
            .map(|r| text(r.try_recv().expect("a change")))
            .collect();
        let public = text(spectator.try_recv().expect("a change"));
        for (seat, t) in texts.iter().enumerate() {
            let involved = seat as u8 == actor || seat as u8 == next;
            assert_eq!(*t == public, !involved, "seat {seat}");
            let msg: ServerMessage = serde_json::from_str(t).expect("a server message");
            held[seat] = follow(Some(held[seat].clone()), msg);
            let viewer = Viewer::Seat(seat as u8);
            assert_eq!(held[seat], frame(&table, 2).view(viewer), "seat {seat}");
        }
        let msg: ServerMessage = serde_json::from_str(&public).expect("a server message");
        theirs = follow(Some(theirs), msg);
        assert_eq!(theirs, frame(&table, 2).view(Viewer::Spectator));
    }

    #[test]
    fn a_watcher_who_sits_down_or_falls_behind_gets_a_snapshot_not_a_change() {
        let mut table = table();
        let mut w = Watchers::default();
        let mut newcomer = watch(&mut w, 1, Some(3), 64);
        let mut slow = watch(&mut w, 2, None, 1);
        w.snapshot(1, &frame(&table, 1));
        w.snapshot(2, &frame(&table, 1));
        assert!(matches!(
            message(&mut newcomer),
            ServerMessage::Snapshot { .. }
        ));
        // The slow one has not read its snapshot: its queue is full for the next change.
        table
            .sit(2, PlayerId(3), "p2".into(), 500, true)
            .expect("sit");
        w.broadcast(&frame(&table, 2), &[]);
        let sat = message(&mut newcomer);
        let ServerMessage::Snapshot { view, .. } = &sat else {
            panic!("a snapshot for the new seat: {sat:?}");
        };
        assert_eq!(view.you, Some(2));
        assert!(w.is_stale(2));
        assert!(matches!(
            message(&mut slow),
            ServerMessage::Snapshot { seq: 1, .. }
        ));
        w.broadcast(&frame(&table, 3), &[]);
        assert!(matches!(
            message(&mut newcomer),
            ServerMessage::Events { since: Some(2), .. }
        ));
        assert!(matches!(
            message(&mut slow),
            ServerMessage::Snapshot { seq: 3, .. }
        ));
    }

    #[test]
    fn a_watcher_who_joins_after_a_chat_line_follows_the_next_change() {
        let table = table();
        let mut w = Watchers::default();
        let mut first = watch(&mut w, 1, None, 64);
        w.snapshot(1, &frame(&table, 1));
        w.broadcast(&frame(&table, 2), &[]);
        // A chat line moved `seq` to 3 without a change: the newcomer's snapshot is the view
        // sent at 2, so the next change (from 2) applies to it as to the first watcher's.
        let mut late = watch(&mut w, 2, None, 64);
        w.snapshot(2, &frame(&table, 3));
        w.broadcast(&frame(&table, 4), &[]);
        let _ = (message(&mut first), message(&mut first));
        assert!(matches!(
            message(&mut first),
            ServerMessage::Events { since: Some(2), .. }
        ));
        assert!(matches!(
            message(&mut late),
            ServerMessage::Snapshot { seq: 3, .. }
        ));
        assert!(matches!(
            message(&mut late),
            ServerMessage::Events { since: Some(2), .. }
        ));
    }

    #[test]
    fn a_watcher_who_joins_gets_the_snapshot_then_the_last_fifty_chat_lines() {
        let table = table();
        let mut w = Watchers::default();
        let mut talker = watch(&mut w, 1, Some(1), 1024);
        for n in 0..60 {
            w.chat(format!("line {n}").into(), |_| true);
        }
        assert_eq!(std::iter::from_fn(|| talker.try_recv().ok()).count(), 60);

        let mut late = watch(&mut w, 2, None, 64);
        w.snapshot(2, &frame(&table, 7));
        let got: Vec<Utf8Bytes> = std::iter::from_fn(|| late.try_recv().ok().map(text)).collect();
        assert_eq!(got.len(), 1 + CHAT_BACKLOG);
        assert!(got[0].contains("\"snapshot\""), "{}", got[0]);
        let lines: Vec<&str> = got[1..].iter().map(|t| t.as_str()).collect();
        assert_eq!(lines.first(), Some(&"line 10"));
        assert_eq!(lines.last(), Some(&"line 59"));

        // A queue too small for the backlog gets the snapshot and is not marked behind.
        let mut small = watch(&mut w, 3, None, 4);
        w.snapshot(3, &frame(&table, 7));
        assert_eq!(std::iter::from_fn(|| small.try_recv().ok()).count(), 4);
        assert!(!w.is_stale(3));
    }

    #[test]
    fn at_a_table_without_spectators_only_the_seated_read_the_chat() {
        let table = table();
        let home = no_spectators();
        let mut w = Watchers::default();
        let mut player = watch(&mut w, 1, Some(1), 64);
        let mut outsider = watch(&mut w, 2, Some(99), 64);
        let seated = |a: Option<Uuid>| a.is_some_and(|a| table.seat_of(player_id(a)).is_some());
        w.chat("hello".into(), seated);
        assert!(player.try_recv().is_ok(), "the player reads it");
        assert!(outsider.try_recv().is_err(), "the outsider does not");

        // Nor does the backlog come with the outsider's snapshot; the player's does.
        let mut no_spectators = frame(&table, 3);
        no_spectators.home = Some(&home);
        w.snapshot(2, &no_spectators);
        let got: Vec<Utf8Bytes> =
            std::iter::from_fn(|| outsider.try_recv().ok().map(text)).collect();
        assert_eq!(got.len(), 1, "the snapshot alone: {got:?}");
        w.snapshot(1, &no_spectators);
        assert_eq!(std::iter::from_fn(|| player.try_recv().ok()).count(), 2);
    }

    #[test]
    fn a_snapshot_carries_the_hand_so_far_as_its_viewer_may_see_it() {
        let mut table = table();
        let events: Vec<format::Event> = table
            .start_hand(shared::card::Deck::ordered())
            .expect("a hand")
            .iter()
            .map(format::Event::from)
            .collect();
        let home = no_spectators();
        let mut w = Watchers::default();
        let mut rx = [watch(&mut w, 1, Some(1), 8), watch(&mut w, 2, None, 8)];
        let mut logs = |home: Option<&HomeView>| -> Vec<Vec<shared::protocol::ViewEvent>> {
            let mut f = frame(&table, 4);
            f.log = &events;
            f.home = home;
            w.snapshot(1, &f);
            w.snapshot(2, &f);
            rx.iter_mut()
                .map(|rx| {
                    let msg = serde_json::from_str(&text(rx.try_recv().expect("a snapshot")));
                    match msg.expect("a server message") {
                        ServerMessage::Snapshot { log, .. } => log,
                        other => panic!("not a snapshot: {other:?}"),
                    }
                })
                .collect()
        };
        let dealt = |log: &[shared::protocol::ViewEvent], seat: u8| {
            log.iter().find_map(|e| match e {
                shared::protocol::ViewEvent::Dealt(d) if d.seat == seat => Some(d.cards),
                _ => None,
            })
        };
        let [mine, theirs]: [Vec<_>; 2] = logs(None).try_into().expect("two logs");
        assert_eq!(mine.len(), events.len(), "the whole hand so far");
        assert!(
            matches!(dealt(&mine, 0), Some(Some(_))),
            "the player's own cards"
        );
        assert_eq!(dealt(&mine, 1), Some(None), "not the other's");
        assert_eq!(theirs.len(), events.len());
        assert_eq!(dealt(&theirs, 0), Some(None), "a spectator sees no card");
        // At a table without spectators an outsider gets no log; the player still does.
        let [mine, theirs]: [Vec<_>; 2] = logs(Some(&home)).try_into().expect("two logs");
        assert_eq!(mine.len(), events.len());
        assert!(theirs.is_empty());
    }

    #[test]
    fn spectators_are_the_watchers_without_a_seat() {
        let table = table();
        let mut w = Watchers::default();
        let _a = watch(&mut w, 1, Some(1), 1);
        let _b = watch(&mut w, 2, Some(99), 1);
        let _c = watch(&mut w, 3, None, 1);
        assert_eq!(w.spectators(&table), 2);
        w.remove(3);
        assert_eq!(w.spectators(&table), 1);
    }
}
