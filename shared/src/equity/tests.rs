use proptest::prelude::*;

use super::*;
use crate::eval::{BoardEval, reference};

fn hand(text: &str) -> Option<[Card; 4]> {
    Some(Card::parse_exact(text).expect("test hand"))
}

fn spot(hands: &[&str], board: &str) -> Spot {
    Spot {
        hands: hands.iter().map(|h| hand(h)).collect(),
        board: Card::parse_many(board).expect("test board"),
        dead: Vec::new(),
    }
}

/// Pot shares by plain enumeration: every remaining board, evaluated with the reference
/// evaluator's 60 combinations, the pot split by §3 in floating point.
fn brute_force(spot: &Spot) -> (Vec<f64>, Vec<f64>, f64) {
    let hands: Vec<[Card; 4]> = spot.hands.iter().flatten().copied().collect();
    let deck = check(spot).expect("valid spot");
    let missing = 5 - spot.board.len();
    let mut pots = vec![0.0; hands.len()];
    let mut scoops = vec![0.0; hands.len()];
    let mut no_low = 0.0;
    let mut boards = 0.0;
    let indices: Vec<u8> = (0..deck.len() as u8).collect();
    subsets(&indices, missing, &mut |chosen| {
        let mut board = spot.board.clone();
        board.extend(chosen.iter().map(|&i| deck[usize::from(i)]));
        let board: [Card; 5] = board.try_into().expect("five cards");
        let results: Vec<_> = hands
            .iter()
            .map(|h| reference::evaluate(h, &board))
            .collect();
        let best_high = results.iter().map(|r| r.high).max().expect("hands");
        let best_low = results.iter().filter_map(|r| r.low).max();
        let high_winners = results.iter().filter(|r| r.high == best_high).count() as f64;
        let low_winners = results
            .iter()
            .filter(|r| r.low.is_some() && r.low == best_low)
            .count() as f64;
        let high_half = if best_low.is_some() { 0.5 } else { 1.0 };
        for (i, r) in results.iter().enumerate() {
            let mut share = 0.0;
            if r.high == best_high {
                share += high_half / high_winners;
            }
            if best_low.is_some() && r.low == best_low {
                share += 0.5 / low_winners;
            }
            pots[i] += share;
            if share == 1.0 {
                scoops[i] += 1.0;
            }
        }
        if best_low.is_none() {
            no_low += 1.0;
        }
        boards += 1.0;
    });
    (
        pots.iter().map(|p| p / boards).collect(),
        scoops.iter().map(|s| s / boards).collect(),
        no_low / boards,
    )
}

fn assert_matches_brute_force(spot: &Spot) {
    let got = equity(spot, Method::Auto).expect("equity");
    let (pots, scoops, no_low) = brute_force(spot);
    for (i, p) in got.players.iter().enumerate() {
        assert!(
            (p.pot - pots[i]).abs() < 1e-12,
            "pot of hand {i}: {} vs {}",
            p.pot,
            pots[i]
        );
        assert!((p.scoop - scoops[i]).abs() < 1e-12, "scoop of hand {i}");
    }
    assert!((got.no_low - no_low).abs() < 1e-12, "no low");
}

#[test]
fn ace_deuce_trey_four_against_kings_preflop_is_the_published_0_556850() {
    let got = equity(&spot(&["Ac2c3c4d", "KsKhQsJs"], ""), Method::Auto).expect("equity");
    assert_eq!(got.computed, Computed::Exact { boards: 1_086_008 });
    assert_eq!(format!("{:.6}", got.players[0].pot), "0.556850");
    assert!((got.players[0].pot + got.players[1].pot - 1.0).abs() < 1e-12);
}

#[test]
fn preflop_heads_up_matches_a_board_by_board_loop() {
    // The whole enumeration, board by board with the fast evaluator (itself held to the
    // reference), against the rank classes and the flush correction.
    let s = spot(&["AhKh2s3s", "QcQdJcTd"], "");
    let hands: Vec<Hole> = s.hands.iter().flatten().map(Hole::new).collect();
    let deck = check(&s).expect("valid");
    let mut tally = Tally::new(2);
    let indices: Vec<u8> = (0..deck.len() as u8).collect();
    subsets(&indices, 5, &mut |chosen| {
        let board: [Card; 5] = std::array::from_fn(|i| deck[usize::from(chosen[i])]);
        let eval = BoardEval::new(&board);
        let (h0, l0) = eval.scores(&hands[0]);
        let (h1, l1) = eval.scores(&hands[1]);
        tally.add(1, &[h0, h1], &[l0, l1], &mut [0; 2]);
    });
    let exact = exact(
        &[hand("AhKh2s3s").unwrap(), hand("QcQdJcTd").unwrap()],
        &[],
        &deck,
    );
    assert_eq!(exact.boards, 1_086_008);
    assert_eq!(exact.hands, tally.hands);
    assert_eq!(exact.no_low, tally.no_low);
}

