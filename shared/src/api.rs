//! Bodies of the HTTP API's answers, shared by the server that writes them and the browser
//! that reads them (the WebSocket messages are in `protocol`).

use serde::{Deserialize, Serialize};

/// The logged-in account (`GET /api/me`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Me {
    pub id: String,
    pub username: String,
    pub balance: i64,
    /// Chips in front of the account at tables.
    pub on_tables: i64,
    /// Whether the free refill may be claimed now.
    pub can_refill: bool,
}

/// Who is logged in, if anyone (`GET /api/session`). Unlike `/api/me`, which refuses a
/// visitor with 401, this answers 200 either way, so a page can ask without a failed request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    pub user: Option<Me>,
}

/// One row of an account's ledger as the account holder sees it (`GET /api/ledger`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerRow {
    pub id: i64,
    pub kind: String,
    /// Change to the balance (negative for a buy-in).
    pub amount: i64,
    pub balance_after: Option<i64>,
    pub table_id: Option<String>,
    pub seat: Option<i16>,
    pub hand_id: Option<String>,
    /// UTC, RFC 3339.
    pub created_at: String,
}

/// A page of the ledger, newest first; `next_before` asks for the next page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerPage {
    pub rows: Vec<LedgerRow>,
    pub next_before: Option<i64>,
}

/// One of the account's finished hands (`GET /api/hands`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandSummary {
    pub id: String,
    pub table_id: String,
    pub number: i64,
    /// UTC, RFC 3339.
    pub started_at: String,
    pub seat: i16,
    /// Chips won or lost; none for a voided hand.
    pub net: Option<i64>,
    /// `complete` or `void`.
    pub status: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandList {
    pub hands: Vec<HandSummary>,
}

/// Blinds offered on the "New table" form (small, big); a player may also set their own
/// within the operator's ceiling.
pub const STAKES_PRESETS: [(crate::rules::Chips, crate::rules::Chips); 6] =
    [(1, 2), (2, 5), (5, 10), (10, 20), (25, 50), (50, 100)];

/// A table a player opens (`POST /api/tables`). Amounts are chips; a fixed-limit table's
/// small bet is its big blind. Buy-ins default to 10 and 100 big blinds. Player tables take no rake.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewTable {
    pub name: String,
    pub structure: crate::rules::Structure,
    pub small_blind: crate::rules::Chips,
    pub big_blind: crate::rules::Chips,
    pub seats: u8,
    /// Seconds for each decision.
    pub clock_secs: u32,
    #[serde(default)]
    pub min_buy_in: Option<crate::rules::Chips>,
    #[serde(default)]
    pub max_buy_in: Option<crate::rules::Chips>,
    /// Reached only by its invite link, never listed.
    #[serde(default)]
    pub private: bool,
    /// Whether people without a seat see the game.
    #[serde(default = "yes")]
    pub spectators: bool,
    /// Whether the host approves each seat.
    #[serde(default)]
    pub seat_approval: bool,
    /// Run it twice when all-in (docs/rules.md §3.8).
    #[serde(default)]
    pub run_twice: bool,
    /// Players may straddle (docs/rules.md §4.8).
    #[serde(default)]
    pub straddle: bool,
}

fn yes() -> bool {
    true
}

/// A table just opened: its id, and for a private table the token of its invite link
/// (`#/join/TOKEN`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreatedTable {
    pub table: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invite: Option<String>,
}

/// What an invite link opens (`GET /api/invites/TOKEN`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invite {
    pub table: crate::protocol::LobbyTable,
}

/// The tables an account hosts (`GET /api/tables/mine`), with their invite tokens.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostedTables {
    pub tables: Vec<HostedTable>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostedTable {
    pub table: crate::protocol::LobbyTable,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invite: Option<String>,
}

/// The link to a hand its player shared: `#/shared/{token}` in the browser, read from
/// `GET /api/shared/{token}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandShare {
    pub token: String,
}
