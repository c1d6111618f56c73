//! Card text as users type it (`scoop eval`, PHH files): parsing never panics, what parses
//! prints back to the same cards, and any four hole cards with five board cards evaluate the
//! same with the fast evaluator as with the brute-force reference.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shared::card::{Card, format_cards};
use shared::eval;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(cards) = Card::parse_many(text) else {
        return;
    };
    let printed = format_cards(&cards);
    assert_eq!(
        Card::parse_many(&printed).ok(),
        Some(cards.clone()),
        "{printed}"
    );
    if cards.len() == 9 {
        let mut distinct = cards.clone();
        distinct.sort_by_key(|c| c.index());
        distinct.dedup();
        if distinct.len() == 9 {
            let hole: [Card; 4] = [cards[0], cards[1], cards[2], cards[3]];
            let board: [Card; 5] = [cards[4], cards[5], cards[6], cards[7], cards[8]];
            assert_eq!(
                eval::evaluate(&hole, &board),
                eval::reference::evaluate(&hole, &board),
                "{printed}"
            );
        }
    }
});
