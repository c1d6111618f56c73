//! The worked examples of seed 002 (a French Omaha Hi/Lo rules page).

use shared::eval::{self, HandCategory};

use crate::{cards, low_label, show};

#[test]
fn seed_002_low_examples_on_k83t7() {
    let board = "Kc 8d 3h Ts 7c";
    let a6 = show("Ah 6d Qs Qd", board).low;
    let fours_fives = show("4s 5h Jd Jc", board).low;
    assert_eq!(a6.map(|l| l.label()), Some("8-7-6-3-A low".into()));
    assert_eq!(fours_fives.map(|l| l.label()), Some("8-7-5-4-3 low".into()));
    assert!(fours_fives > a6, "8-7-5-4-3 wins");
    // "The best low is made with A2."
    assert_eq!(
        low_label("Ad 2s Qs Qd", board),
        Some("8-7-3-2-A low".into())
    );
}

#[test]
fn seed_002_board_57t82_best_low_uses_a3() {
    let board = "5c 7d Th 8s 2c";
    assert_eq!(
        low_label("Ad 3s Kd Kh", board),
        Some("7-5-3-2-A low".into())
    );
    // A-3 is the nuts: no other two low hole ranks do better.
    let nuts = show("Ad 3s Kd Kh", board).low;
    for (a, b) in [("A", "2"), ("A", "4"), ("3", "4"), ("A", "6"), ("2", "3")] {
        let other = show(&format!("{a}h {b}h Kc Ks"), board).low;
        assert!(other <= nuts, "{a}{b}");
    }
}

#[test]
fn seed_002_full_house_lookalike_with_one_hole_card_is_trips() {
    let (high, _) = eval::best_hands(&cards("7c Ad 4s 9h"), &cards("Td Tc 7s 7h 2d"));
    assert_eq!(high.value.label(), "Three of a kind, sevens");
    // Kickers ace and ten: 7-A from the hole, 7-7-T from the board.
    assert_eq!(high.cards, cards("7s 7h 7c Ad Td"));
}

#[test]
fn seed_002_board_with_two_low_ranks_gives_nobody_a_low() {
    assert_eq!(low_label("Ac 2d 3s 4h", "Td Tc 7s 7h 2d"), None);
}

#[test]
fn seed_002_pair_of_aces_high_and_a2_low_on_qt763() {
    let (high, low) = eval::best_hands(&cards("Ah As 2d Kc"), &cards("Qh Ts 7d 6c 3s"));
    assert_eq!(high.value.label(), "Pair of aces");
    assert_eq!(high.cards, cards("As Ah Qh Ts 7d"));
    assert_eq!(low.map(|l| l.value.label()), Some("7-6-3-2-A low".into()));
}

#[test]
fn seed_002_ace_high_straight_on_broadway_board_needs_two_broadway_hole_cards() {
    let board = "Ts Jd Qc Kh Ad";
    assert_eq!(
        show("Qd Tc 4s 3s", board).high.label(),
        "Straight, ace high"
    );
    assert_eq!(
        show("Kc 9s 4s 3s", board).high.label(),
        "Straight, king high"
    );
    // Holding one broadway card is not enough.
    assert_eq!(
        show("Qd 5c 4s 3s", board).high.category(),
        HandCategory::Pair
    );
    // One low card on the board: no low for anybody.
    assert_eq!(low_label("2c 3c 4d 5d", board), None);
}
