//! A full table's waiting list (docs/rules.md §7.14): first come, first served. A seat that
//! comes free is held for the first player in line without an offer, for a while; taking it
//! is an ordinary buy-in, and passing or letting the offer lapse leaves the list. `Waitlist`
//! is pure (`now` is passed in); the table task's part, which keeps it in step with the seats
//! and tells the players, is the `impl TableActor` below it.

use std::collections::VecDeque;
use std::time::Duration;

use shared::protocol::{SeatOffer, ServerMessage};
use tokio::time::Instant;
use uuid::Uuid;

use super::TableActor;
use super::command::{Account, Outbound, Outgoing};
use super::error::RequestError;
use super::fanout::encode;

pub struct Waiter {
    pub account: Uuid,
    /// The connection that joined last: where this player hears of their place and offers.
    pub out: Outbound,
    pub offer: Option<Offer>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offer {
    pub seat: u8,
    pub until: Instant,
}

pub struct Waitlist {
    line: VecDeque<Waiter>,
    hold: Duration,
}

impl Waitlist {
    pub fn new(hold: Duration) -> Waitlist {
        Waitlist {
            line: VecDeque::new(),
            hold,
        }
    }

    pub fn len(&self) -> usize {
        self.line.len()
    }

    pub fn is_empty(&self) -> bool {
        self.line.is_empty()
    }

    /// Puts `account` at the end of the line, or keeps its place (a reload sends the request
    /// again from a new connection, which then hears the news).
    pub fn join(&mut self, account: Uuid, out: Outbound) {
        match self.line.iter_mut().find(|w| w.account == account) {
            Some(w) => w.out = out,
            None => self.line.push_back(Waiter {
                account,
                out,
                offer: None,
            }),
        }
    }

    /// Takes `account` off the list (it passed, sat down, or went away).
    pub fn remove(&mut self, account: Uuid) -> Option<Waiter> {
        let at = self.line.iter().position(|w| w.account == account)?;
        self.line.remove(at)
    }

    /// 1 for the first in line.
    pub fn position(&self, account: Uuid) -> Option<u32> {
        let at = self.line.iter().position(|w| w.account == account)?;
        u32::try_from(at + 1).ok()
    }

    /// Whom `seat` is held for, if anyone.
    pub fn held_for(&self, seat: u8) -> Option<Uuid> {
        self.line
            .iter()
            .find(|w| w.offer.is_some_and(|o| o.seat == seat))
            .map(|w| w.account)
    }

    /// Offers each free seat not held yet to the next player in line without an offer.
    /// Returns the accounts that got one.
    pub fn offer(&mut self, free: impl IntoIterator<Item = u8>, now: Instant) -> Vec<Uuid> {
        let mut offered = Vec::new();
        for seat in free {
            if self.held_for(seat).is_some() {
                continue;
            }
            let Some(w) = self.line.iter_mut().find(|w| w.offer.is_none()) else {
                break;
            };
            w.offer = Some(Offer {
                seat,
                until: now + self.hold,
            });
            offered.push(w.account);
        }
        offered
    }

    /// Offers that ran out: their players leave the list. An offer of a seat that is no
    /// longer free (the table closed it) is withdrawn, and its player keeps their place.
    pub fn expire(&mut self, now: Instant, free: &[u8]) -> Vec<Waiter> {
        for w in &mut self.line {
            if w.offer.is_some_and(|o| !free.contains(&o.seat)) {
                w.offer = None;
            }
        }
        let (gone, kept): (Vec<Waiter>, Vec<Waiter>) = self
            .line
            .drain(..)
            .partition(|w| w.offer.is_some_and(|o| o.until <= now));
        self.line = kept.into();
        gone
    }

    /// The earliest moment an offer runs out.
    pub fn deadline(&self) -> Option<Instant> {
        self.line
            .iter()
            .filter_map(|w| w.offer)
            .map(|o| o.until)
            .min()
    }

    /// Everyone leaves the list (the table is closing).
    pub fn clear(&mut self) -> Vec<Waiter> {
        self.line.drain(..).collect()
    }

    pub fn waiters(&self) -> impl Iterator<Item = &Waiter> {
        self.line.iter()
    }
}

impl TableActor {
    pub(super) fn join_waitlist(
        &mut self,
        account: &Account,
        out: &Outbound,
    ) -> Result<(), RequestError> {
        if self.closing {
            return Err(RequestError::Closing);
        }
        if self.seat_of(account.id).is_some() {
            return Err(RequestError::SeatedHere);
        }
        if self
            .home
            .as_ref()
            .is_some_and(|g| g.removed.contains(&account.id))
        {
            return Err(RequestError::Removed);
        }
        let open = self
            .free_seats()
            .into_iter()
            .any(|s| self.waitlist.held_for(s).is_none());
        if open && self.waitlist.position(account.id).is_none() {
            return Err(RequestError::SeatFree);
        }
        self.waitlist.join(account.id, out.clone());
        self.waitlist_changed();
        Ok(())
    }

    pub(super) fn leave_waitlist(&mut self, account: &Account) -> Result<(), RequestError> {
        let gone = self
            .waitlist
            .remove(account.id)
            .ok_or(RequestError::NotWaiting)?;
        self.tell_off_the_list(&gone);
        self.waitlist_changed();
        Ok(())
    }

