#![allow(dead_code)]

use shared::card::Card;
use shared::hand::{Entrant, HandSetup, Post, deck_for};
use shared::{Action, Chips, Deck, Event, Hand, Stakes};

pub fn entrant(seat: u8, stack: Chips, post: Post) -> Entrant {
    Entrant { seat, stack, post }
}

/// Blinds on the two seats after the button (or button = small blind heads-up), everyone
/// else posting nothing.
pub fn standard(stakes: Stakes, button: u8, stacks: &[(u8, Chips)]) -> HandSetup {
    let mut seats: Vec<u8> = stacks.iter().map(|s| s.0).collect();
    seats.sort();
    let after = |s: u8| -> u8 { *seats.iter().find(|&&x| x > s).unwrap_or(&seats[0]) };
    let (sb, bb) = if seats.len() == 2 {
        (button, after(button))
    } else {
        (after(button), after(after(button)))
    };
    HandSetup {
        stakes,
        button,
        big_blind_seat: bb,
        entrants: stacks
            .iter()
            .map(|&(seat, stack)| {
                let post = if seat == sb {
                    Post::SmallBlind
                } else if seat == bb {
                    Post::BigBlind
                } else {
                    Post::Nothing
                };
                entrant(seat, stack, post)
            })
            .collect(),
        run_twice: false,
    }
}

pub fn start(setup: HandSetup) -> (Hand, Vec<Event>) {
    Hand::start(setup, Deck::ordered()).expect("valid setup")
}

/// Starts with the given hole cards (in dealing order from left of the button) and board.
pub fn start_with(setup: HandSetup, holes: &[&str], board: &str) -> (Hand, Vec<Event>) {
    let holes: Vec<[Card; 4]> = holes
        .iter()
        .map(|h| Card::parse_exact::<4>(h).expect("hole cards"))
        .collect();
    let board = Card::parse_many(board).expect("board");
    let deck = deck_for(&holes, &board, &[]).expect("distinct cards");
    Hand::start(setup, deck).expect("valid setup")
}

/// Like [`start_with`], run twice, with `second` the cards the second run deals.
pub fn start_twice(
    mut setup: HandSetup,
    holes: &[&str],
    board: &str,
    second: &str,
) -> (Hand, Vec<Event>) {
    let holes: Vec<[Card; 4]> = holes
        .iter()
        .map(|h| Card::parse_exact::<4>(h).expect("hole cards"))
        .collect();
    let board = Card::parse_many(board).expect("board");
    let second = Card::parse_many(second).expect("second run");
    let deck = deck_for(&holes, &board, &second).expect("distinct cards");
    setup.run_twice = true;
    Hand::start(setup, deck).expect("valid setup")
}

pub fn act(hand: &mut Hand, seat: u8, action: Action) -> Vec<Event> {
    match hand.act(seat, action) {
        Ok(events) => events,
        Err(e) => panic!(
            "seat {seat} {action:?} refused: {e}; legal = {:?}",
            hand.legal()
        ),
    }
}

pub fn fold() -> Action {
    Action::Fold
}
pub fn check() -> Action {
    Action::Check
}
pub fn call() -> Action {
    Action::Call
}
pub fn raise(to: Chips) -> Action {
    Action::RaiseTo { to }
}

pub fn final_stack(hand: &Hand, seat: u8) -> Chips {
    hand.result()
        .expect("hand over")
        .stacks
        .iter()
        .find(|s| s.0 == seat)
        .expect("seat in hand")
        .1
}

fn fixture_path(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

pub fn read_fixture(name: &str) -> String {
    let path = fixture_path(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (SCOOP_BLESS=1 writes it from the code)"))
}

/// Compares `text` with the golden file `name` byte for byte. With SCOOP_BLESS=1 the file is
/// written instead: only for a new format, never to make a changed one pass.
pub fn golden(name: &str, text: &str) {
    if std::env::var_os("SCOOP_BLESS").is_some() {
        std::fs::write(fixture_path(name), text).expect("write the golden file");
        return;
    }
    let want = read_fixture(name);
    assert!(
        text == want,
        "the format pinned by {name} changed: add a new format version and keep reading this \
         one.\n--- now ---\n{text}\n--- pinned ---\n{want}"
    );
}
