//! Table chat: who may talk, how long a line is, how fast one may talk.

use shared::protocol::MAX_CHAT_CHARS;
use uuid::Uuid;

use super::error::RequestError;
use crate::ratelimit::RateLimiter;

pub struct Chat {
    limiter: RateLimiter<Uuid>,
}

impl Default for Chat {
    fn default() -> Self {
        // 20 lines a minute, 5 at once.
        Chat {
            limiter: RateLimiter::new(20, 5),
        }
    }
}

/// Now, in milliseconds since the Unix epoch: the time a chat line is stamped with (each
/// reader shows it in their own time zone).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl Chat {
    /// The line to show, cleaned of control characters, from a seated player (`name`);
    /// spectators may not chat.
    pub fn line(
        &self,
        account: Uuid,
        name: Option<&str>,
        text: &str,
    ) -> Result<String, RequestError> {
        if name.is_none() {
            return Err(RequestError::ChatNotSeated);
        }
        let text: String = text.chars().filter(|c| !c.is_control()).collect();
        let text = text.trim();
        if text.is_empty() || text.chars().count() > MAX_CHAT_CHARS {
            return Err(RequestError::ChatLength);
        }
        if !self.limiter.allow(&account) {
            return Err(RequestError::ChatTooFast);
        }
        Ok(text.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Uuid = Uuid::from_u128(1);

    #[test]
    fn spectators_cannot_chat() {
        let chat = Chat::default();
        assert!(matches!(
            chat.line(A, None, "hi"),
            Err(RequestError::ChatNotSeated)
        ));
    }

    #[test]
    fn control_characters_are_dropped_and_blank_lines_refused() {
        let chat = Chat::default();
        assert_eq!(
            chat.line(A, Some("ann"), " nice\u{7} hand\n")
                .expect("a line"),
            "nice hand"
        );
        assert!(matches!(
            chat.line(A, Some("ann"), " \n\t"),
            Err(RequestError::ChatLength)
        ));
    }

    #[test]
    fn a_line_is_at_most_the_protocol_length_in_characters() {
        let chat = Chat::default();
        let longest = "é".repeat(MAX_CHAT_CHARS);
        assert!(chat.line(A, Some("ann"), &longest).is_ok());
        let longer = "é".repeat(MAX_CHAT_CHARS + 1);
        assert!(matches!(
            chat.line(A, Some("ann"), &longer),
            Err(RequestError::ChatLength)
        ));
    }

    #[test]
    fn a_burst_of_five_lines_then_the_player_must_wait() {
        let chat = Chat::default();
        for _ in 0..5 {
            assert!(chat.line(A, Some("ann"), "gl").is_ok());
        }
        assert!(matches!(
            chat.line(A, Some("ann"), "gl"),
            Err(RequestError::ChatTooFast)
        ));
        // Another player has their own allowance.
        assert!(chat.line(Uuid::from_u128(2), Some("bob"), "gl").is_ok());
    }
}
