//! The wire protocol between the browser and the server (JSON over one WebSocket).
//!
//! These types are separate from the engine's state on purpose: nothing in `hand` or `table`
//! is sent as is. Game state reaches a client only through [`crate::view`].

use serde::{Deserialize, Serialize};

use crate::card::Card;
use crate::format::Event;
use crate::hand::{Action, Legal, Street};
use crate::patch::ViewPatch;
use crate::pot::Pot;
use crate::rules::{Chips, Stakes};
use crate::table::SeatStatus;

/// The version of this protocol's layout, pinned by `shared/tests/fixtures/*_messages_v5.jsonl`.
/// Earlier versions' files still read: version 2 added `format::Event::Equity`, version 3 the
/// home games (`Watch`'s `invite`, `Host`, `HostPanel`, `TableView::home` and `name`, `LobbyTable::host`
/// and their error codes), version 4 run it twice and the straddle (`Straddle`, the table
/// options and second board in `TableView` and `LobbyTable`, and the events of
/// `format` version 3; a snapshot's `log`, a chat line's `at` and a seat's missed blinds),
/// version 5 events that carry what changed in the view (`since` and `patch`) rather than
/// all of it, version 6 the table controls players expect (the waiting list, sitting out at
/// the big blind, auto-muck, showing an uncalled winner, automatic top-up; `Waitlist`, the
/// view's and lobby row's new fields). A change to the layout is a new version (and the
/// fixtures of the old one stay).
pub const PROTOCOL_VERSION: u32 = 6;

/// Longest chat line accepted, in characters.
pub const MAX_CHAT_CHARS: usize = 200;

pub type TableId = String;

/// A client's name for one request that moves chips (a buy-in, top-up or leave): 1 to 64
/// letters, digits, `-` or `_`. A request sent again with the same id is applied once.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RequestId(String);

impl RequestId {
    pub const MAX_LEN: usize = 64;

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for RequestId {
    type Error = String;

    fn try_from(id: String) -> Result<RequestId, String> {
        let valid = !id.is_empty()
            && id.len() <= RequestId::MAX_LEN
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if valid {
            Ok(RequestId(id))
        } else {
            Err(format!(
                "a request id has 1 to {} letters, digits, '-' or '_'",
                RequestId::MAX_LEN
            ))
        }
    }
}

impl From<RequestId> for String {
    fn from(id: RequestId) -> String {
        id.0
    }
}

/// An action the player has chosen before their turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PreAction {
    /// Check if possible, otherwise fold.
    CheckFold,
    /// Call whatever is bet (or check).
    CallAny,
    /// Fold to any bet; check if nobody bets.
    FoldToAnyBet,
}

impl PreAction {
    /// The action this pre-selection takes when the turn comes with these choices.
    pub fn resolve(self, legal: &Legal) -> Action {
        match self {
            _ if legal.can_check => Action::Check,
            PreAction::CallAny => Action::Call,
            PreAction::CheckFold | PreAction::FoldToAnyBet => Action::Fold,
        }
    }
}

/// Client → server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// Live lobby: the table list now and an update whenever a table changes.
    SubscribeLobby,
    /// No more lobby updates (a player at a table does not need them).
    UnsubscribeLobby,
    /// Watch a table (no account needed). A private table needs its invite (the token of
    /// its link) unless the viewer is seated there or hosts it.
    Watch {
        table: TableId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        invite: Option<String>,
    },
    Unwatch {
        table: TableId,
    },
    /// Take a seat, moving `buy_in` chips from the balance.
    Sit {
        table: TableId,
        seat: u8,
        buy_in: Chips,
        /// Post a big blind at once rather than wait for it.
        #[serde(default)]
        post_now: bool,
        /// Made once per click and sent again on a retry: the chips move once.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_id: Option<RequestId>,
    },
    /// `hand` is the hand number the client saw: an action meant for an earlier hand is
    /// refused rather than applied to the wrong one.
    Act {
        table: TableId,
        hand: u64,
        action: Action,
    },
    PreSelect {
        table: TableId,
        pre: Option<PreAction>,
    },
    SitOut {
        table: TableId,
    },
    /// Straddle whenever first left of the big blind (from the next hand), or stop.
    Straddle {
        table: TableId,
        on: bool,
    },
    SitIn {
        table: TableId,
        #[serde(default)]
        post_now: bool,
    },
    TopUp {
        table: TableId,
        amount: Chips,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_id: Option<RequestId>,
    },
    Leave {
        table: TableId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_id: Option<RequestId>,
    },
    Chat {
        table: TableId,
        text: String,
    },
    /// Ask for a full snapshot (after a gap in sequence numbers).
    Resync {
        table: TableId,
    },
    /// What the host of a player's table decides (refused for anyone else).
    Host {
        table: TableId,
        action: HostAction,
    },
    Ping,
    /// Play on until the big blind reaches the seat, then sit out (docs/rules.md §7.13).
    SitOutAtBigBlind {
        table: TableId,
        on: bool,
    },
    /// Show losing hands at showdown (`on`), or muck them, the default (docs/rules.md §6.5).
    ShowLosing {
        table: TableId,
        on: bool,
    },
    /// Turn up the cards of the last hand, won without a showdown (docs/rules.md §6.4).
    ShowCards {
        table: TableId,
    },
    /// Top the stack back up to `to` chips between hands, or stop (docs/rules.md §7.15).
    AutoTopUp {
        table: TableId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<Chips>,
    },
    /// Join a full table's waiting list (docs/rules.md §7.14); sent again after a reload, it
    /// keeps the place in the line.
    JoinWaitlist {
        table: TableId,
    },
    /// Leave the waiting list, passing on a seat offered.
    LeaveWaitlist {
        table: TableId,
    },
}

