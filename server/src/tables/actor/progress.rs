//! The table moving on: dealing a hand, telling everyone after each change, and the end of a
//! hand in its one safe order: settle, cash out who left, then broadcast.

use std::time::Duration;

use serde_json::json;
use shared::card::Deck;
use shared::equity::with_run_out_equity;
use shared::format;
use shared::hand::Event;
use shared::protocol::{ErrorCode, ServerMessage};
use shared::rules::Chips;
use tokio::time::Instant;

use super::TableActor;
use super::fanout::encode;
use super::hand_log::{self, RunningHand, Settled};
use super::ledger::HandStart;
use super::seats::Gone;

impl TableActor {
    /// After any change: settle a finished hand, tell every watcher, run the clock,
    /// pre-selected actions and bots.
    pub(super) async fn changed(&mut self, events: Vec<Event>) {
        self.changed_leaving(events, None).await;
    }

    /// `changed`, for a leave that freed a seat during a hand: the stack goes back to the
    /// balance after any settlement the leave caused (which needs the seat's row) and before
    /// the broadcast that shows the seat empty, so a client that sees itself gone finds its
    /// chips in its balance.
    pub(super) async fn changed_leaving(
        &mut self,
        mut engine_events: Vec<Event>,
        mut leaver: Option<Gone>,
    ) {
        loop {
            let mut events: Vec<format::Event> =
                engine_events.iter().map(format::Event::from).collect();
            if let Some(h) = &mut self.hand {
                events = with_equity(&h.record.events, events).await;
                h.record.events.extend(events.iter().cloned());
            }
            if self.hand.is_some() && !self.table.hand_running() {
                let starting = self.table.hand().map(|h| h.starting_stacks());
                let settled = self.finish_hand().await;
                if let Some(mut gone) = leaver.take() {
                    if !settled
                        && let Some(&(_, stack)) = starting
                            .iter()
                            .flatten()
                            .find(|(seat, _)| *seat == gone.seat)
                    {
                        // The hand was taken back: so was what the leaver won or lost in it.
                        gone.stack = stack;
                    }
                    self.cash_out_gone(gone).await;
                }
                if settled {
                    self.broadcast(&events);
                } else {
                    // The result never reached the database and was taken back: what is
                    // shown is the table as it is now, without it.
                    self.watchers.mark_all_stale();
                    self.broadcast(&[]);
                }
                self.after_hand().await;
                return;
            }
            if let Some(gone) = leaver.take() {
                self.cash_out_gone(gone).await;
            }
            // The clock first, so the message carries the clock of the player now to act.
            self.restart_clock();
            self.broadcast(&events);
            // A pre-selected action for the player now to act is applied at once.
            match self.take_pre_action() {
                Some((seat, action)) => match self.table.act(seat, action) {
                    Ok(more) => {
                        self.charge_clock(seat);
                        engine_events = more;
                    }
                    Err(_) => return,
                },
                None => {
                    self.schedule_bot();
                    return;
                }
            }
        }
    }

    pub(super) async fn try_start_hand(&mut self) {
        // No hand is dealt while memory may disagree with the database about a seat.
        for account in self.unsure.iter().copied().collect::<Vec<_>>() {
            if let Err(e) = self.reconcile(account).await {
                tracing::warn!(table = %self.id, error = %e, "cannot check a seat with the database yet");
                self.next_hand_at = Instant::now() + Duration::from_secs(1);
                return;
            }
        }
        self.seat_bots().await;
        let deck = Deck::shuffled(&mut rand::rng());
        let order = deck.order().to_vec();
        let sitting_out = |t: &shared::table::Table| {
            t.seats()
                .filter(|(_, s)| s.status == shared::table::SeatStatus::SittingOut)
                .count()
        };
        let before = sitting_out(&self.table);
        let Ok(events) = self.table.start_hand(deck) else {
            // Not enough players: look again shortly. Someone whose big blind came may have
            // been sat out on the way (docs/rules.md §7.13): everyone sees it.
            if sitting_out(&self.table) != before {
                self.sat_out.track(&self.table, Instant::now());
                self.broadcast(&[]);
            }
            self.next_hand_at = Instant::now() + Duration::from_millis(500);
            return;
        };
        let number = self.hand_number + 1;
        let Some(running) = RunningHand::new(&self.id, &self.def.name, number, &self.table, order)
        else {
            return;
        };
        let starting = json!(self.table.hand().map(|h| h.starting_stacks()));
        // The hand is on record (deck hash, starting stacks) before anyone sees a card.
        let writing = Instant::now();
        let written = self
            .ledger
            .start_hand(HandStart {
                id: running.id,
                table_id: &self.id,
                deck_hash: &running.deck_hash(),
                starting_stacks: &starting,
                number,
                players: &running.accounts,
            })
            .await;
        self.metrics.hand_start_write.observe(writing.elapsed());
        if let Err(e) = written {
            tracing::error!(table = %self.id, error = %e, "could not record the hand start; voiding it");
            self.metrics.db_errors.inc();
            let _ = self.table.void_hand();
            self.next_hand_at = Instant::now() + Duration::from_secs(5);
            return;
        }
        self.hand_number = number;
        self.metrics.hands_started.inc();
        self.hand = Some(running);
        self.last_hand.clear();
        self.changed(events).await;
    }

