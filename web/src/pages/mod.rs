pub mod account;
pub mod auth;
pub mod equity;
pub mod hands;
pub mod home;
pub mod lobby;
pub mod replay;
pub mod rules;
