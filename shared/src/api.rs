//! Bodies of the HTTP API's list answers, shared by the server that writes them and the
//! browser that reads them (the WebSocket messages are in `protocol`).

use serde::{Deserialize, Serialize};

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
