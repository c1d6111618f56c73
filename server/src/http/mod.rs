//! The HTTP API, one router per feature.

pub mod accounts;
pub mod chips;
pub mod hands;
pub mod health;
pub mod tables;
