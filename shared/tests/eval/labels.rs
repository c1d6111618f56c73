//! English labels, one per category, and the display order of the cards.

use shared::eval;

use crate::{cards, low_label};

/// The label and cards of the best high.
fn high(hole: &str, board: &str) -> (String, String) {
    let (high, _) = eval::best_hands(&cards(hole), &cards(board));
    (high.value.label(), shared::card::format_cards(&high.cards))
}

#[test]
fn label_royal_flush() {
    assert_eq!(high("Jh Th 2s 3s", "Ah Kh Qh 2c 3d").0, "Royal flush");
}

#[test]
fn label_straight_flush_names_its_top_card_and_the_steel_wheel_is_five_high() {
    let sf = high("6s 5s Ac Ad", "9s 8s 7s 2c 2d");
    assert_eq!(
        sf,
        ("Straight flush, nine high".into(), "9s8s7s6s5s".into())
    );
    let steel = high("Ad 5d Kc Ks", "2d 3d 4d 9c 9h");
    assert_eq!(
        steel,
        ("Straight flush, five high".into(), "5d4d3d2dAd".into())
    );
}

#[test]
fn label_four_of_a_kind() {
    let quads = high("Ks Kh 4d 5d", "Kc Kd 7h 2s 3c");
    assert_eq!(quads, ("Four of a kind, kings".into(), "KsKhKdKc7h".into()));
}

#[test]
fn label_full_house_shows_the_trips_first() {
    let boat = high("Ks 7c 4d 5d", "Kc Kd 7h 2s 3c");
    assert_eq!(
        boat,
        (
            "Full house, kings full of sevens".into(),
            "KsKdKc7h7c".into()
        )
    );
}

#[test]
fn label_flush() {
    let flush = high("Ah 4h Ks Js", "2h 7h 9h Kc Qd");
    assert_eq!(flush, ("Flush, ace high".into(), "Ah9h7h4h2h".into()));
}

#[test]
fn label_straight_and_the_wheel_shows_the_ace_last() {
    let wheel = high("Ac 5s 9d 9h", "2c 3d 4h Ks Qd");
    assert_eq!(wheel, ("Straight, five high".into(), "5s4h3d2cAc".into()));
    assert_eq!(
        high("Qc 9s 2d 2h", "Jc Td 8h 4s 3d").0,
        "Straight, queen high"
    );
}

#[test]
fn label_three_of_a_kind() {
    let trips = high("7s 3h 4d 5d", "7c 7d Kh 2s 9c");
    assert_eq!(
        trips,
        ("Three of a kind, sevens".into(), "7s7d7cKh5d".into())
    );
}

#[test]
fn label_two_pair() {
    let two_pair = high("Ad 9s Tc Jc", "Ac 9d 4h Ks 2h");
    assert_eq!(
        two_pair,
        ("Two pair, aces and nines".into(), "AdAc9s9dKs".into())
    );
}

#[test]
fn label_pair() {
    assert_eq!(high("Ad 7s 3c 5c", "Ac 9d 4h Js Kh").0, "Pair of aces");
    assert_eq!(high("6d 6s 3c 5c", "Ac 9d Th Js Kh").0, "Pair of sixes");
}

#[test]
fn label_high_card() {
    let nothing = high("3d 7s 8c 6h", "Kc 9d 4h Js 2c");
    assert_eq!(nothing, ("High card, king".into(), "KcJs9d8c7s".into()));
}

#[test]
fn label_lows_list_ranks_highest_first_with_the_ace_as_a() {
    assert_eq!(
        low_label("Ac 6d Kh Ks", "8c 4d 2h Js Qd"),
        Some("8-6-4-2-A low".into())
    );
    assert_eq!(
        low_label("Ac 2d Kh Ks", "3c 4d 5h Js Qd"),
        Some("5-4-3-2-A low".into())
    );
    let (_, low) = eval::best_hands(&cards("Ac 2d Kh Ks"), &cards("3c 4d 5h Js Qd"));
    let low = low.map(|l| shared::card::format_cards(&l.cards));
    assert_eq!(low.as_deref(), Some("5h4d3c2dAc"));
}
