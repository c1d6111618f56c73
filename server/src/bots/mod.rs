//! Bots: the playing strategy shared by house bots and `scoop bots`, and the load-test client.

pub mod client;
mod frame;
pub mod strategy;
