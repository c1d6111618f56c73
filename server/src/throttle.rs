//! Slowing down password guessing without handing an attacker a way to lock anyone out.
//!
//! Failures are counted per (name, client) pair, where the client is a device that has logged
//! into that account before (it holds the account's device cookie) or else the address: after
//! a few failures that pair must wait, twice as long after each further one (up to 15
//! minutes). Other clients are not slowed by them, so an attacker cannot keep a player out by
//! failing on their name, even from the player's own address. Across all clients a name has a
//! ceiling: past it, clients that never logged into that account share one attempt per
//! interval (one a minute: with the ceiling, about 90 failures an hour at most on any
//! account, under ASVS 2.2.1's 100), while the account's known devices are never slowed by
//! it. Names are counted whether or not an account has them, so the answers tell nothing
//! about which names exist.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failures a pair may make before it waits.
const FREE_FAILURES: u32 = 3;
const FIRST_WAIT: Duration = Duration::from_secs(1);
const LONGEST_WAIT: Duration = Duration::from_secs(15 * 60);
/// Failures on one name, from anywhere, within `WINDOW`, past which unknown clients slow down.
const CEILING: u32 = 30;
const WINDOW: Duration = Duration::from_secs(60 * 60);
/// Past the ceiling, unknown clients get one attempt at that name per this interval.
const CEILING_INTERVAL: Duration = Duration::from_secs(60);

#[derive(Clone, Copy)]
struct PairState {
    failures: u32,
    next: Instant,
}

#[derive(Clone, Copy)]
struct NameState {
    failures: u32,
    since: Instant,
    next_unknown: Instant,
}

/// Who is trying.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Client {
    /// A device that has logged into the account (the hash of its cookie).
    Device(Vec<u8>),
    Address(IpAddr),
}

#[derive(Default)]
struct State {
    pairs: HashMap<(String, Client), PairState>,
    names: HashMap<String, NameState>,
    calls: u64,
}

#[derive(Default)]
pub struct LoginThrottle {
    state: Mutex<State>,
}

fn key(name: &str) -> String {
    name.to_lowercase()
}

/// How long a pair waits after `failures` failures.
fn wait_after(failures: u32) -> Duration {
    if failures < FREE_FAILURES {
        return Duration::ZERO;
    }
    let doublings = (failures - FREE_FAILURES).min(20);
    FIRST_WAIT.saturating_mul(1 << doublings).min(LONGEST_WAIT)
}

impl LoginThrottle {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        match self.state.lock() {
            Ok(s) => s,
            Err(p) => p.into_inner(),
        }
    }

    /// Whether an attempt at `name` from `client` may be checked now; otherwise how long to
    /// wait.
    pub fn check(&self, name: &str, client: &Client, now: Instant) -> Result<(), Duration> {
        let mut s = self.state();
        let name = key(name);
        if let Some(p) = s.pairs.get(&(name.clone(), client.clone()))
            && p.next > now
        {
            return Err(p.next - now);
        }
        if !matches!(client, Client::Device(_))
            && let Some(n) = s.names.get_mut(&name)
            && now.duration_since(n.since) < WINDOW
            && n.failures >= CEILING
        {
            if n.next_unknown > now {
                return Err(n.next_unknown - now);
            }
            n.next_unknown = now + CEILING_INTERVAL;
        }
        Ok(())
    }

    pub fn failed(&self, name: &str, client: &Client, now: Instant) {
        let mut s = self.state();
        let name = key(name);
        let pair = s
            .pairs
            .entry((name.clone(), client.clone()))
            .or_insert(PairState {
                failures: 0,
                next: now,
            });
        pair.failures = pair.failures.saturating_add(1);
        pair.next = now + wait_after(pair.failures);
        let n = s.names.entry(name).or_insert(NameState {
            failures: 0,
            since: now,
            next_unknown: now,
        });
        if now.duration_since(n.since) >= WINDOW {
            *n = NameState {
                failures: 0,
                since: now,
                next_unknown: now,
            };
        }
        n.failures = n.failures.saturating_add(1);
        s.calls += 1;
        if s.calls.is_multiple_of(1024) {
            // Forget what no longer slows anyone.
            s.pairs
                .retain(|_, p| now.duration_since(p.next) < WINDOW || p.next > now);
            s.names.retain(|_, n| now.duration_since(n.since) < WINDOW);
        }
    }

    /// A right password: this pair starts afresh.
    pub fn succeeded(&self, name: &str, client: &Client) {
        self.state().pairs.remove(&(key(name), client.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> Client {
        Client::Address(IpAddr::from([10, 0, 0, last]))
    }

    fn device() -> Client {
        Client::Device(vec![7; 32])
    }

    #[test]
    fn a_pair_waits_longer_after_each_failure_past_the_free_ones() {
        let t = LoginThrottle::default();
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(t.check("Erin", &ip(1), t0).is_ok());
            t.failed("Erin", &ip(1), t0);
        }
        assert_eq!(t.check("erin", &ip(1), t0), Err(Duration::from_secs(1)));
        let t1 = t0 + Duration::from_secs(1);
        assert!(t.check("erin", &ip(1), t1).is_ok());
        t.failed("erin", &ip(1), t1);
        assert_eq!(t.check("erin", &ip(1), t1), Err(Duration::from_secs(2)));
        assert_eq!(wait_after(40), LONGEST_WAIT);
    }

    #[test]
    fn another_address_is_not_slowed_by_an_attackers_failures() {
        let t = LoginThrottle::default();
        let t0 = Instant::now();
        for _ in 0..10 {
            t.failed("erin", &ip(66), t0);
        }
        assert!(t.check("erin", &ip(66), t0).is_err());
        assert!(t.check("erin", &ip(1), t0).is_ok());
    }

    #[test]
    fn past_the_ceiling_unknown_clients_share_one_try_and_known_ones_are_not_slowed() {
        let t = LoginThrottle::default();
        let t0 = Instant::now();
        // A botnet: one failure from each of many addresses.
        for i in 0..CEILING {
            let bot = Client::Address(IpAddr::from([10, 1, (i / 250) as u8, (i % 250) as u8]));
            t.failed("erin", &bot, t0);
        }
        assert!(t.check("erin", &ip(200), t0).is_ok(), "one unknown try");
        assert!(
            t.check("erin", &ip(201), t0).is_err(),
            "then the others wait"
        );
        assert!(
            t.check("erin", &device(), t0).is_ok(),
            "the owner's device is never slowed"
        );
        assert!(t.check("erin", &device(), t0).is_ok());
        assert!(t.check("erin", &ip(201), t0 + CEILING_INTERVAL).is_ok());
        // An hour later the ceiling is forgotten.
        assert!(t.check("erin", &ip(203), t0 + WINDOW).is_ok());
        assert!(t.check("erin", &ip(204), t0 + WINDOW).is_ok());
    }

    #[test]
    fn a_known_device_has_its_own_count_even_at_the_attackers_address() {
        let t = LoginThrottle::default();
        let t0 = Instant::now();
        for _ in 0..10 {
            t.failed("erin", &ip(1), t0);
        }
        assert!(t.check("erin", &ip(1), t0).is_err());
        assert!(t.check("erin", &device(), t0).is_ok());
    }

    #[test]
    fn success_resets_the_pair() {
        let t = LoginThrottle::default();
        let t0 = Instant::now();
        for _ in 0..5 {
            t.failed("erin", &ip(1), t0);
        }
        t.succeeded("ERIN", &ip(1));
        assert!(t.check("erin", &ip(1), t0).is_ok());
    }
}
