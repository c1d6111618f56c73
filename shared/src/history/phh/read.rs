//! Reading PHH hand histories (the Poker Hand History format, uoftcprg/phh-std): the subset
//! Scoop plays, Omaha Hi/Lo 8-or-better.
//!
//! Supported: variant `FO/8` (fixed limit, the spec's code) and `PO/8` / `NO/8` (pot and no
//! limit: Scoop's extension codes); no antes; a straddle only of two big blinds by `p3`, three
//! or more players; a hand run twice (the user-defined field `_second_run`, the second run's
//! cards); integer amounts; `.phh` files (one
//! hand) and `.phhs` files (tables `[1]`, `[2]`, … each one hand). Seats follow the spec:
//! `p1` is first left of the button and the last player has the button; heads-up `p1` is the
//! big blind and `p2` the button and small blind. Actions: `d dh pN CARDS` (hole cards,
//! `????` for unknown), `d db CARDS` (board), `pN f`, `pN cc`, `pN cbr AMOUNT` (bet or raise
//! to AMOUNT this street), `pN sm CARDS`/`pN sm` (show or muck: Scoop decides showdowns
//! itself, so these are read and not checked). Text after `#` in an action is a comment.

use std::collections::BTreeMap;

use crate::card::Card;
use crate::rules::{Chips, Stakes, Structure};
use serde::Deserialize;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum PhhError {
    #[error("not valid TOML: {0}")]
    Toml(#[from] toml::de::Error),
    #[error("unsupported variant `{0}` (supported: FO/8, PO/8, NO/8)")]
    Variant(String),
    #[error("{0} players; a hand has 2 to 10")]
    Players(usize),
    #[error("antes are not supported")]
    Antes,
    #[error(
        "blinds_or_straddles must be a small blind, a big blind and maybe a straddle of two big \
         blinds by p3, got {0:?}"
    )]
    Blinds(Vec<Chips>),
    #[error("fixed limit needs small_bet and big_bet")]
    LimitBets,
    #[error("`{field}` has {got} entries for {players} players")]
    Length {
        field: &'static str,
        got: usize,
        players: usize,
    },
    #[error("action {index} `{text}`: {reason}")]
    Action {
        index: usize,
        text: String,
        reason: String,
    },
}

/// One hand as written in the file.
#[derive(Debug, Deserialize)]
struct RawHand {
    variant: String,
    #[serde(default)]
    antes: Vec<Chips>,
    blinds_or_straddles: Vec<Chips>,
    small_bet: Option<Chips>,
    big_bet: Option<Chips>,
    starting_stacks: Vec<Chips>,
    actions: Vec<String>,
    finishing_stacks: Option<Vec<Chips>>,
    #[serde(default, rename = "_second_run")]
    second_run: Option<String>,
}

/// A player's move, by player index (0 for `p1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    Fold,
    CheckOrCall,
    BetOrRaiseTo(Chips),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerAction {
    pub player: usize,
    pub action: Move,
    /// The action as written, for error reports.
    pub text: String,
}

/// A hand ready to replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhhHand {
    pub name: String,
    pub stakes: Stakes,
    pub starting_stacks: Vec<Chips>,
    /// Per player; `None` where the file hides them.
    pub hole_cards: Vec<Option<[Card; 4]>>,
    pub board: Vec<Card>,
    pub actions: Vec<PlayerAction>,
    pub finishing_stacks: Option<Vec<Chips>>,
    /// Index of the player posting the big blind.
    pub big_blind_player: usize,
    /// Index of the player posting the small blind, if any.
    pub small_blind_player: Option<usize>,
    /// Index of the player who straddled, if anyone did.
    pub straddle_player: Option<usize>,
    /// The cards a hand run twice dealt again; empty if it ran once.
    pub second_run: Vec<Card>,
}

/// A hand's name (its `.phhs` section, or the file name) and the hand or why it is unreadable.
pub type NamedHand = (String, Result<PhhHand, PhhError>);

/// Parses a `.phh` (one hand) or `.phhs` (many) file. Each hand parses on its own so one bad
/// hand does not hide the others.
pub fn parse_file(text: &str, file_name: &str) -> Result<Vec<NamedHand>, PhhError> {
    let doc: toml::Table = toml::from_str(text)?;
    if doc.contains_key("variant") {
        let raw: Result<RawHand, _> = toml::Value::Table(doc).try_into();
        let hand = raw
            .map_err(PhhError::from)
            .and_then(|r| convert(file_name, r));
        return Ok(vec![(file_name.to_string(), hand)]);
    }
    // A .phhs: sections named by index; keep numeric order.
    let mut sections: BTreeMap<(u64, String), toml::Value> = BTreeMap::new();
    for (key, value) in doc {
        let order = key.parse::<u64>().unwrap_or(u64::MAX);
        sections.insert((order, key), value);
    }
    Ok(sections
        .into_iter()
        .map(|((_, key), value)| {
            let raw: Result<RawHand, _> = value.try_into();
            let hand = raw.map_err(PhhError::from).and_then(|r| convert(&key, r));
            (key, hand)
        })
        .collect())
}