    /// A seat request for a seat held for someone else is refused.
    pub(super) fn check_not_held(&self, seat: u8, account: Uuid) -> Result<(), RequestError> {
        match self.waitlist.held_for(seat) {
            Some(holder) if holder != account => Err(RequestError::SeatHeld(seat)),
            _ => Ok(()),
        }
    }

    fn free_seats(&self) -> Vec<u8> {
        (0..self.table.config().seats)
            .filter(|&s| self.table.seat(s).is_none())
            .collect()
    }

    /// After every command and timer step: players who sat down leave the line, lapsed offers
    /// leave it, and free seats are held for the next in line.
    pub(super) fn update_waitlist(&mut self) {
        if self.waitlist.is_empty() {
            return;
        }
        let mut changed = false;
        let seated: Vec<Uuid> = self
            .waitlist
            .waiters()
            .map(|w| w.account)
            .filter(|&a| self.seat_of(a).is_some())
            .collect();
        for account in seated {
            if let Some(gone) = self.waitlist.remove(account) {
                self.tell_off_the_list(&gone);
                changed = true;
            }
        }
        let now = Instant::now();
        let free = self.free_seats();
        for gone in self.waitlist.expire(now, &free) {
            self.tell_off_the_list(&gone);
            changed = true;
        }
        if self.closing {
            for gone in self.waitlist.clear() {
                self.tell_off_the_list(&gone);
            }
            changed = true;
        } else if !self.waitlist.offer(free, now).is_empty() {
            changed = true;
        }
        if changed {
            self.waitlist_changed();
        }
    }

    /// Everyone in line hears their place (and any seat held for them); watchers see how many
    /// wait, and so does the lobby.
    fn waitlist_changed(&mut self) {
        let now = Instant::now();
        for (n, w) in self.waitlist.waiters().enumerate() {
            let message = ServerMessage::Waitlist {
                table: self.id.clone(),
                position: u32::try_from(n + 1).ok(),
                offer: w.offer.map(|o| SeatOffer {
                    seat: o.seat,
                    expires_in_ms: u64::try_from(
                        o.until.saturating_duration_since(now).as_millis(),
                    )
                    .unwrap_or(u64::MAX),
                }),
            };
            // A full queue or a closed socket loses this notice only: the offer stands until it
            // lapses, and a reconnecting client asks again.
            let _ = w.out.try_send(Outgoing::Frame(encode(&message)));
        }
        self.broadcast(&[]);
        self.publish_lobby();
    }

    fn tell_off_the_list(&self, gone: &Waiter) {
        let message = ServerMessage::Waitlist {
            table: self.id.clone(),
            position: None,
            offer: None,
        };
        let _ = gone.out.try_send(Outgoing::Frame(encode(&message)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::mpsc;

    fn out() -> Outbound {
        mpsc::channel(4).0
    }

    fn id(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    #[test]
    fn the_first_in_line_is_offered_the_free_seat_and_it_is_held_for_them() {
        let mut w = Waitlist::new(Duration::from_secs(30));
        let now = Instant::now();
        w.join(id(1), out());
        w.join(id(2), out());
        assert_eq!(w.position(id(2)), Some(2));
        assert_eq!(w.offer([3], now), vec![id(1)]);
        assert_eq!(w.held_for(3), Some(id(1)));
        // The same seat is not offered twice; a second seat goes to the second player.
        assert!(w.offer([3], now).is_empty());
        assert_eq!(w.offer([3, 5], now), vec![id(2)]);
        assert_eq!(w.deadline(), Some(now + Duration::from_secs(30)));
    }

    #[test]
    fn joining_again_keeps_the_place_in_line() {
        let mut w = Waitlist::new(Duration::from_secs(30));
        w.join(id(1), out());
        w.join(id(2), out());
        w.join(id(1), out());
        assert_eq!(w.position(id(1)), Some(1));
        assert_eq!(w.len(), 2);
    }

    #[test]
    fn an_offer_that_runs_out_leaves_the_list_and_the_seat_goes_to_the_next() {
        let mut w = Waitlist::new(Duration::from_secs(30));
        let now = Instant::now();
        w.join(id(1), out());
        w.join(id(2), out());
        w.offer([4], now);
        assert!(w.expire(now + Duration::from_secs(29), &[4]).is_empty());
        let gone = w.expire(now + Duration::from_secs(30), &[4]);
        assert_eq!(gone.iter().map(|g| g.account).collect::<Vec<_>>(), [id(1)]);
        assert_eq!(w.position(id(2)), Some(1));
        assert_eq!(w.offer([4], now), vec![id(2)]);
    }

    #[test]
    fn an_offer_of_a_seat_no_longer_free_is_withdrawn_and_the_place_kept() {
        let mut w = Waitlist::new(Duration::from_secs(30));
        let now = Instant::now();
        w.join(id(1), out());
        w.offer([4], now);
        assert!(w.expire(now + Duration::from_secs(60), &[]).is_empty());
        assert_eq!(w.held_for(4), None);
        assert_eq!(w.position(id(1)), Some(1));
    }
}
