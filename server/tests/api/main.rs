//! Server integration tests: one binary, each test with its own freshly created and migrated
//! Postgres database, the real router on a real socket.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a failed unwrap is a failed test

mod accounts;
mod chips;
mod cli;
mod cluster;
mod controls;
mod crash;
mod database;
mod edge;
mod helpers;
mod home;
mod lease;
mod limits;
mod runtime;
mod tables;
mod ws;