fn convert(name: &str, raw: RawHand) -> Result<PhhHand, PhhError> {
    let structure = match raw.variant.as_str() {
        "FO/8" => Structure::FixedLimit,
        "PO/8" => Structure::PotLimit,
        "NO/8" => Structure::NoLimit,
        other => return Err(PhhError::Variant(other.to_string())),
    };
    let n = raw.starting_stacks.len();
    if !(2..=10).contains(&n) {
        return Err(PhhError::Players(n));
    }
    if raw.antes.iter().any(|&a| a > 0) {
        return Err(PhhError::Antes);
    }
    if raw.blinds_or_straddles.len() != n {
        return Err(PhhError::Length {
            field: "blinds_or_straddles",
            got: raw.blinds_or_straddles.len(),
            players: n,
        });
    }
    let posted: Vec<(usize, Chips)> = raw
        .blinds_or_straddles
        .iter()
        .copied()
        .enumerate()
        .filter(|&(_, b)| b > 0)
        .collect();
    let blinds_error = || PhhError::Blinds(raw.blinds_or_straddles.clone());
    let (blinds, straddle) = match posted.as_slice() {
        [rest @ .., (2, straddle)] if n >= 3 => (rest, Some(*straddle)),
        all => (all, None),
    };
    let (small, big) = match blinds {
        [(0, sb), (1, bb)] if sb <= bb => (*sb, *bb),
        [(1, bb)] => (0, *bb),
        _ => return Err(blinds_error()),
    };
    if straddle.is_some_and(|s| Some(s) != big.checked_mul(2)) {
        return Err(blinds_error());
    }
    let second_run = match &raw.second_run {
        Some(cards) => Card::parse_many(cards).map_err(|e| PhhError::Action {
            index: 0,
            text: format!("_second_run = '{cards}'"),
            reason: e.to_string(),
        })?,
        None => Vec::new(),
    };
    // Heads-up the spec reverses the blinds: p1 is the big blind, p2 the button and small blind.
    let (big_blind_player, small_blind_player) = if n == 2 {
        (0, (small > 0).then_some(1))
    } else {
        (1, (small > 0).then_some(0))
    };
    let stakes = match structure {
        Structure::FixedLimit => {
            let (Some(small_bet), Some(big_bet)) = (raw.small_bet, raw.big_bet) else {
                return Err(PhhError::LimitBets);
            };
            Stakes {
                structure,
                small_blind: small,
                big_blind: big,
                small_bet,
                big_bet,
                rake: None,
                uncapped_heads_up: false,
            }
        }
        Structure::PotLimit => Stakes::pot_limit(small, big),
        Structure::NoLimit => Stakes::no_limit(small, big),
    };
    if let Some(f) = &raw.finishing_stacks
        && f.len() != n
    {
        return Err(PhhError::Length {
            field: "finishing_stacks",
            got: f.len(),
            players: n,
        });
    }

    let mut hole_cards = vec![None; n];
    let mut board = Vec::new();
    let mut actions = Vec::new();
    for (index, line) in raw.actions.iter().enumerate() {
        let text = line.split('#').next().unwrap_or("").trim();
        let fail = |reason: String| PhhError::Action {
            index,
            text: line.clone(),
            reason,
        };
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            ["d", "dh", player, cards] => {
                let p = player_index(player, n).map_err(fail)?;
                if cards.chars().all(|c| c == '?') {
                    continue;
                }
                let cards = Card::parse_exact::<4>(cards).map_err(|e| fail(e.to_string()))?;
                hole_cards[p] = Some(cards);
            }
            ["d", "db", cards] => {
                board.extend(Card::parse_many(cards).map_err(|e| fail(e.to_string()))?);
            }
            [player, rest @ ..] if player.starts_with('p') => {
                let p = player_index(player, n).map_err(fail)?;
                let action = match rest {
                    ["f"] => Move::Fold,
                    ["cc"] => Move::CheckOrCall,
                    ["cbr", amount] => Move::BetOrRaiseTo(
                        amount
                            .parse()
                            .map_err(|_| fail(format!("`{amount}` is not a whole chip amount")))?,
                    ),
                    ["sm", ..] => continue,
                    _ => return Err(fail("unknown action".into())),
                };
                actions.push(PlayerAction {
                    player: p,
                    action,
                    text: line.clone(),
                });
            }
            [] => {}
            _ => return Err(fail("unknown action".into())),
        }
    }
    if board.len() > 5 {
        return Err(PhhError::Action {
            index: raw.actions.len().saturating_sub(1),
            text: String::new(),
            reason: format!("{} board cards", board.len()),
        });
    }
    Ok(PhhHand {
        name: name.to_string(),
        stakes,
        starting_stacks: raw.starting_stacks,
        hole_cards,
        board,
        actions,
        finishing_stacks: raw.finishing_stacks,
        big_blind_player,
        small_blind_player,
        straddle_player: straddle.map(|_| 2),
        second_run,
    })
}

fn player_index(word: &str, players: usize) -> Result<usize, String> {
    match word.strip_prefix('p').and_then(|d| d.parse::<usize>().ok()) {
        Some(i) if (1..=players).contains(&i) => Ok(i - 1),
        _ => Err(format!("`{word}` is not a player of this hand")),
    }
}
