//! Home games: tables players open. Who hosts each, the private table's invite link and who
//! it lets in, the operator's limits, and the rows in `poker_tables` that hold them.

use std::collections::HashSet;
use std::sync::RwLock;

use sha2::{Digest, Sha256};
use shared::api::NewTable;
use shared::protocol::HomeView;
use shared::rules::{Chips, Structure};
use sqlx::PgPool;
use thiserror::Error;
use uuid::Uuid;

use super::def::{DefError, TableDef};

/// What the operator allows players to open (flags `--player-tables-*`).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Open tables one player may host.
    pub per_host: u32,
    /// Open player tables in the whole room.
    pub total: u32,
    /// The largest big blind a player's table may have.
    pub max_big_blind: Chips,
}

#[derive(Debug, Error)]
pub enum HomeError {
    #[error("{0}")]
    Invalid(String),
    #[error("you already host {0} open tables, the most one player may")]
    HostLimit(u32),
    #[error("the room has as many player tables open as it allows ({0}); try again later")]
    RoomLimit(u32),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

/// A player's table as the database keeps it, beside its `TableDef`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Home {
    pub host: Uuid,
    pub host_name: String,
    pub private: bool,
    /// The token of the invite link (private tables only).
    pub invite: Option<String>,
    pub spectators: bool,
    pub seat_approval: bool,
    pub paused: bool,
}

impl Home {
    pub fn view(&self) -> HomeView {
        HomeView {
            host: self.host_name.clone(),
            paused: self.paused,
            private: self.private,
            spectators: self.spectators,
            seat_approval: self.seat_approval,
        }
    }
}

/// A new invite token: 256 random bits, URL-safe.
pub fn new_invite() -> String {
    crate::session::new_token().0
}

/// Who may reach a private table, read by every socket that names it: its host, its seated
/// players, and whoever holds the current invite. A public table lets everyone in. Kept by
/// the table (which alone changes its host, seats and invite), read without asking it.
pub struct Access {
    gate: RwLock<Gate>,
}

