//! The practice tables' house bots: seated and stocked through the same ledger as people,
//! acting after a short "think".

use std::time::Duration;

use rand::Rng;
use tokio::time::Instant;
use uuid::Uuid;

use super::TableActor;
use super::command::{Account, player_id};
use crate::bots::strategy;
use crate::tables::house_bots;

impl TableActor {
    pub(super) fn schedule_bot(&mut self) {
        let bot_to_act = self
            .table
            .hand()
            .and_then(|h| h.to_act())
            .and_then(|seat| self.table.seat(seat))
            .is_some_and(|s| self.bots.contains_key(&s.player));
        self.bot_acts_at = bot_to_act.then(|| {
            let think = rand::rng().random_range(house_bots::THINK_MS);
            Instant::now() + Duration::from_millis(think)
        });
    }

    pub(super) async fn bot_act(&mut self) {
        let Some(legal) = self.table.hand().and_then(|h| h.legal()) else {
            return;
        };
        let is_bot = self
            .table
            .seat(legal.seat)
            .is_some_and(|s| self.bots.contains_key(&s.player));
        if !is_bot {
            return;
        }
        let action = strategy::choose(&legal, &mut rand::rng());
        if let Ok(events) = self.table.act(legal.seat, action) {
            self.charge_clock(legal.seat);
            self.changed(events).await;
        }
    }

    /// Keeps the practice table's house bots seated and stocked with chips.
    pub(super) async fn seat_bots(&mut self) {
        if self.bots.is_empty() || self.stop_dealing {
            return;
        }
        let bots: Vec<Account> = self.bots.values().cloned().collect();
        let config = self.table.config().clone();
        let buy_in = config.max_buy_in / 2;
        for bot in bots {
            match self.seat_of(bot.id) {
                Some(seat) => {
                    let stack = self.table.seat(seat).map_or(0, |s| s.stack);
                    if stack < config.min_buy_in {
                        let amount = buy_in - stack.min(buy_in);
                        if amount > 0 && self.table.can_top_up(seat, amount).is_ok() {
                            let _ = self.ledger.fund_house_bot(bot.id, amount).await;
                            let key = format!("bot-top-up:{}", Uuid::new_v4());
                            if self
                                .ledger
                                .top_up(bot.id, &self.id, amount, &key)
                                .await
                                .is_ok()
                            {
                                let _ = self.table.top_up(seat, amount);
                            }
                        }
                    }
                    if self.is_sitting_out(seat) {
                        let _ = self.table.sit_in(seat, true);
                    }
                }
                None => {
                    // Bots take the highest free seats, leaving the first ones for people.
                    let Some(free) = (0..config.seats).rev().find(|&s| {
                        self.table.seat(s).is_none() && self.waitlist.held_for(s).is_none()
                    }) else {
                        continue;
                    };
                    let _ = self.ledger.fund_house_bot(bot.id, buy_in).await;
                    let key = format!("bot-sit:{}", Uuid::new_v4());
                    if self
                        .ledger
                        .buy_in(bot.id, &self.id, free, buy_in, &key)
                        .await
                        .is_ok()
                    {
                        let _ =
                            self.table
                                .sit(free, player_id(bot.id), bot.name.clone(), buy_in, true);
                    }
                }
            }
        }
    }
}
