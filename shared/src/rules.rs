//! The table's betting rules: structure, stakes, rake (docs/rules.md §4-§5, §3.6).

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Chips are whole units of the table's smallest denomination; never floats.
pub type Chips = u64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Structure {
    FixedLimit,
    PotLimit,
    NoLimit,
}

impl Structure {
    /// Short code used in lobbies and PHH variant codes (`FO/8`, `PO/8`, `NO/8`).
    pub fn code(self) -> &'static str {
        match self {
            Structure::FixedLimit => "FL",
            Structure::PotLimit => "PL",
            Structure::NoLimit => "NL",
        }
    }
}

/// Rake: `basis_points` / 10,000 of each pot, at most `cap` per hand, nothing when no flop
/// is dealt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rake {
    pub basis_points: u32,
    pub cap: Chips,
}

/// How a hand is bet. For fixed limit `small_bet` is the bet on preflop and flop and
/// `big_bet` on turn and river; pot and no limit use only the blinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stakes {
    pub structure: Structure,
    pub small_blind: Chips,
    pub big_blind: Chips,
    pub small_bet: Chips,
    pub big_bet: Chips,
    #[serde(default)]
    pub rake: Option<Rake>,
    /// Fixed limit only: lift the raise cap when two players are left.
    #[serde(default)]
    pub uncapped_heads_up: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StakesError {
    #[error("the big blind must be at least 1 chip")]
    ZeroBigBlind,
    #[error("the small blind ({small}) may not exceed the big blind ({big})")]
    SmallAboveBig { small: Chips, big: Chips },
    #[error("fixed limit needs a small bet of at least 1 and a big bet at least as large")]
    BadLimitBets,
    #[error("rake over 100% ({0} basis points)")]
    RakeTooHigh(u32),
}

impl Stakes {
    /// Fixed limit at `small_bet`/`2 × small_bet`: big blind = small bet, small blind = half
    /// of it rounded down (docs/rules.md §4; seed 000: $2-4 → $1 small blind).
    pub fn fixed_limit(small_bet: Chips) -> Stakes {
        Stakes {
            structure: Structure::FixedLimit,
            small_blind: small_bet / 2,
            big_blind: small_bet,
            small_bet,
            big_bet: small_bet * 2,
            rake: None,
            uncapped_heads_up: false,
        }
    }

    pub fn pot_limit(small_blind: Chips, big_blind: Chips) -> Stakes {
        Stakes::blinds(Structure::PotLimit, small_blind, big_blind)
    }

    pub fn no_limit(small_blind: Chips, big_blind: Chips) -> Stakes {
        Stakes::blinds(Structure::NoLimit, small_blind, big_blind)
    }

    fn blinds(structure: Structure, small_blind: Chips, big_blind: Chips) -> Stakes {
        Stakes {
            structure,
            small_blind,
            big_blind,
            small_bet: big_blind,
            big_bet: big_blind * 2,
            rake: None,
            uncapped_heads_up: false,
        }
    }

    pub fn validate(&self) -> Result<(), StakesError> {
        if self.big_blind == 0 {
            return Err(StakesError::ZeroBigBlind);
        }
        if self.small_blind > self.big_blind {
            return Err(StakesError::SmallAboveBig {
                small: self.small_blind,
                big: self.big_blind,
            });
        }
        if self.structure == Structure::FixedLimit
            && (self.small_bet == 0 || self.big_bet < self.small_bet)
        {
            return Err(StakesError::BadLimitBets);
        }
        if let Some(rake) = self.rake
            && rake.basis_points > 10_000
        {
            return Err(StakesError::RakeTooHigh(rake.basis_points));
        }
        Ok(())
    }

    /// The unit buy-ins are measured in: the small bet (fixed limit) or the big blind.
    pub fn buy_in_unit(&self) -> Chips {
        match self.structure {
            Structure::FixedLimit => self.small_bet,
            _ => self.big_blind,
        }
    }
}
