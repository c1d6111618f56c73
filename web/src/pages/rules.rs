//! How to play (`#/rules`): the game in short, with example hands drawn with the table's own
//! cards. What each example hand makes and wins is worked out by `shared::eval` as the page
//! is drawn, never written by hand, so the page cannot say what the engine would not; the
//! tests below hold the prose's claims to the same evaluation.

use leptos::prelude::*;
use shared::card::Card;
use shared::eval::{HighValue, LowSoFar, LowValue, strength};

use crate::cards::CardFace;
use crate::i18n::{self, Text, fill, rules::Rules};
use crate::labels;

/// A board and the hands shown on it.
#[derive(Clone, Copy, Debug)]
pub struct Example {
    /// For the browser test: which example a figure is.
    pub name: &'static str,
    pub board: &'static str,
    pub hands: &'static [&'static str],
}

/// Four hearts in hand, one on the board: no flush.
pub const TRAP: Example = Example {
    name: "trap",
    board: "Kh 9c 6s 2d Jc",
    hands: &["Ah Qh 8h 4h"],
};
/// docs/rules.md §2.4: 8-7-5-4-3 beats 8-7-6-3-A at the third card.
pub const LOW: Example = Example {
    name: "low",
    board: "Ks 8d 3c Th 7c",
    hands: &["Ac 6d Qs Qh", "4s 5c Jd Jc"],
};
pub const SCOOP: Example = Example {
    name: "scoop",
    board: "Kd 7c 4s 2h 9c",
    hands: &["As 3d Kh Kc", "Qs Qh 5c 6d"],
};
pub const SPLIT: Example = Example {
    name: "split",
    board: "Qs Jd 8c 5h 3d",
    hands: &["As Ks Th 9c", "Ah 2c 4d Kd"],
};
pub const QUARTER: Example = Example {
    name: "quarter",
    board: "2c 5d 8s Kh Kc",
    hands: &["Ad 3s Ks Qd", "Ah 3h 9d Tc"],
};

struct Shown {
    high: HighValue,
    low: Option<LowValue>,
}

/// How much of a half of the pot a hand takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Alone,
    Shared,
    Nothing,
}

/// One hand of an example as the engine judges it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub high: HighValue,
    pub low: Option<LowValue>,
    pub high_part: Part,
    pub low_part: Part,
    /// Its share of the pot in quarters (the examples are heads-up, so quarters are exact).
    pub quarters: usize,
}

impl Example {
    pub fn cards(&self) -> Option<([Card; 5], Vec<[Card; 4]>)> {
        let board = Card::parse_exact::<5>(self.board).ok()?;
        let hands = self
            .hands
            .iter()
            .map(|h| Card::parse_exact::<4>(h).ok())
            .collect::<Option<Vec<_>>>()?;
        Some((board, hands))
    }
}

/// Each hand's high and low, and what it wins when the pot is split as docs/rules.md §3 says.
pub fn outcomes(board: &[Card; 5], hands: &[[Card; 4]]) -> Vec<Outcome> {
    // The hand-strength line's evaluation, which the bundle carries anyway: the showdown's
    // fast evaluator would add its table builder to the page for five examples.
    let shown: Vec<Shown> = hands
        .iter()
        .filter_map(|h| strength(h, board))
        .map(|s| Shown {
            high: s.high,
            low: match s.low {
                LowSoFar::Made(low) => Some(low),
                LowSoFar::NotYet | LowSoFar::Impossible => None,
            },
        })
        .collect();
    let best_high = shown.iter().map(|s| s.high).max();
    let best_low = shown.iter().filter_map(|s| s.low).max();
    let high_winners = shown.iter().filter(|s| Some(s.high) == best_high).count();
    let low_winners = shown
        .iter()
        .filter(|s| s.low.is_some() && s.low == best_low)
        .count();
    let part = |won: bool, winners: usize| match (won, winners) {
        (false, _) => Part::Nothing,
        (true, 1) => Part::Alone,
        (true, _) => Part::Shared,
    };
    shown
        .iter()
        .map(|s| {
            let high_won = Some(s.high) == best_high;
            let low_won = s.low.is_some() && s.low == best_low;
            // Without a low the high takes the whole pot.
            let half = if low_winners == 0 { 4 } else { 2 };
            let mut quarters = 0;
            if high_won {
                quarters += half / high_winners;
            }
            if low_won {
                quarters += 2 / low_winners;
            }
            Outcome {
                high: s.high,
                low: s.low,
                high_part: part(high_won, high_winners),
                low_part: part(low_won, low_winners),
                quarters,
            }
        })
        .collect()
}

