pub mod account;
pub mod auth;
pub mod hands;
pub mod lobby;
pub mod replay;
