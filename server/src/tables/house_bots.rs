//! House bots: clearly labelled accounts that keep practice tables going.

use std::ops::Range;

use sqlx::PgPool;
use uuid::Uuid;

use crate::chips::{self, ChipsError};
use crate::tables::actor::Account;

/// How long a house bot "thinks" before acting, in milliseconds.
pub const THINK_MS: Range<u64> = 400..1_500;

const NAMES: [&str; 9] = [
    "Ada", "Bix", "Cleo", "Dot", "Eno", "Fay", "Gus", "Hal", "Ivy",
];

/// The bot accounts for one table, created on first use. Their names say what they are.
pub async fn accounts(
    pool: &PgPool,
    table_id: &str,
    count: u8,
) -> Result<Vec<Account>, ChipsError> {
    let mut bots = Vec::new();
    for i in 0..count.min(NAMES.len() as u8) {
        let username = format!("bot-{}-{}", NAMES[i as usize].to_lowercase(), table_id);
        let username: String = username.chars().take(40).collect();
        let existing: Option<Uuid> =
            sqlx::query_scalar("SELECT id FROM accounts WHERE username_key = lower($1)")
                .bind(&username)
                .fetch_optional(pool)
                .await?;
        let id = match existing {
            Some(id) => id,
            None => {
                let id = Uuid::new_v4();
                let mut tx = pool.begin().await?;
                // "!" is no argon2 hash: nobody can log in as a bot.
                chips::create_account(&mut tx, id, &username, "!", 0).await?;
                sqlx::query("UPDATE accounts SET house_bot = true WHERE id = $1")
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                id
            }
        };
        bots.push(Account {
            id,
            name: format!("{} (house bot)", NAMES[i as usize]),
        });
    }
    Ok(bots)
}