/// "wins the high and shares the low: three quarters of the pot".
pub fn result(r: &Rules, o: &Outcome) -> String {
    let parts: Vec<&str> = [
        match o.high_part {
            Part::Alone => Some(r.wins_high),
            Part::Shared => Some(r.shares_high),
            Part::Nothing => None,
        },
        match o.low_part {
            Part::Alone => Some(r.wins_low),
            Part::Shared => Some(r.shares_low),
            Part::Nothing => None,
        },
    ]
    .into_iter()
    .flatten()
    .collect();
    if parts.is_empty() {
        return r.wins_nothing.to_string();
    }
    let share = r.quarters.get(o.quarters).copied().unwrap_or_default();
    fill(r.result, &parts.join(r.and), share)
}

/// A row of cards: the board and every hand go through this one path.
fn card_row(cards: &[Card]) -> AnyView {
    let cards = cards.to_vec();
    view! {
        <span class="rules-cards">{cards.into_iter().map(|card| view! { <CardFace card /> }).collect_view()}</span>
    }
    .into_any()
}

/// An example: its board, then each hand with what it makes and, facing another, wins.
fn figure(t: &'static Text, example: Example) -> AnyView {
    let Some((board, hands)) = example.cards() else {
        return ().into_any();
    };
    let results = outcomes(&board, &hands);
    // A lone hand illustrates what it makes; it has nobody to win from.
    let contest = hands.len() > 1;
    view! {
        <figure class="rules-example" data-test="rules-example" data-example=example.name>
            <div class="rules-board">
                <span class="rules-label">{t.board}</span>
                {card_row(&board)}
            </div>
            {hands.iter().zip(results).enumerate().map(|(i, (hole, o))| {
                let (hi, lo) = labels::showdown(t, o.high, o.low);
                view! {
                    <div class="rules-hand" data-test="rules-hand" data-quarters=o.quarters>
                        <span class="rules-label">{fill(t.hand_n, "", i + 1)}</span>
                        {card_row(hole)}
                        <span class="hi" data-test="rules-high">{hi}</span>
                        <span class="lo" data-test="rules-low">{lo}</span>
                        {contest.then(|| view! { <span class="rules-result" data-test="rules-result">{result(t.rules_page, &o)}</span> })}
                    </div>
                }
            }).collect_view()}
        </figure>
    }
    .into_any()
}

