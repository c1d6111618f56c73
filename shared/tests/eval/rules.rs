//! docs/rules.md §2, one test per rule.

use shared::eval::{self, HandCategory};

use crate::{cards, low_label, show};

#[test]
fn rule_2_exactly_two_hole_cards_four_suited_board_is_no_flush() {
    let board = "Ah Kh 9h 4h 2c";
    assert_eq!(
        show("Qh Js 8d 3c", board).high.category(),
        HandCategory::HighCard
    );
    // Two suited hole cards with three suited board cards is a flush.
    assert_eq!(
        show("Qh Jh 8d 3c", board).high.category(),
        HandCategory::Flush
    );
}

#[test]
fn rule_2_five_suited_board_and_one_suited_hole_card_is_no_flush() {
    let high = show("Qh Js 8d 3c", "Ah Kh 9h 4h 2h").high;
    assert_eq!(high.category(), HandCategory::HighCard);
}

/// docs/rules.md says "a board pair plus one hole card is not trips", but with a board pair and one
/// matching hole card the player uses that card, any other hole card as a kicker, the pair and
/// one more board card: exactly two plus exactly three, and three of a kind. What one hole card
/// cannot do is complete a board two pair into a full house (next test).
#[test]
fn rule_2_board_pair_plus_one_matching_hole_card_is_trips_with_a_hole_kicker() {
    let (high, _) = eval::best_hands(&cards("Kh 9c 5d 3c"), &cards("Ks Kd 7c 4h 2s"));
    assert_eq!(high.value.label(), "Three of a kind, kings");
    assert_eq!(high.cards, cards("Ks Kh Kd 9c 7c"));
}

#[test]
fn rule_2_board_two_pair_plus_one_hole_card_is_not_a_full_house() {
    let high = show("7c Ad 4s 9h", "Td Tc 7s 7h Kd").high;
    assert_eq!(high.category(), HandCategory::Trips);
    // Board trips and an unpaired hole card are no full house either.
    let high = show("Ac Kd 4s 9h", "Td Tc Ts 7h 2d").high;
    assert_eq!(high.label(), "Three of a kind, tens");
}

#[test]
fn rule_2_board_quads_give_nobody_four_of_a_kind() {
    // Three of the board's sevens with a hole pair: the best anyone can do.
    assert_eq!(
        show("Kc Kd 4s 9h", "7d 7c 7s 7h 2d").high.label(),
        "Full house, sevens full of kings"
    );
    assert_eq!(
        show("Ac Qd 4s 9h", "7d 7c 7s 7h 2d").high.label(),
        "Three of a kind, sevens"
    );
}

#[test]
fn rule_2_wheel_is_lowest_straight() {
    let board = "2c 3d 4h Ks Qd";
    let wheel = show("Ac 5s 9d 9h", board).high;
    assert_eq!(wheel.label(), "Straight, five high");
    let six_high = show("5c 6s 9d 9h", board).high;
    assert_eq!(six_high.label(), "Straight, six high");
    assert!(wheel < six_high);
    // ... but still a straight, above any three of a kind.
    assert!(wheel > show("Kc Kd 9s 9h", board).high);
    // And no straight wraps round the ace.
    // (A-4 with K-2-3 is no straight.)
    let no_wrap = show("Ac 4s 6d 9h", "Kc Qd 2h 3s 8d").high;
    assert_eq!(no_wrap.category(), HandCategory::HighCard);
}

#[test]
fn rule_2_no_low_without_three_distinct_low_board_ranks() {
    // Three low cards, but only two low ranks.
    assert_eq!(low_label("Ac 3d 4h 5s", "2c 2d 7h Ks Qc"), None);
    assert_eq!(low_label("Ac 3d 4h 5s", "2c 7d Th Ks Qc"), None);
    assert_eq!(
        low_label("Ac 3d 4h 5s", "2c 6d 7h Ks Qc"),
        Some("7-6-3-2-A low".into())
    );
}

#[test]
fn rule_2_low_needs_two_hole_ranks_not_on_the_board() {
    // Low hole ranks A, 2, 3 but the board's low ranks are 2, 3, 4: every pair of hole ranks
    // shares a rank with the board's only three low cards, so no five distinct ranks.
    assert_eq!(low_label("Ac 2d 3h Ks", "2c 3d 4h Ks Qc"), None);
    // A pocket pair is one rank: A-A-... makes no low with it.
    assert_eq!(low_label("Ac Ad Kh Ks", "2c 3d 4h Ks Qc"), None);
}

#[test]
fn rule_2_low_ignores_straights_and_flushes() {
    let s = show("Ah 5h Kc Kd", "2h 3h 4h Kh Qc");
    assert_eq!(s.high.label(), "Straight flush, five high");
    assert_eq!(s.low.map(|l| l.label()), Some("5-4-3-2-A low".into()));
}

#[test]
fn rule_2_low_compares_from_the_highest_card_down() {
    let a = show("Ac 6d Kh Ks", "8c 4d 2h Js Qd").low;
    let b = show("Ac 7d Kh Ks", "8c 3d 2h Js Qd").low;
    assert_eq!(a.map(|l| l.label()), Some("8-6-4-2-A low".into()));
    assert_eq!(b.map(|l| l.label()), Some("8-7-3-2-A low".into()));
    assert!(a > b, "8-6-4-2-A beats 8-7-3-2-A");
    // The wheel is the best low of all.
    let wheel = show("Ac 2d Kh Ks", "3c 4d 5h Js Qd").low;
    assert!(wheel > a);
    assert!(wheel.is_some_and(|w| w.ranks() == [5, 4, 3, 2, 14].map(rank)));
}

#[test]
fn rule_2_hole_cards_for_high_and_low_may_differ() {
    let (high, low) = eval::best_hands(&cards("Kc 8c Ad 2s"), &cards("Ks Kd 4c 5h 8s"));
    assert_eq!(high.value.label(), "Full house, kings full of eights");
    assert_eq!(high.cards, cards("Ks Kd Kc 8s 8c"));
    let low = low.expect("A-2 makes a low");
    assert_eq!(low.value.label(), "8-5-4-2-A low");
    assert_eq!(low.cards, cards("8s 5h 4c 2s Ad"));
}

/// Rank by its face value, ace = 14.
fn rank(face: u8) -> shared::Rank {
    shared::Rank::new(if face == 14 { 12 } else { face - 2 }).expect("a face value")
}
