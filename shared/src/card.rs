//! Cards, ranks, suits and the deck.
//!
//! A card is one byte, `rank << 2 | suit`, so the evaluator can index tables with it and
//! a deck is a flat array. Text form is the usual two characters: `Ah`, `Td`, `2c`.

use std::fmt;
use std::str::FromStr;

use rand_core::CryptoRng;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use thiserror::Error;

/// A rank, `0` = deuce up to `12` = ace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rank(u8);

impl Rank {
    pub const TWO: Rank = Rank(0);
    pub const EIGHT: Rank = Rank(6);
    pub const ACE: Rank = Rank(12);

    /// `index` must be below 13.
    pub const fn new(index: u8) -> Option<Rank> {
        if index < 13 { Some(Rank(index)) } else { None }
    }

    pub const fn index(self) -> u8 {
        self.0
    }

    pub fn from_char(c: char) -> Option<Rank> {
        let i = match c.to_ascii_uppercase() {
            '2'..='9' => c as u8 - b'2',
            'T' => 8,
            'J' => 9,
            'Q' => 10,
            'K' => 11,
            'A' => 12,
            _ => return None,
        };
        Some(Rank(i))
    }

    pub fn to_char(self) -> char {
        b"23456789TJQKA"[self.0 as usize] as char
    }

    /// English name, singular ("king") — used by hand labels.
    pub fn name(self) -> &'static str {
        [
            "deuce", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack",
            "queen", "king", "ace",
        ][self.0 as usize]
    }

    /// English name, plural ("kings", "sixes").
    pub fn plural(self) -> &'static str {
        [
            "deuces", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
            "jacks", "queens", "kings", "aces",
        ][self.0 as usize]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Suit {
    Clubs = 0,
    Diamonds = 1,
    Hearts = 2,
    Spades = 3,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    pub fn from_char(c: char) -> Option<Suit> {
        match c.to_ascii_lowercase() {
            'c' => Some(Suit::Clubs),
            'd' => Some(Suit::Diamonds),
            'h' => Some(Suit::Hearts),
            's' => Some(Suit::Spades),
            _ => None,
        }
    }

    pub fn to_char(self) -> char {
        b"cdhs"[self as usize] as char
    }
}

/// One of the 52 cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(u8);

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CardError {
    #[error("`{0}` is not a card (expected a rank 2-9, T, J, Q, K, A then a suit c, d, h, s)")]
    Malformed(String),
    #[error("card {0} appears twice")]
    Duplicate(Card),
    #[error("expected {expected} cards, got {got}")]
    WrongCount { expected: usize, got: usize },
}

impl Card {
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card(rank.0 << 2 | suit as u8)
    }

    /// The card with index `0..52` (`rank * 4 + suit`).
    pub const fn from_index(index: u8) -> Option<Card> {
        if index < 52 { Some(Card(index)) } else { None }
    }

    pub const fn index(self) -> u8 {
        self.0
    }

    pub const fn rank(self) -> Rank {
        Rank(self.0 >> 2)
    }

    pub const fn suit(self) -> Suit {
        match self.0 & 3 {
            0 => Suit::Clubs,
            1 => Suit::Diamonds,
            2 => Suit::Hearts,
            _ => Suit::Spades,
        }
    }

    /// Parses a run of cards written back to back or separated by spaces or commas
    /// (`"AhKd2c3s"`, `"Ah Kd 2c 3s"`), rejecting duplicates.
    pub fn parse_many(text: &str) -> Result<Vec<Card>, CardError> {
        let chars: Vec<char> = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != ',')
            .collect();
        if !chars.len().is_multiple_of(2) {
            return Err(CardError::Malformed(text.to_string()));
        }
        let mut cards = Vec::with_capacity(chars.len() / 2);
        let mut seen = 0u64;
        for pair in chars.chunks(2) {
            let card = match (Rank::from_char(pair[0]), Suit::from_char(pair[1])) {
                (Some(r), Some(s)) => Card::new(r, s),
                _ => return Err(CardError::Malformed(pair.iter().collect())),
            };
            if seen & (1 << card.0) != 0 {
                return Err(CardError::Duplicate(card));
            }
            seen |= 1 << card.0;
            cards.push(card);
        }
        Ok(cards)
    }

    /// Like [`Card::parse_many`] but demands exactly `n` cards.
    pub fn parse_exact<const N: usize>(text: &str) -> Result<[Card; N], CardError> {
        let cards = Card::parse_many(text)?;
        <[Card; N]>::try_from(cards.as_slice()).map_err(|_| CardError::WrongCount {
            expected: N,
            got: cards.len(),
        })
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank().to_char(), self.suit().to_char())
    }
}

impl FromStr for Card {
    type Err = CardError;