/// A piece of the page. The page is a list of these drawn by one loop, not one view of
/// thirty nodes: far less code in the bundle.
enum Block {
    Head(&'static str),
    Para(&'static str),
    Figure(Example),
    /// A term and what it means.
    Term(&'static str, &'static str),
}

#[component]
pub fn RulesPage() -> impl IntoView {
    use Block::*;
    let t = i18n::current();
    let r = t.rules_page;
    let blocks = [
        Para(r.intro),
        Head(r.two_three_title),
        Para(r.two_three),
        Para(r.trap),
        Figure(TRAP),
        Head(r.low_title),
        Para(r.low),
        Para(r.low_example),
        Figure(LOW),
        Head(r.splits_title),
        Para(r.scoop),
        Figure(SCOOP),
        Para(r.split),
        Figure(SPLIT),
        Para(r.quarter),
        Figure(QUARTER),
        Head(r.structures_title),
        Term(t.fixed_limit, r.fixed_limit),
        Term(t.pot_limit, r.pot_limit),
        Term(t.no_limit, r.no_limit),
        Head(r.showdown_title),
        Para(r.showdown_order),
        Para(r.odd_chips),
    ];
    view! {
        <article class="rules panel" data-test="rules-page">
            <h1>{r.title}</h1>
            {blocks.into_iter().map(|block| match block {
                Head(text) => view! { <h2>{text}</h2> }.into_any(),
                Para(text) => view! { <p>{text}</p> }.into_any(),
                Figure(example) => figure(t, example),
                Term(term, text) => view! { <p class="rules-term"><strong>{term}</strong>" — "{text}</p> }.into_any(),
            }).collect_view()}
        </article>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::card::Suit;
    use shared::eval::{HandCategory, reference};

    const ALL: [Example; 5] = [TRAP, LOW, SCOOP, SPLIT, QUARTER];

    fn outcome(example: &Example) -> Vec<Outcome> {
        let (board, hands) = example.cards().expect("the example's cards parse");
        outcomes(&board, &hands)
    }

    #[test]
    fn examples_are_real_deals_and_the_page_evaluates_as_the_reference_does() {
        for e in ALL {
            let (board, hands) = e.cards().expect(e.name);
            let mut all: Vec<Card> = board.to_vec();
            hands.iter().for_each(|h| all.extend(h));
            let mut distinct = all.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), all.len(), "{}: a card twice", e.name);
            for (hole, o) in hands.iter().zip(outcome(&e)) {
                let slow = reference::evaluate(hole, &board);
                assert_eq!((o.high, o.low), (slow.high, slow.low), "{}", e.name);
                // And as the table's showdown does.
                assert_eq!(shared::eval::evaluate(hole, &board), slow, "{}", e.name);
            }
            if e.hands.len() > 1 {
                let pot: usize = outcome(&e).iter().map(|o| o.quarters).sum();
                assert_eq!(pot, 4, "{}: the shares make the whole pot", e.name);
            }
        }
    }

    /// "Four hearts in your hand and one on the board is no flush."
    #[test]
    fn the_trap_holds_four_suited_cards_and_makes_no_flush() {
        let (board, hands) = TRAP.cards().unwrap();
        assert!(hands[0].iter().all(|c| c.suit() == Suit::Hearts));
        assert_eq!(board.iter().filter(|c| c.suit() == Suit::Hearts).count(), 1);
        let o = outcome(&TRAP)[0];
        assert!(o.high.category() < HandCategory::Flush, "{:?}", o.high);
        assert_eq!(labels::high(&i18n::EN, o.high), "High card, ace");
        assert_eq!(o.low, None);
    }

    /// The low section's claims: 8-6-4-2-A beats 8-7-3-2-A, the wheel is the best low (and a
    /// straight), and in its example the second hand wins the low at the third card.
    #[test]
    fn the_low_section_says_what_the_evaluator_does() {
        let better = reference::five_card_low(&Card::parse_exact("8s6d4c2hAs").unwrap());
        let worse = reference::five_card_low(&Card::parse_exact("8c7d3s2dAc").unwrap());
        assert!(better > worse);
        let wheel = Card::parse_exact::<5>("As2d3c4h5s").unwrap();
        let best = reference::five_card_low(&wheel).unwrap();
        assert_eq!(labels::low(best), "5-4-3-2-A");
        assert_eq!(
            reference::five_card_high(&wheel).category(),
            HandCategory::Straight
        );
        // A pair spoils a low.
        assert_eq!(
            reference::five_card_low(&Card::parse_exact("8s8d4c2hAs").unwrap()),
            None
        );
        let [first, second] = outcome(&LOW)[..] else {
            panic!("two hands")
        };
        assert_eq!(first.low.map(labels::low).as_deref(), Some("8-7-6-3-A"));
        assert_eq!(second.low.map(labels::low).as_deref(), Some("8-7-5-4-3"));
        assert_eq!(second.low_part, Part::Alone);
    }

    #[test]
    fn scoop_split_and_quartering_win_what_the_text_says() {
        let scoop = outcome(&SCOOP);
        assert_eq!(
            (scoop[0].high_part, scoop[0].low_part),
            (Part::Alone, Part::Alone)
        );
        assert_eq!((scoop[0].quarters, scoop[1].quarters), (4, 0));
        assert_eq!(
            labels::high(&i18n::EN, scoop[0].high),
            "Three of a kind, kings"
        );
        assert_eq!(scoop[0].low.map(labels::low).as_deref(), Some("7-4-3-2-A"));

        let split = outcome(&SPLIT);
        assert_eq!(
            (split[0].high_part, split[0].low_part),
            (Part::Alone, Part::Nothing)
        );
        assert_eq!(
            (split[1].high_part, split[1].low_part),
            (Part::Nothing, Part::Alone)
        );
        assert_eq!((split[0].quarters, split[1].quarters), (2, 2));
        assert_eq!(split[0].low, None);
        assert_eq!(
            labels::high(&i18n::EN, split[0].high),
            "Straight, queen high"
        );
        assert_eq!(split[1].low.map(labels::low).as_deref(), Some("8-5-3-2-A"));

        let quarter = outcome(&QUARTER);
        assert_eq!(
            (quarter[0].high_part, quarter[0].low_part),
            (Part::Alone, Part::Shared)
        );
        assert_eq!(
            (quarter[1].high_part, quarter[1].low_part),
            (Part::Nothing, Part::Shared)
        );
        assert_eq!((quarter[0].quarters, quarter[1].quarters), (3, 1));
        assert_eq!(quarter[0].low, quarter[1].low);
    }

    #[test]
    fn results_read_in_every_language() {
        let quarter = outcome(&QUARTER);
        assert_eq!(
            result(&i18n::rules::EN, &quarter[0]),
            "wins the high and shares the low: three quarters of the pot"
        );
        assert_eq!(
            result(&i18n::rules::FR, &quarter[1]),
            "partage le bas : un quart du pot"
        );
        assert_eq!(
            result(&i18n::rules::IT, &outcome(&SCOOP)[1]),
            "non vince nulla"
        );
    }
}
