//! Per-key token buckets (client IPs for logins, connections for socket messages).

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use std::time::Instant;

pub struct RateLimiter<K> {
    per_minute: f64,
    burst: f64,
    buckets: Mutex<HashMap<K, (f64, Instant)>>,
}

impl<K: Hash + Eq + Clone> RateLimiter<K> {
    /// Allows `per_minute` on average with bursts of up to `burst`.
    pub fn new(per_minute: u32, burst: u32) -> Self {
        RateLimiter {
            per_minute: f64::from(per_minute.max(1)),
            burst: f64::from(burst.max(1)),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one token for `key`; false when the key is over its rate.
    pub fn allow(&self, key: &K) -> bool {
        let now = Instant::now();
        let mut buckets = match self.buckets.lock() {
            Ok(b) => b,
            Err(poisoned) => poisoned.into_inner(),
        };
        if buckets.len() > 100_000 {
            // Forget keys that have refilled completely: they behave like new ones.
            let full = self.burst / self.per_minute * 60.0;
            buckets.retain(|_, (_, at)| now.duration_since(*at).as_secs_f64() < full);
        }
        let (tokens, at) = buckets.entry(key.clone()).or_insert((self.burst, now));
        let refill = now.duration_since(*at).as_secs_f64() * self.per_minute / 60.0;
        *tokens = (*tokens + refill).min(self.burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_is_allowed_then_refused_per_key() {
        let r = RateLimiter::new(60, 3);
        assert!((0..3).all(|_| r.allow(&1)));
        assert!(!r.allow(&1));
        assert!(r.allow(&2));
    }
}