#[test]
fn monotone_hands_on_a_two_suited_flop_match_brute_force() {
    // Both hands can make flushes in two suits, straight flushes included.
    assert_matches_brute_force(&spot(&["AhKh5h4h", "9s8s7s6s", "AdQdJc2c"], "3h2hTs"));
    assert_matches_brute_force(&spot(&["AhKhQdJd", "5h4h3d2d"], "6h7dTc8h"));
}

#[test]
fn a_complete_board_is_one_showdown() {
    let got = equity(&spot(&["Ac2c3c4d", "KsKhQsJs"], "5c6c7hKdTs"), Method::Auto).expect("equity");
    assert_eq!(got.computed, Computed::Exact { boards: 1 });
    assert_matches_brute_force(&spot(&["Ac2c3c4d", "KsKhQsJs"], "5c6c7hKdTs"));
}

#[test]
fn dead_cards_leave_the_deck() {
    let mut s = spot(&["Ac2c3c4d", "KsKhQsJs"], "5c6c7h");
    s.dead = Card::parse_many("8c9cTc").expect("dead");
    let got = equity(&s, Method::Auto).expect("equity");
    assert_eq!(got.computed, Computed::Exact { boards: 703 }); // C(38, 2)
    assert_matches_brute_force(&s);
}

#[test]
fn malformed_spots_are_refused() {
    let one = spot(&["Ac2c3c4d"], "");
    assert_eq!(equity(&one, Method::Auto), Err(EquityError::HandCount(1)));
    let two_board = spot(&["Ac2c3c4d", "KsKhQsJs"], "5c6c");
    assert_eq!(
        equity(&two_board, Method::Auto),
        Err(EquityError::BoardSize(2))
    );
    let twice = spot(&["Ac2c3c4d", "AcKhQsJs"], "");
    assert_eq!(
        equity(&twice, Method::Auto),
        Err(EquityError::Duplicate(
            Card::parse_exact::<1>("Ac").unwrap()[0]
        ))
    );
    let none = Method::MonteCarlo { trials: 0, seed: 1 };
    assert_eq!(
        equity(&spot(&["Ac2c3c4d", "KsKhQsJs"], ""), none),
        Err(EquityError::NoTrials)
    );
    let mut crowded = Spot {
        hands: vec![None; 10],
        ..Spot::default()
    };
    crowded.dead = Card::parse_many("2c2d2h2s3c3d3h3s").expect("dead");
    assert_eq!(
        equity(&crowded, Method::Auto),
        Err(EquityError::DeckExhausted)
    );
}

#[test]
fn monte_carlo_lands_within_four_standard_errors_of_the_exact_value() {
    let s = spot(&["Ac2c3c4d", "KsKhQsJs", "9h8h7d6d"], "");
    let exact = equity(&s, Method::Auto).expect("exact");
    let sampled = equity(
        &s,
        Method::MonteCarlo {
            trials: 20_000,
            seed: 7,
        },
    )
    .expect("mc");
    for (e, m) in exact.players.iter().zip(&sampled.players) {
        assert!(
            m.pot_error > 0.0 && m.pot_error < 0.01,
            "error {}",
            m.pot_error
        );
        assert!(
            (e.pot - m.pot).abs() < 4.0 * m.pot_error,
            "{} vs {} ± {}",
            e.pot,
            m.pot,
            m.pot_error
        );
    }
    let again = equity(
        &s,
        Method::MonteCarlo {
            trials: 20_000,
            seed: 7,
        },
    )
    .expect("mc");
    assert_eq!(sampled, again, "the same seed gives the same result");
}

const SIX: [&str; 6] = [
    "Ac2c3c4d", "KsKhQsJs", "9h8h7d6d", "AdAhTc5s", "QdJdTh9c", "4h5h6s7s",
];

