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
