//! What the calculator page and its Web Worker say to each other. Both are built together, so
//! this is not a format that outlives a release; it is plain text rather than JSON because
//! serde's derived parsers for these types cost the page's bundle about 4 KB (Brotli), more
//! than a third of the page itself. Probabilities travel in millionths: the page then needs no
//! floating-point parsing either.
//!
//! A request: `HANDS;BOARD;DEAD;TRIALS`, hands separated by commas, `?` for a random hand,
//! cards as `AhKd2c3s`, `TRIALS` empty for the automatic choice.
//! A reply: `exact BOARDS` or `sampled TRIALS`, then `no_low N`, then one line per hand
//! `POT SCOOP HIGH LOW POT_ERROR`; or `refused MESSAGE`.

use std::fmt::{self, Write};

use crate::card::{Card, format_cards};

use super::{Computed, Equity, Method, Spot, equity};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub spot: Spot,
    /// Monte Carlo with this many trials instead of the automatic choice.
    pub trials: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Done(Summary),
    /// The spot was refused (the page checks first, so this is a bug or a stale page).
    Refused(String),
}

/// [`Equity`] in millionths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub players: Vec<Chances>,
    pub no_low: u32,
    pub computed: Computed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chances {
    pub pot: u32,
    pub scoop: u32,
    pub high: u32,
    pub low: u32,
    pub pot_error: u32,
}

/// A probability in millionths.
pub fn millionths(p: f64) -> u32 {
    (p * 1e6).round().clamp(0.0, 1e6) as u32
}

impl From<&Equity> for Summary {
    fn from(e: &Equity) -> Summary {
        Summary {
            players: e
                .players
                .iter()
                .map(|p| Chances {
                    pot: millionths(p.pot),
                    scoop: millionths(p.scoop),
                    high: millionths(p.high),
                    low: millionths(p.low),
                    pot_error: millionths(p.pot_error),
                })
                .collect(),
            no_low: millionths(e.no_low),
            computed: e.computed,
        }
    }
}

/// The worker's whole job.
pub fn answer(request: &Request) -> Reply {
    let method = match request.trials {
        Some(trials) => Method::MonteCarlo { trials, seed: 0 },
        None => Method::Auto,
    };
    match equity(&request.spot, method) {
        Ok(e) => Reply::Done(Summary::from(&e)),
        Err(e) => Reply::Refused(e.to_string()),
    }
}

/// What the worker answers to a request it cannot read.
pub fn answer_text(request: &str) -> String {
    match Request::parse(request) {
        Some(request) => answer(&request).to_string(),
        None => Reply::Refused(format!("unreadable request {request:?}")).to_string(),
    }
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, hand) in self.spot.hands.iter().enumerate() {
            if i > 0 {
                f.write_char(',')?;
            }
            match hand {
                Some(cards) => f.write_str(&format_cards(cards))?,
                None => f.write_char('?')?,
            }
        }
        write!(
            f,
            ";{};{};",
            format_cards(&self.spot.board),
            format_cards(&self.spot.dead)
        )?;
        if let Some(trials) = self.trials {
            write!(f, "{trials}")?;
        }
        Ok(())
    }
}

impl Request {
    pub fn parse(text: &str) -> Option<Request> {
        let mut parts = text.split(';');
        let (hands, board, dead, trials) =
            (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        let hands = hands
            .split(',')
            .map(|h| match h {
                "?" => Some(None),
                h => Card::parse_exact::<4>(h).ok().map(Some),
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Request {
            spot: Spot {
                hands,
                board: Card::parse_many(board).ok()?,
                dead: Card::parse_many(dead).ok()?,
            },
            trials: match trials {
                "" => None,
                n => Some(n.parse().ok()?),
            },
        })
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let summary = match self {
            Reply::Refused(message) => return write!(f, "refused {message}"),
            Reply::Done(summary) => summary,
        };
        match summary.computed {
            Computed::Exact { boards } => writeln!(f, "exact {boards}")?,
            Computed::MonteCarlo { trials, .. } => writeln!(f, "sampled {trials}")?,
        }
        write!(f, "no_low {}", summary.no_low)?;
        for p in &summary.players {
            write!(
                f,
                "\n{} {} {} {} {}",
                p.pot, p.scoop, p.high, p.low, p.pot_error
            )?;
        }
        Ok(())
    }
}

impl Reply {
    pub fn parse(text: &str) -> Option<Reply> {
        if let Some(message) = text.strip_prefix("refused ") {
            return Some(Reply::Refused(message.to_string()));
        }
        let mut lines = text.lines();
        let computed = match lines.next()?.split_once(' ')? {
            ("exact", n) => Computed::Exact {
                boards: n.parse().ok()?,
            },
            ("sampled", n) => Computed::MonteCarlo {
                trials: n.parse().ok()?,
                seed: 0,
            },
            _ => return None,
        };
        let no_low = lines.next()?.strip_prefix("no_low ")?.parse().ok()?;
        let players = lines
            .map(|line| {
                let n: Vec<u32> = line
                    .split(' ')
                    .map(|x| x.parse().ok())
                    .collect::<Option<_>>()?;
                match n[..] {
                    [pot, scoop, high, low, pot_error] => Some(Chances {
                        pot,
                        scoop,
                        high,
                        low,
                        pot_error,
                    }),
                    _ => None,
                }
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Reply::Done(Summary {
            players,
            no_low,
            computed,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hand(s: &str) -> Option<[Card; 4]> {
        Some(Card::parse_exact::<4>(s).expect("hand"))
    }

    #[test]
    fn the_worker_answers_the_published_example_in_millionths() {
        let request = Request {
            spot: Spot {
                hands: vec![hand("Ac2c3c4d"), hand("KsKhQsJs")],
                ..Spot::default()
            },
            trials: None,
        };
        let text = answer_text(&request.to_string());
        let Some(Reply::Done(summary)) = Reply::parse(&text) else {
            panic!("{text}")
        };
        assert_eq!(summary.players[0].pot, 556_850);
        assert_eq!(summary.players[0].pot + summary.players[1].pot, 1_000_000);
        assert_eq!(summary.computed, Computed::Exact { boards: 1_086_008 });
    }

    #[test]
    fn requests_and_replies_read_back_as_written() {
        let request = Request {
            spot: Spot {
                hands: vec![hand("Ac2c3c4d"), None, hand("KsKhQsJs")],
                board: Card::parse_many("2h7dTs").expect("board"),
                dead: Card::parse_many("9c").expect("dead"),
            },
            trials: Some(5_000),
        };
        assert_eq!(Request::parse(&request.to_string()), Some(request.clone()));
        let reply = answer(&request);
        assert!(matches!(reply, Reply::Done(_)));
        assert_eq!(Reply::parse(&reply.to_string()), Some(reply));
        let refused = Reply::Refused("card Ac appears twice".into());
        assert_eq!(Reply::parse(&refused.to_string()), Some(refused));
    }

    #[test]
    fn unreadable_requests_are_refused_not_panicked_on() {
        for text in [
            "",
            "AcKd;",
            "Ac2c3c4d,KsKhQsJs;;;x",
            "Zz2c3c4d,?;;;",
            "Ac2c3c4d,?;2h;;",
        ] {
            let reply = Reply::parse(&answer_text(text));
            assert!(
                matches!(reply, Some(Reply::Refused(_))),
                "{text}: {reply:?}"
            );
        }
    }
}