/// A host's controls. None of them sees a card, changes a hand in play or moves chips
/// other than back to a player's balance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum HostAction {
    /// No new hand is dealt until `Resume` (the hand in play finishes).
    Pause,
    Resume,
    /// Stand the player up (after the hand in play), chips back to their balance; they
    /// cannot sit at this table again while it is open.
    Remove {
        seat: u8,
    },
    /// Seat the player who asked for this seat (seat approval).
    Approve {
        seat: u8,
    },
    Refuse {
        seat: u8,
    },
    /// The seated player at `seat` becomes the host.
    HandOver {
        seat: u8,
    },
    /// Finish the hand in play, cash everyone out, close the table.
    Close,
    /// A new invite link; the old one stops working at once.
    RotateInvite,
    /// Whether people without a seat see the game.
    SetSpectators {
        allowed: bool,
    },
    /// Whether a seat must be approved by the host.
    SetSeatApproval {
        on: bool,
    },
}

/// A seat as one viewer sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    pub seat: u8,
    pub name: String,
    pub stack: Chips,
    /// Chips in front of the player this betting round.
    pub bet: Chips,
    pub status: SeatStatus,
    /// Dealt into the current (or last) hand and not folded.
    pub live: bool,
    pub all_in: bool,
    /// Hole cards, present only when this viewer may see them.
    pub cards: Option<[Card; 4]>,
    /// Blinds missed while sitting out, owed on coming back (docs/rules.md §7.5).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub missed_big: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub missed_small: bool,
}

/// One table as one viewer (a player in a seat, or a spectator) may see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableView {
    pub stakes: Stakes,
    pub seat_count: u8,
    pub min_buy_in: Chips,
    pub max_buy_in: Chips,
    pub hand: u64,
    pub hand_running: bool,
    pub seats: Vec<Option<SeatView>>,
    pub button: Option<u8>,
    pub small_blind: Option<u8>,
    pub big_blind: Option<u8>,
    pub street: Option<Street>,
    pub board: Vec<Card>,
    pub pots: Vec<Pot>,
    pub to_act: Option<u8>,
    /// The viewer's seat, if seated.
    pub you: Option<u8>,
    /// The viewer's legal actions when it is their turn.
    pub legal: Option<Legal>,
    /// The table's name (filled in by the server; empty in a view built without one).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// A table a player opened: who hosts it and how it is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home: Option<HomeView>,
    /// The second board of a hand run twice.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub second_board: Vec<Card>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub run_twice: bool,
    /// The table allows straddles.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub straddle: bool,
    /// The viewer straddles whenever first left of the big blind.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub straddling: bool,
    /// The viewer sits out when the big blind next reaches their seat (docs/rules.md §7.13).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sit_out_at_big_blind: bool,
    /// The viewer shows a losing hand at showdown: auto-muck is off (docs/rules.md §6.5).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub show_losing: bool,
    /// The stack the viewer's seat is topped back up to between hands (docs/rules.md §7.15).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_top_up: Option<Chips>,
    /// The viewer won the last hand without a showdown and may show it (docs/rules.md §6.4).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub can_show: bool,
    /// How many players are on the table's waiting list (docs/rules.md §7.14; filled in by
    /// the server).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub waiting: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A player's table as everyone at it sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HomeView {
    /// The host's name.
    pub host: String,
    /// No new hand is dealt until the host resumes.
    pub paused: bool,
    /// Reached only by its invite link.
    pub private: bool,
    /// Whether people without a seat see the game (else they see the seats only).
    pub spectators: bool,
    /// Whether a seat must be approved by the host.
    pub seat_approval: bool,
}