struct Gate {
    private: bool,
    host: Uuid,
    /// SHA-256 of the current invite: compared as digests, so the time a comparison takes
    /// says nothing about the token.
    invite: Option<[u8; 32]>,
    members: HashSet<Uuid>,
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl Access {
    pub fn new(home: &Home) -> Access {
        Access {
            gate: RwLock::new(Gate {
                private: home.private,
                host: home.host,
                invite: home.invite.as_deref().map(digest),
                members: HashSet::new(),
            }),
        }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Gate> {
        self.gate.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Gate> {
        self.gate.write().unwrap_or_else(|p| p.into_inner())
    }

    pub fn admits(&self, account: Option<Uuid>, invite: Option<&str>) -> bool {
        let gate = self.read();
        if !gate.private {
            return true;
        }
        if account.is_some_and(|a| a == gate.host || gate.members.contains(&a)) {
            return true;
        }
        matches!((invite, gate.invite), (Some(i), Some(current)) if digest(i) == current)
    }

    pub fn host(&self) -> Uuid {
        self.read().host
    }

    /// Whether this token opens the table now.
    pub fn opens(&self, invite: &str) -> bool {
        let gate = self.read();
        gate.private && gate.invite == Some(digest(invite))
    }

    /// The table's host, invite and seated accounts, as they are now. The table calls this
    /// after every step; the lock every socket reads is written only when something changed.
    pub fn update(&self, home: &Home, members: impl IntoIterator<Item = Uuid>) {
        let members: HashSet<Uuid> = members.into_iter().collect();
        let invite = home.invite.as_deref().map(digest);
        {
            let gate = self.read();
            if gate.host == home.host && gate.invite == invite && gate.members == members {
                return;
            }
        }
        let mut gate = self.write();
        gate.host = home.host;
        gate.invite = invite;
        gate.members = members;
    }
}

/// A table name as players type it: 1-40 characters of text, no control characters.
fn valid_name(name: &str) -> Result<String, HomeError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 40 {
        return Err(HomeError::Invalid(
            "a table name has 1 to 40 characters".into(),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(HomeError::Invalid(
            "a table name is text on one line".into(),
        ));
    }
    Ok(name.to_string())
}

/// The operator's table definition for what a player asked for, checked against the limits.
pub fn definition(id: &str, new: &NewTable, limits: &Limits) -> Result<TableDef, HomeError> {
    let name = valid_name(&new.name)?;
    if new.small_blind == 0 || new.small_blind > new.big_blind {
        return Err(HomeError::Invalid(
            "the small blind is at least 1 and at most the big blind".into(),
        ));
    }
    if new.big_blind > limits.max_big_blind {
        return Err(HomeError::Invalid(format!(
            "the big blind is at most {} here",
            limits.max_big_blind
        )));
    }
    if !(2..=10).contains(&new.seats) {
        return Err(HomeError::Invalid("a table has 2 to 10 seats".into()));
    }
    if !(5..=120).contains(&new.clock_secs) {
        return Err(HomeError::Invalid(
            "the decision clock is 5 to 120 seconds".into(),
        ));
    }
    let mut def = TableDef::new(id, &name, new.structure, new.small_blind, new.big_blind);
    if new.structure == Structure::FixedLimit {
        def.small_bet = Some(new.big_blind);
    }
    def.seats = new.seats;
    def.clock_secs = new.clock_secs;
    def.min_buy_in = new.min_buy_in;
    def.max_buy_in = new.max_buy_in;
    def.run_twice = new.run_twice;
    def.straddle = new.straddle;
    let config = def.table_config().map_err(|e| match e {
        DefError::Invalid { reason, .. } => HomeError::Invalid(reason),
        other => HomeError::Invalid(other.to_string()),
    })?;
    if config.min_buy_in < config.stakes.big_blind {
        return Err(HomeError::Invalid(
            "the smallest buy-in is at least one big blind".into(),
        ));
    }
    // A buy-in of thousands of big blinds is a typing slip, not a home game.
    if config.max_buy_in > config.stakes.big_blind.saturating_mul(500) {
        return Err(HomeError::Invalid(
            "the largest buy-in is at most 500 big blinds".into(),
        ));
    }
    Ok(def)
}

/// A fresh table id for a player's table (ids are not secret: a private table is reached by
/// its invite, and a wrong one looks the same as a table that never existed).
pub fn new_id() -> String {
    let id = Uuid::new_v4().simple().to_string();
    format!("p-{}", &id[..12])
}

/// Opens a player's table in the database, within the limits; nothing is written when one is
/// reached.
pub async fn create(
    pool: &PgPool,
    def: &TableDef,
    home: &Home,
    limits: &Limits,
) -> Result<(), HomeError> {
    let config = serde_json::to_value(def).map_err(|e| HomeError::Invalid(e.to_string()))?;
    let mut tx = pool.begin().await?;
    // One creation at a time, so two requests cannot both pass the counts.
    sqlx::query("SELECT pg_advisory_xact_lock(hashtext('scoop.player_tables'))")
        .execute(&mut *tx)
        .await?;
    let (mine, all): (i64, i64) = sqlx::query_as(
        "SELECT count(*) FILTER (WHERE host_id = $1), count(*) FROM poker_tables \
         WHERE host_id IS NOT NULL AND closed_at IS NULL",
    )
    .bind(home.host)
    .fetch_one(&mut *tx)
    .await?;
    if mine >= i64::from(limits.per_host) {
        return Err(HomeError::HostLimit(limits.per_host));
    }
    if all >= i64::from(limits.total) {
        return Err(HomeError::RoomLimit(limits.total));
    }
    sqlx::query(
        "INSERT INTO poker_tables (id, config, host_id, private, invite_token, spectators, \
         seat_approval) VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(&def.id)
    .bind(config)
    .bind(home.host)
    .bind(home.private)
    .bind(&home.invite)
    .bind(home.spectators)
    .bind(home.seat_approval)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Writes what a host can change.
pub async fn save(pool: &PgPool, table: &str, home: &Home) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE poker_tables SET host_id = $2, invite_token = $3, spectators = $4, \
         seat_approval = $5, paused = $6 WHERE id = $1",
    )
    .bind(table)
    .bind(home.host)
    .bind(&home.invite)
    .bind(home.spectators)
    .bind(home.seat_approval)
    .bind(home.paused)
    .execute(pool)
    .await?;
    Ok(())
}

#[derive(sqlx::FromRow)]
struct HomeRow {
    host_id: Uuid,
    username: String,
    private: bool,
    invite_token: Option<String>,
    spectators: bool,
    seat_approval: bool,
    paused: bool,
}

/// The home game of an open table, if a player opened it.
pub async fn load(pool: &PgPool, table: &str) -> Result<Option<Home>, sqlx::Error> {
    let row: Option<HomeRow> = sqlx::query_as(
        "SELECT t.host_id, a.username, t.private, t.invite_token, t.spectators, \
         t.seat_approval, t.paused FROM poker_tables t JOIN accounts a ON a.id = t.host_id \
         WHERE t.id = $1",
    )
    .bind(table)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| Home {
        host: r.host_id,
        host_name: r.username,
        private: r.private,
        invite: r.invite_token,
        spectators: r.spectators,
        seat_approval: r.seat_approval,
        paused: r.paused,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            per_host: 2,
            total: 10,
            max_big_blind: 100,
        }
    }

    fn new_table() -> NewTable {
        NewTable {
            name: "Friday game".into(),
            structure: Structure::PotLimit,
            small_blind: 1,
            big_blind: 2,
            seats: 6,
            clock_secs: 30,
            min_buy_in: None,
            max_buy_in: None,
            private: true,
            spectators: true,
            seat_approval: false,
            run_twice: false,
            straddle: false,
        }
    }

    #[test]
    fn a_player_table_takes_the_request_and_no_rake() {
        let def = definition("p-1", &new_table(), &limits()).expect("valid");
        assert_eq!(
            (def.seats, def.clock_secs, def.rake_basis_points),
            (6, 30, 0)
        );
        let config = def.table_config().expect("config");
        assert_eq!((config.min_buy_in, config.max_buy_in), (20, 200));
        let fixed = NewTable {
            structure: Structure::FixedLimit,
            ..new_table()
        };
        let config = definition("p-2", &fixed, &limits())
            .and_then(|d| {
                d.table_config()
                    .map_err(|e| HomeError::Invalid(e.to_string()))
            })
            .expect("fixed limit");
        assert_eq!((config.stakes.small_bet, config.stakes.big_bet), (2, 4));
    }

    #[test]
    fn the_table_options_reach_the_engine() {
        let config = definition("p-1", &new_table(), &limits())
            .and_then(|d| {
                d.table_config()
                    .map_err(|e| HomeError::Invalid(e.to_string()))
            })
            .expect("config");
        assert!(!config.run_twice && !config.straddle);
        let both = NewTable {
            run_twice: true,
            straddle: true,
            ..new_table()
        };
        let config = definition("p-2", &both, &limits())
            .and_then(|d| {
                d.table_config()
                    .map_err(|e| HomeError::Invalid(e.to_string()))
            })
            .expect("config");
        assert!(config.run_twice && config.straddle);
    }

    #[test]
    fn requests_outside_the_limits_are_refused_with_a_reason() {
        let refused = |change: fn(&mut NewTable)| {
            let mut t = new_table();
            change(&mut t);
            match definition("p-1", &t, &limits()) {
                Err(HomeError::Invalid(why)) => why,
                other => panic!("accepted: {other:?}"),
            }
        };
        assert!(refused(|t| t.name = "  ".into()).contains("1 to 40"));
        assert!(refused(|t| t.name = "x".repeat(41)).contains("1 to 40"));
        assert!(refused(|t| t.name = "a\nb".into()).contains("one line"));
        assert!(refused(|t| t.big_blind = 200).contains("at most 100"));
        assert!(refused(|t| t.small_blind = 3).contains("small blind"));
        assert!(refused(|t| t.small_blind = 0).contains("small blind"));
        assert!(refused(|t| t.seats = 11).contains("2 to 10"));
        assert!(refused(|t| t.seats = 1).contains("2 to 10"));
        assert!(refused(|t| t.clock_secs = 1).contains("clock"));
        assert!(refused(|t| t.max_buy_in = Some(10_000)).contains("500 big blinds"));
        assert!(refused(|t| t.min_buy_in = Some(1)).contains("one big blind"));
    }

    #[test]
    fn a_private_table_admits_its_host_members_and_current_invite_only() {
        let host = Uuid::new_v4();
        let mut home = Home {
            host,
            host_name: "ann".into(),
            private: true,
            invite: Some(new_invite()),
            spectators: true,
            seat_approval: false,
            paused: false,
        };
        let access = Access::new(&home);
        let old = home.invite.clone().expect("invite");
        let friend = Uuid::new_v4();
        assert!(access.admits(Some(host), None));
        assert!(access.admits(None, Some(&old)));
        assert!(!access.admits(Some(friend), None));
        assert!(!access.admits(Some(friend), Some("guess")));
        home.invite = Some(new_invite());
        access.update(&home, [friend]);
        assert!(!access.admits(None, Some(&old)), "a rotated invite is dead");
        assert!(!access.opens(&old));
        assert!(access.admits(Some(friend), None), "a seated player stays");
        let public = Access::new(&Home {
            private: false,
            invite: None,
            ..home
        });
        assert!(public.admits(None, None));
    }

    #[test]
    fn invites_carry_at_least_128_random_bits() {
        let a = new_invite();
        assert!(a.len() >= 22, "{a}");
        assert_ne!(a, new_invite());
    }
}