    fn from_str(s: &str) -> Result<Card, CardError> {
        let mut it = s.chars();
        match (it.next(), it.next(), it.next()) {
            (Some(r), Some(su), None) => match (Rank::from_char(r), Suit::from_char(su)) {
                (Some(r), Some(su)) => Ok(Card::new(r, su)),
                _ => Err(CardError::Malformed(s.to_string())),
            },
            _ => Err(CardError::Malformed(s.to_string())),
        }
    }
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let text = [self.rank().to_char() as u8, self.suit().to_char() as u8];
        // Both bytes are ASCII.
        s.serialize_str(std::str::from_utf8(&text).unwrap_or("??"))
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Formats cards back to back: `AhKd2c3s`.
pub fn format_cards(cards: &[Card]) -> String {
    cards.iter().map(Card::to_string).collect()
}

/// A 52-card deck in dealing order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deck {
    cards: Vec<Card>,
    next: usize,
}

impl Deck {
    /// A fresh deck in index order (2c 2d 2h 2s 3c ... As).
    pub fn ordered() -> Deck {
        Deck {
            cards: (0..52).map(Card).collect(),
            next: 0,
        }
    }

    /// A fresh deck shuffled by Fisher–Yates. Each swap index is drawn without modulo bias,
    /// so every one of the 52! orders is reachable with equal probability given a uniform RNG.
    pub fn shuffled<R: CryptoRng + ?Sized>(rng: &mut R) -> Deck {
        let mut deck = Deck::ordered();
        for i in (1..deck.cards.len()).rev() {
            let j = uniform_below(rng, i as u32 + 1) as usize;
            deck.cards.swap(i, j);
        }
        deck
    }

    /// A deck dealt in the given order (replays, tests). Cards need not be all 52, but must be
    /// distinct.
    pub fn stacked(cards: Vec<Card>) -> Result<Deck, CardError> {
        let mut seen = 0u64;
        for &c in &cards {
            if seen & (1 << c.0) != 0 {
                return Err(CardError::Duplicate(c));
            }
            seen |= 1 << c.0;
        }
        Ok(Deck { cards, next: 0 })
    }

    /// The full order, dealt cards included (for the hand history).
    pub fn order(&self) -> &[Card] {
        &self.cards
    }

    pub fn remaining(&self) -> usize {
        self.cards.len() - self.next
    }

    pub fn deal(&mut self) -> Option<Card> {
        let card = self.cards.get(self.next).copied()?;
        self.next += 1;
        Some(card)
    }
}

/// Uniform integer in `0..n` by rejection (Lemire's method without the division on the
/// fast path); `n` must be non-zero.
fn uniform_below<R: CryptoRng + ?Sized>(rng: &mut R, n: u32) -> u32 {
    let threshold = n.wrapping_neg() % n;
    loop {
        let m = u64::from(rng.next_u32()) * u64::from(n);
        if (m as u32) >= threshold {
            return (m >> 32) as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn card_text_round_trips_for_all_52() {
        for i in 0..52 {
            let c = Card(i);
            assert_eq!(c.to_string().parse::<Card>(), Ok(c));
        }
        assert_eq!("Td".parse::<Card>().map(|c| c.rank()), Ok(Rank(8)));
    }

    #[test]
    fn malformed_cards_are_rejected() {
        for bad in ["", "A", "Ahh", "1h", "Ax", "10h", "??"] {
            assert!(bad.parse::<Card>().is_err(), "{bad}");
        }
        assert!(matches!(
            Card::parse_many("AhK"),
            Err(CardError::Malformed(_))
        ));
    }

    #[test]
    fn duplicate_cards_are_rejected() {
        assert_eq!(
            Card::parse_many("AhKdAh"),
            Err(CardError::Duplicate("Ah".parse().unwrap()))
        );
    }

    #[test]
    fn parse_many_accepts_spaces_and_commas() {
        let a = Card::parse_many("Ah Kd,2c 3s").unwrap();
        assert_eq!(format_cards(&a), "AhKd2c3s");
    }

    #[test]
    fn shuffled_deck_is_a_permutation() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
        let d = Deck::shuffled(&mut rng);
        let mut idx: Vec<u8> = d.order().iter().map(|c| c.index()).collect();
        idx.sort();
        assert_eq!(idx, (0..52).collect::<Vec<_>>());
    }

    #[test]
    fn rule_1_shuffle_is_uniform_over_positions() {
        // Chi-square over where the ace of spades lands in 52,000 shuffles: a biased shuffle
        // (e.g. modulo bias or a naive swap-with-any) skews it far past this bound.
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(11);
        let ace = Card::new(Rank::ACE, Suit::Spades);
        let mut counts = [0u32; 52];
        let n = 52_000;
        for _ in 0..n {
            let d = Deck::shuffled(&mut rng);
            let pos = d.order().iter().position(|&c| c == ace).unwrap();
            counts[pos] += 1;
        }
        let expected = n as f64 / 52.0;
        let chi2: f64 = counts
            .iter()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum();
        // 51 degrees of freedom: p = 0.001 at about 87.
        assert!(chi2 < 87.0, "chi2 = {chi2}");
    }

    #[test]
    fn uniform_below_has_no_modulo_bias_on_small_ranges() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(3);
        let mut counts = [0u32; 3];
        for _ in 0..30_000 {
            counts[uniform_below(&mut rng, 3) as usize] += 1;
        }
        for c in counts {
            assert!((9_500..10_500).contains(&c), "{counts:?}");
        }
    }
}