    /// Settles the finished hand: stacks, rake and history in one transaction. Returns whether
    /// it was settled (false: it was taken back, here and in the database).
    async fn finish_hand(&mut self) -> bool {
        let Some(running) = self.hand.take() else {
            return false;
        };
        self.clocks.stop();
        self.bot_acts_at = None;
        self.pre_actions.clear();
        let Some(result) = self.table.hand().and_then(|h| h.result()).cloned() else {
            return false;
        };
        let notice = encode(&ServerMessage::Error {
            code: ErrorCode::DatabaseUnavailable,
            message: "waiting for the database; the hand will be settled when it is back".into(),
            table: Some(self.id.clone()),
        });
        let watchers = &mut self.watchers;
        let settled = hand_log::settle(
            self.ledger.as_ref(),
            &self.metrics,
            &self.id,
            &running,
            &result,
            || watchers.send_all(&notice),
        )
        .await;
        match settled {
            Settled::TakenBack => {
                let _ = self.table.undo_finished_hand();
                self.doubt_every_seat();
            }
            Settled::Lost => {
                let _ = self.table.undo_finished_hand();
                self.lost = true;
            }
            Settled::Committed => {}
        }
        let pot: Chips = result.pots.iter().map(|p| p.amount).sum();
        let now = Instant::now();
        self.metrics.hand_duration.observe(now - running.started);
        self.lobby.stats.finished(now, pot);
        self.metrics.hands_finished.inc();
        let run_out = run_out_streets(&running.record.events) * self.def.run_out_street_ms;
        self.next_hand_at = now + Duration::from_millis(self.def.between_hands_ms + run_out);
        if settled == Settled::Committed {
            self.last_hand = running.record.events;
        }
        settled == Settled::Committed
    }

    /// Deferred leaves and stand-ups once a hand is over.
    async fn after_hand(&mut self) {
        for (seat, s) in self.table.take_leavers() {
            self.cash_out_gone(Gone::from(s).at(seat)).await;
        }
        self.remove_due().await;
        self.stand_up_idle().await;
        let seats: Vec<u8> = self.table.seats().map(|(seat, _)| seat).collect();
        for seat in seats {
            self.auto_top_up(seat).await;
        }
        self.sat_out.track(&self.table, Instant::now());
        self.broadcast(&[]);
        self.publish_lobby();
    }
}

/// `events` with each face-up hand's equity at every street of an all-in run-out
/// (`shared::equity::with_run_out_equity`). Exact enumeration takes up to a few milliseconds
/// (three hands all in before the flop), so it runs on the blocking pool, not on the tokio
/// worker that serves other tables; the table waits for it as it waits for its writes.
async fn with_equity(record: &[format::Event], events: Vec<format::Event>) -> Vec<format::Event> {
    let face_up = |e: &format::Event| matches!(e, format::Event::HandsFaceUp { .. });
    let dealt = |e: &format::Event| matches!(e, format::Event::BoardDealt { .. });
    let runs_out =
        events.iter().any(face_up) || (events.iter().any(dealt) && record.iter().any(face_up));
    if !runs_out {
        return events;
    }
    let record = record.to_vec();
    let fallback = events.clone();
    tokio::task::spawn_blocking(move || with_run_out_equity(&record, events))
        .await
        .unwrap_or_else(|e| {
            tracing::error!(error = %e, "equity computation failed; the run-out is shown without it");
            fallback
        })
}

/// Streets dealt after the hands were turned face up (an all-in run-out), both runs of a hand
/// run twice.
fn run_out_streets(events: &[format::Event]) -> u64 {
    events
        .iter()
        .skip_while(|e| !matches!(e, format::Event::HandsFaceUp { .. }))
        .filter(|e| {
            matches!(
                e,
                format::Event::BoardDealt { .. } | format::Event::SecondRunDealt { .. }
            )
        })
        .count() as u64
}

#[cfg(test)]
mod tests {
    use shared::card::Card;
    use shared::format::Event;
    use shared::hand::Street;

    use super::run_out_streets;

    fn dealt(street: Street, cards: &str) -> Event {
        Event::BoardDealt {
            street,
            cards: Card::parse_many(cards).unwrap_or_default(),
        }
    }

    #[test]
    fn only_streets_dealt_after_the_hands_are_face_up_lengthen_the_pause() {
        let face_up = Event::HandsFaceUp { hands: Vec::new() };
        let flop = dealt(Street::Flop, "2h7dTs");
        let turn = dealt(Street::Turn, "9c");
        let river = dealt(Street::River, "5h");
        let played_out = [flop.clone(), turn.clone(), river.clone()];
        assert_eq!(run_out_streets(&played_out), 0);
        let all_in_on_the_flop = [flop, face_up.clone(), turn.clone(), river.clone()];
        assert_eq!(run_out_streets(&all_in_on_the_flop), 2);
        let second = |street, cards| Event::SecondRunDealt {
            street,
            cards: Card::parse_many(cards).unwrap_or_default(),
        };
        let run_twice = [
            face_up,
            turn,
            river,
            second(Street::Turn, "Kd"),
            second(Street::River, "3c"),
        ];
        assert_eq!(run_out_streets(&run_twice), 4);
    }
}
