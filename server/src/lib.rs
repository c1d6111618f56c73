//! Scoop's server: the HTTP API, accounts and chips in Postgres, and the developer tools of
//! the `scoop` binary.

pub mod app;
pub mod bench;
pub mod bots;
pub mod chips;
pub mod client_ip;
pub mod cluster;
pub mod config;
pub mod db;
pub mod error;
pub mod hand_writer;
pub mod http;
pub mod lease;
pub mod listen;
pub mod metrics;
pub mod password;
pub mod ratelimit;
pub mod session;
pub mod tables;
pub mod throttle;
pub mod ws;
