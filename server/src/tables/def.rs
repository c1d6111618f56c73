//! Table definitions: what the operator writes in `tables.toml` or passes to
//! `scoop tables add`, stored in `poker_tables`.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use shared::rules::{Chips, Rake, Stakes, Structure};
use shared::table::{ConfigError, TableConfig};
use sqlx::PgPool;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum DefError {
    #[error("table id `{0}` must be 1-40 characters of a-z, 0-9 and -")]
    Id(String),
    #[error("table `{id}`: {reason}")]
    Invalid { id: String, reason: String },
    #[error("reading {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not a valid tables file: {source}")]
    Parse {
        path: String,
        source: toml::de::Error,
    },
    #[error("table id `{0}` appears twice")]
    Duplicate(String),
    /// Another process holds the table's lease (`crate::lease`).
    #[error("another process owns this table now")]
    Fenced,
    #[error("cluster: {0}")]
    Cluster(String),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

/// One table as the operator defines it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableDef {
    pub id: String,
    pub name: String,
    pub structure: Structure,
    /// Fixed limit: the small bet (the big bet is twice it). Blinds default from it.
    #[serde(default)]
    pub small_bet: Option<Chips>,
    #[serde(default)]
    pub small_blind: Option<Chips>,
    #[serde(default)]
    pub big_blind: Option<Chips>,
    #[serde(default = "default_seats")]
    pub seats: u8,
    #[serde(default)]
    pub min_buy_in: Option<Chips>,
    #[serde(default)]
    pub max_buy_in: Option<Chips>,
    /// Seconds for each decision.
    #[serde(default = "default_clock")]
    pub clock_secs: u32,
    /// A player's extra time for the whole sitting, used when a decision clock runs out.
    #[serde(default = "default_time_bank")]
    pub time_bank_secs: u32,
    /// Rake in basis points (500 = 5%) of each pot, capped per hand; 0 = no rake.
    #[serde(default)]
    pub rake_basis_points: u32,
    #[serde(default)]
    pub rake_cap: Chips,
    #[serde(default)]
    pub uncapped_heads_up: bool,
    /// Run it twice when all-in (docs/rules.md §3.8).
    #[serde(default)]
    pub run_twice: bool,
    /// Players may straddle (docs/rules.md §4.8).
    #[serde(default)]
    pub straddle: bool,
    /// A practice table: house bots keep a game going for a lone visitor.
    #[serde(default)]
    pub practice: bool,
    /// House bots seated at a practice table.
    #[serde(default)]
    pub house_bots: u8,
    /// Players sat out for this many hands dealt are stood up and their chips go back to
    /// their balance (docs/rules.md §7.7).
    #[serde(default = "default_sit_out_hands")]
    pub sit_out_hands: u32,
    /// Besides, an operator's limit in minutes, for a table where no hand is dealt to count
    /// (everyone sat out); 0 turns it off.
    #[serde(default = "default_sit_out_minutes")]
    pub sit_out_minutes: u32,
    /// Pause between hands, so people can see the result.
    #[serde(default = "default_between_hands_ms")]
    pub between_hands_ms: u64,
    /// Added to the pause for each street an all-in run-out deals, so viewers can follow the
    /// board come out with each hand's equity (the browser shows a street a second).
    #[serde(default = "default_run_out_street_ms")]
    pub run_out_street_ms: u64,
    /// How long a seat that came free is held for the first player on the waiting list
    /// (docs/rules.md §7.14).
    #[serde(default = "default_seat_offer_secs")]
    pub seat_offer_secs: u32,
}