/// Someone asking the host for a seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatRequest {
    pub seat: u8,
    pub name: String,
    pub buy_in: Chips,
}

/// An event as one viewer may see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ViewEvent {
    /// An event with nothing hidden in it.
    Public(Event),
    /// Hole cards were dealt to `seat`; `cards` only for their owner.
    Dealt(Dealt),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename = "dealt")]
pub struct Dealt {
    pub seat: u8,
    pub cards: Option<[Card; 4]>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyTable {
    pub id: TableId,
    pub name: String,
    pub stakes: Stakes,
    pub seats_taken: u8,
    pub seat_count: u8,
    pub average_pot: Chips,
    pub hands_per_hour: u32,
    pub spectators: u32,
    /// A table a player opened: the host's name (the lobby marks it a player table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub run_twice: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub straddle: bool,
    /// Players on the waiting list (docs/rules.md §7.14).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub waiting: u32,
    /// A practice table: house bots keep a game going.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub practice: bool,
}

/// Machine-readable error codes so the client can react (and translate) without parsing text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    BadMessage,
    TooLarge,
    RateLimited,
    NotLoggedIn,
    NoSuchTable,
    IllegalAction,
    StaleHand,
    Seat,
    InsufficientBalance,
    ChatRejected,
    /// The database cannot be reached; the table waits for it (retry later).
    DatabaseUnavailable,
    /// A request sent again with the same request id: it was carried out the first time.
    AlreadyDone,
    /// Only the table's host may do that.
    NotHost,
    /// The seat was asked for; the host decides (no chips moved yet).
    AwaitingApproval,
    /// The host refused the seat, or removed this player from the table.
    SeatRefused,
    Internal,
    /// The seat is held for the player the waiting list offered it to.
    SeatHeld,
}

/// The decision clock of the player to act.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    pub seat: u8,
    /// Milliseconds left on the current clock (the decision clock, or the time bank once
    /// that has started) when the message was sent.
    pub remaining_ms: u64,
    /// Time bank left besides, in milliseconds.
    pub time_bank_ms: u64,
    pub in_time_bank: bool,
}

/// Server → client. Table messages carry the table's sequence number; a client that sees a
/// gap sends `Resync`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    Lobby {
        tables: Vec<LobbyTable>,
    },
    LobbyUpdate {
        table: LobbyTable,
    },
    Snapshot {
        table: TableId,
        seq: u64,
        view: Box<TableView>,
        clock: Option<Clock>,
        /// What has happened in the hand on the view (the last hand, between hands) as this
        /// viewer may see it, so that a reload or a late arrival reads the hand log.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        log: Vec<ViewEvent>,
    },
    /// What happened, and the view it left. Since version 5 the view comes as what changed
    /// (`patch`) from the view this audience was sent at `since` (a snapshot's or an earlier
    /// message's `seq`); a client that does not hold that view asks for a snapshot. Up to
    /// version 4 every message carried the whole `view`, which still reads.
    Events {
        table: TableId,
        seq: u64,
        events: Vec<ViewEvent>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        view: Option<Box<TableView>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        since: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        patch: Option<Box<ViewPatch>>,
        clock: Option<Clock>,
    },
    Chat {
        table: TableId,
        seq: u64,
        from: String,
        text: String,
        /// When the server took the line, in milliseconds since the Unix epoch.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<u64>,
    },
    Error {
        code: ErrorCode,
        message: String,
        /// The table the failed request was about, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        table: Option<TableId>,
    },
    /// To the host only: the invite link's token (private tables) and who asks for a seat.
    HostPanel {
        table: TableId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        invite: Option<String>,
        pending: Vec<SeatRequest>,
    },
    /// The session behind this socket has ended (logout or expiry).
    SessionEnded,
    Pong,
    /// To one player: where they stand on a table's waiting list (docs/rules.md §7.14).
    /// `position` 1 is next; none means off the list. `offer` is a seat held for them.
    Waitlist {
        table: TableId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        position: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        offer: Option<SeatOffer>,
    },
}

/// A seat held for the first player on the waiting list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatOffer {
    pub seat: u8,
    /// How long the seat stays held, from when the message was sent.
    pub expires_in_ms: u64,
}