/// Known hands take the rank-class shortcut on boards without a possible flush and the full
/// evaluation on the others; both must agree with the enumeration in every figure.
#[test]
fn monte_carlo_with_known_hands_matches_exact_in_every_figure() {
    let spots = [
        spot(&SIX, ""),
        // Two suited hands in hearts and a two-heart flop: flushes decide many boards.
        spot(&["AhKh2c3d", "QhJh4s5s", "7c7d8c8d"], "Th9h2s"),
        // Paired low hands: ties and quartered lows.
        spot(&["Ac2d3h9s", "As2h3c9d", "KcKdQhQs"], "4c5dKh"),
        spot(&["AcAd2c3d", "6s7s8h9h", "2h3hKsQs", "Tc9cJdJc"], "5h6c8s"),
    ];
    for s in &spots {
        let exact = equity(s, Method::Auto).expect("exact");
        assert!(matches!(exact.computed, Computed::Exact { .. }));
        let trials = 40_000;
        let sampled = equity(s, Method::MonteCarlo { trials, seed: 11 }).expect("mc");
        let close = |what: &str, e: f64, m: f64| {
            let error = (e * (1.0 - e) / f64::from(trials)).sqrt().max(1e-9);
            assert!(
                (e - m).abs() <= 4.5 * error,
                "{:?}: {what} exact {e}, sampled {m} (± {error})",
                s.hands
            );
        };
        close("no low", exact.no_low, sampled.no_low);
        for (e, m) in exact.players.iter().zip(&sampled.players) {
            assert!(
                (e.pot - m.pot).abs() <= 4.5 * m.pot_error,
                "pot {e:?} {m:?}"
            );
            close("scoop", e.scoop, m.scoop);
            close("high", e.high, m.high);
            close("low", e.low, m.low);
        }
    }
}

#[test]
fn unknown_hands_are_sampled_and_shares_still_sum_to_one() {
    let s = Spot {
        hands: vec![hand("AsAd2s3d"), None, None],
        board: Vec::new(),
        dead: Vec::new(),
    };
    let got = equity(&s, Method::Auto).expect("equity");
    assert_eq!(
        got.computed,
        Computed::MonteCarlo {
            trials: Method::DEFAULT_TRIALS,
            seed: 0
        }
    );
    let total: f64 = got.players.iter().map(|p| p.pot).sum();
    assert!((total - 1.0).abs() < 1e-9);
    // Two random hands are alike; the premium hand beats each.
    assert!(got.players[0].pot > got.players[1].pot + 0.1);
    assert!((got.players[1].pot - got.players[2].pot).abs() < 6.0 * got.players[1].pot_error);
}

const CARDS: usize = 52;

/// Distinct card indices: `n` hands of four and a board of `board` cards.
fn deal(n: usize, board: usize) -> impl Strategy<Value = (Vec<[Card; 4]>, Vec<Card>)> {
    Just((0..CARDS as u8).collect::<Vec<u8>>())
        .prop_shuffle()
        .prop_map(move |order| {
            let cards: Vec<Card> = order.iter().filter_map(|&i| Card::from_index(i)).collect();
            let hands = (0..n)
                .map(|i| std::array::from_fn(|j| cards[4 * i + j]))
                .collect();
            (hands, cards[4 * n..4 * n + board].to_vec())
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn exact_equity_matches_brute_force_from_the_flop_and_turn(
        (hands, board) in (2usize..=6, 3usize..=4).prop_flat_map(|(n, board)| deal(n, board)),
    ) {
        let s = Spot { hands: hands.into_iter().map(Some).collect(), board, dead: Vec::new() };
        assert_matches_brute_force(&s);
    }

    #[test]
    fn shares_sum_to_one_and_follow_the_hands_when_reordered(
        (hands, board) in deal(4, 3),
    ) {
        let s = Spot { hands: hands.iter().copied().map(Some).collect(), board: board.clone(), dead: Vec::new() };
        let got = equity(&s, Method::Auto).expect("equity");
        let total: f64 = got.players.iter().map(|p| p.pot).sum();
        prop_assert!((total - 1.0).abs() < 1e-12);
        let reversed = Spot { hands: hands.iter().rev().copied().map(Some).collect(), board, dead: Vec::new() };
        let back = equity(&reversed, Method::Auto).expect("equity");
        for (a, b) in got.players.iter().zip(back.players.iter().rev()) {
            prop_assert!((a.pot - b.pot).abs() < 1e-12);
            prop_assert!((a.scoop - b.scoop).abs() < 1e-12);
        }
    }

    #[test]
    fn renaming_the_suits_changes_nothing((hands, board) in deal(3, 0)) {
        let rename = |c: Card| Card::new(c.rank(), Suit::ALL[(c.suit() as usize + 1) % 4]);
        let s = Spot { hands: hands.iter().copied().map(Some).collect(), board: board.clone(), dead: Vec::new() };
        let t = Spot {
            hands: hands.iter().map(|h| Some(h.map(rename))).collect(),
            board: board.into_iter().map(rename).collect(),
            dead: Vec::new(),
        };
        let a = equity(&s, Method::Auto).expect("equity");
        let b = equity(&t, Method::Auto).expect("equity");
        prop_assert_eq!(a, b);
    }
}