fn default_seats() -> u8 {
    6
}
fn default_clock() -> u32 {
    20
}
fn default_time_bank() -> u32 {
    60
}
fn default_sit_out_hands() -> u32 {
    10
}
fn default_sit_out_minutes() -> u32 {
    30
}
fn default_between_hands_ms() -> u64 {
    2_000
}
fn default_run_out_street_ms() -> u64 {
    1_000
}
fn default_seat_offer_secs() -> u32 {
    30
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TablesFile {
    #[serde(default)]
    table: Vec<TableDef>,
}

impl TableDef {
    /// A table with defaults for everything but what identifies it.
    pub fn new(
        id: &str,
        name: &str,
        structure: Structure,
        small_blind: Chips,
        big_blind: Chips,
    ) -> TableDef {
        TableDef {
            id: id.to_string(),
            name: name.to_string(),
            structure,
            small_bet: (structure == Structure::FixedLimit).then_some(big_blind),
            small_blind: Some(small_blind),
            big_blind: Some(big_blind),
            seats: default_seats(),
            min_buy_in: None,
            max_buy_in: None,
            clock_secs: default_clock(),
            time_bank_secs: default_time_bank(),
            rake_basis_points: 0,
            rake_cap: 0,
            uncapped_heads_up: false,
            run_twice: false,
            straddle: false,
            practice: false,
            house_bots: 0,
            sit_out_hands: default_sit_out_hands(),
            sit_out_minutes: default_sit_out_minutes(),
            between_hands_ms: default_between_hands_ms(),
            run_out_street_ms: default_run_out_street_ms(),
            seat_offer_secs: default_seat_offer_secs(),
        }
    }

    fn invalid(&self, reason: impl Into<String>) -> DefError {
        DefError::Invalid {
            id: self.id.clone(),
            reason: reason.into(),
        }
    }

    pub fn stakes(&self) -> Result<Stakes, DefError> {
        let mut stakes = match self.structure {
            Structure::FixedLimit => {
                let small_bet = self
                    .small_bet
                    .or(self.big_blind)
                    .ok_or_else(|| self.invalid("fixed limit needs small_bet"))?;
                let mut s = Stakes::fixed_limit(small_bet);
                if let Some(sb) = self.small_blind {
                    s.small_blind = sb;
                }
                if let Some(bb) = self.big_blind {
                    s.big_blind = bb;
                }
                s
            }
            Structure::PotLimit | Structure::NoLimit => {
                let bb = self
                    .big_blind
                    .ok_or_else(|| self.invalid("pot and no limit need big_blind"))?;
                let sb = self.small_blind.unwrap_or(bb / 2);
                if self.structure == Structure::PotLimit {
                    Stakes::pot_limit(sb, bb)
                } else {
                    Stakes::no_limit(sb, bb)
                }
            }
        };
        if self.rake_basis_points > 0 {
            stakes.rake = Some(Rake {
                basis_points: self.rake_basis_points,
                cap: self.rake_cap,
            });
        }
        stakes.uncapped_heads_up = self.uncapped_heads_up;
        Ok(stakes)
    }

    /// Validates the definition and builds the engine's table configuration.
    pub fn table_config(&self) -> Result<TableConfig, DefError> {
        let valid_id = !self.id.is_empty()
            && self.id.len() <= 40
            && self
                .id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !valid_id {
            return Err(DefError::Id(self.id.clone()));
        }
        if self.name.trim().is_empty() || self.name.chars().count() > 40 {
            return Err(self.invalid("name must be 1-40 characters"));
        }
        if self.house_bots > 0 && !self.practice {
            return Err(self.invalid("house bots sit only at practice tables (practice = true)"));
        }
        if self.house_bots >= self.seats {
            return Err(self.invalid("house bots must leave a seat free"));
        }
        if self.clock_secs == 0 || self.clock_secs > 600 {
            return Err(self.invalid("clock_secs must be 1-600"));
        }
        if self.sit_out_hands == 0 {
            return Err(self.invalid("sit_out_hands must be at least 1"));
        }
        if !(1..=300).contains(&self.seat_offer_secs) {
            return Err(self.invalid("seat_offer_secs must be 1-300"));
        }
        let mut config = TableConfig::new(self.stakes()?, self.seats);
        config.max_hands_sat_out = self.sit_out_hands;
        config.run_twice = self.run_twice;
        config.straddle = self.straddle;
        if let Some(min) = self.min_buy_in {
            config.min_buy_in = min;
        }
        if let Some(max) = self.max_buy_in {
            config.max_buy_in = max;
        }
        config
            .validate()
            .map_err(|e: ConfigError| self.invalid(e.to_string()))?;
        Ok(config)
    }

    pub fn clock(&self) -> Duration {
        Duration::from_secs(u64::from(self.clock_secs))
    }

    pub fn time_bank(&self) -> Duration {
        Duration::from_secs(u64::from(self.time_bank_secs))
    }
}

/// Reads and validates a tables file (`[[table]]` entries).
pub fn load_file(path: &str) -> Result<Vec<TableDef>, DefError> {
    let text = std::fs::read_to_string(path).map_err(|source| DefError::Read {
        path: path.to_string(),
        source,
    })?;
    let file: TablesFile = toml::from_str(&text).map_err(|source| DefError::Parse {
        path: path.to_string(),
        source,
    })?;
    let mut seen = std::collections::HashSet::new();
    for def in &file.table {
        def.table_config()?;
        if !seen.insert(def.id.clone()) {
            return Err(DefError::Duplicate(def.id.clone()));
        }
    }
    Ok(file.table)
}

/// Opens (or updates and reopens) a table.
pub async fn upsert(pool: &PgPool, def: &TableDef) -> Result<(), DefError> {
    def.table_config()?;
    let config = serde_json::to_value(def).map_err(|e| def.invalid(e.to_string()))?;
    sqlx::query(
        "INSERT INTO poker_tables (id, config) VALUES ($1, $2) \
         ON CONFLICT (id) DO UPDATE SET config = $2, closed_at = NULL",
    )
    .bind(&def.id)
    .bind(config)
    .execute(pool)
    .await?;
    Ok(())
}

/// Closes a table: the server stops dealing there and cashes everyone out.
pub async fn close(pool: &PgPool, id: &str) -> Result<bool, DefError> {
    let done = sqlx::query(
        "UPDATE poker_tables SET closed_at = now() WHERE id = $1 AND closed_at IS NULL",
    )
    .bind(id)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Open tables, in id order. A stored definition that no longer validates is skipped.
pub async fn open_tables(pool: &PgPool) -> Result<Vec<TableDef>, DefError> {
    let configs: Vec<serde_json::Value> =
        sqlx::query_scalar("SELECT config FROM poker_tables WHERE closed_at IS NULL ORDER BY id")
            .fetch_all(pool)
            .await?;
    Ok(configs
        .into_iter()
        .filter_map(|c| serde_json::from_value::<TableDef>(c).ok())
        .filter(|d| d.table_config().is_ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tables_file_parses_with_defaults_and_rejects_bad_entries() {
        let file: TablesFile = toml::from_str(
            r#"
[[table]]
id = "lyon"
name = "Lyon"
structure = "fixed_limit"
small_bet = 20

[[table]]
id = "roma"
name = "Roma"
structure = "pot_limit"
small_blind = 10
big_blind = 20
seats = 9
practice = true
house_bots = 3
"#,
        )
        .unwrap();
        let lyon = file.table[0].table_config().unwrap();
        assert_eq!(
            (
                lyon.stakes.small_blind,
                lyon.stakes.big_blind,
                lyon.stakes.big_bet
            ),
            (10, 20, 40)
        );
        assert_eq!((lyon.min_buy_in, lyon.max_buy_in), (200, 2_000));
        let roma = file.table[1].table_config().unwrap();
        assert_eq!(roma.seats, 9);

        let mut bad = file.table[1].clone();
        bad.id = "Roma!".into();
        assert!(matches!(bad.table_config(), Err(DefError::Id(_))));
        let mut bad = file.table[1].clone();
        bad.practice = false;
        assert!(bad.table_config().is_err());
        let mut bad = file.table[1].clone();
        bad.seats = 11;
        assert!(bad.table_config().is_err());
        assert!(
            toml::from_str::<TablesFile>("[[table]]\nid='x'\nname='x'\nstructure='limit'").is_err()
        );
    }
}
