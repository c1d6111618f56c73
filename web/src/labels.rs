//! Words for game things in the viewer's language: hand values, amounts, log lines.

use shared::card::{Card, Rank};
use shared::eval::{HandCategory, HighValue, LowValue};
use shared::format::Share;
use shared::format::{Acted, BlindKind, Event};
use shared::hand::Street;
use shared::protocol::{ErrorCode, ViewEvent};
use shared::rules::{Chips, Stakes, Structure};

use crate::i18n::{Text, fill};
use crate::table::state::LogEntry;

pub fn chips(amount: Chips) -> String {
    // Thin spaces group thousands in every language we speak, unambiguously.
    let digits = amount.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out
}

/// A probability given in millionths as a percentage with `decimals` (at most 4) decimals,
/// "55.7%" or "55,7 %". Integer arithmetic: float formatting costs the bundle kilobytes.
pub fn percent(t: &Text, millionths: u32, decimals: u32) -> String {
    let decimals = decimals.min(4);
    let unit = 10u64.pow(4 - decimals);
    let scaled = (u64::from(millionths) + unit / 2) / unit;
    let scale = 10u64.pow(decimals);
    let whole = scaled / scale;
    if decimals == 0 {
        return format!("{whole}{}", t.percent_sign);
    }
    let fraction = scaled % scale;
    format!(
        "{whole}{}{fraction:0width$}{}",
        t.decimal_mark,
        t.percent_sign,
        width = decimals as usize
    )
}

pub fn stakes(s: &Stakes) -> String {
    match s.structure {
        Structure::FixedLimit => format!("{}/{}", chips(s.small_bet), chips(s.big_bet)),
        _ => format!("{}/{}", chips(s.small_blind), chips(s.big_blind)),
    }
}

pub fn structure(t: &Text, s: Structure) -> &'static str {
    match s {
        Structure::FixedLimit => t.fixed_limit,
        Structure::PotLimit => t.pot_limit,
        Structure::NoLimit => t.no_limit,
    }
}

fn rank_word(t: &Text, rank: Rank, plural: bool) -> &'static str {
    let i = usize::from(rank.index());
    if plural {
        t.rank_plurals[i]
    } else {
        t.ranks[i]
    }
}

/// "Full house, kings full of sevens" in the viewer's language.
pub fn high(t: &Text, value: HighValue) -> String {
    let [first, second] = value.named_ranks();
    let (template, plural) = match value.category() {
        HandCategory::StraightFlush if first == Rank::ACE => (t.royal_flush, false),
        HandCategory::StraightFlush => (t.straight_flush, false),
        HandCategory::Quads => (t.quads, true),
        HandCategory::FullHouse => (t.full_house, true),
        HandCategory::Flush => (t.flush, false),
        HandCategory::Straight => (t.straight, false),
        HandCategory::Trips => (t.trips, true),
        HandCategory::TwoPair => (t.two_pair, true),
        HandCategory::Pair => (t.pair, true),
        HandCategory::HighCard => (t.high_card, false),
    };
    let mut label = template
        .replace("{r}", rank_word(t, first, plural))
        .replace("{s}", rank_word(t, second, plural));
    for (from, to) in t.elisions {
        label = label.replace(from, to);
    }
    label
}

/// "8-6-4-2-A": the same in every language.
pub fn low(value: LowValue) -> String {
    let ranks: Vec<String> = value
        .ranks()
        .iter()
        .map(|r| r.to_char().to_string())
        .collect();
    ranks.join("-")
}

/// "Hi: Full house, kings full of sevens · Lo: 8-6-4-2-A" (or "no low").
pub fn showdown(t: &Text, high_value: HighValue, low_value: Option<LowValue>) -> (String, String) {
    let hi = format!("{}: {}", t.hi, high(t, high_value));
    let lo = match low_value {
        Some(l) => format!("{}: {}", t.lo, low(l)),
        None => t.no_low.to_string(),
    };
    (hi, lo)
}

pub fn share(t: &Text, s: Share) -> &'static str {
    match s {
        Share::High => t.share_high,
        Share::Low => t.share_low,
        Share::Whole => t.share_whole,
    }
}

pub fn card_text(card: Card) -> String {
    let rank = match card.rank().to_char() {
        'T' => "10".to_string(),
        c => c.to_string(),
    };
    let suit = ["♣", "♦", "♥", "♠"][card.suit() as usize];
    format!("{rank}{suit}")
}

pub fn cards_text(cards: &[Card]) -> String {
    cards
        .iter()
        .map(|c| card_text(*c))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn street(t: &Text, s: Street) -> &'static str {
    match s {
        Street::Preflop => "",
        Street::Flop => t.flop,
        Street::Turn => t.turn,
        Street::River => t.river,
    }
}

/// The server names house bots "Hugo (house bot)"; the mark is said in the reader's language.
pub fn player_name(t: &Text, name: &str) -> String {
    match name.strip_suffix(" (house bot)") {
        Some(bot) => format!("{bot} {}", t.house_bot),
        None => name.to_string(),
    }
}

/// "Buy-in 200–2,000 · rake 5% (at most 300 a hand)", or "· no rake", then the table's
/// options ("· run it twice · straddle").
pub fn table_terms(t: &Text, view: &shared::protocol::TableView) -> String {
    let rake = match view.stakes.rake {
        Some(r) if r.basis_points > 0 && r.cap > 0 => {
            let percent = match r.basis_points % 100 {
                0 => (r.basis_points / 100).to_string(),
                cents => format!("{}{}{:02}", r.basis_points / 100, t.decimal_mark, cents)
                    .trim_end_matches('0')
                    .to_string(),
            };
            fill(t.rake_terms, &chips(r.cap), percent)
        }
        _ => t.no_rake.to_string(),
    };
    let range = format!("{}–{}", chips(view.min_buy_in), chips(view.max_buy_in));
    let mut terms = format!("{} · {rake}", fill(t.buy_in_terms, "", range));
    for (on, word) in [
        (view.run_twice, t.run_twice_badge),
        (view.straddle, t.straddle_badge),
    ] {
        if on {
            terms.push_str(" · ");
            terms.push_str(word);
        }
    }
    terms
}

/// "owes SB + BB": the blinds a seat missed while sitting out, if any.
pub fn owed(t: &Text, seat: &shared::protocol::SeatView) -> Option<String> {
    let blinds = match (seat.missed_small, seat.missed_big) {
        (true, true) => format!("{} + {}", t.small_blind_marker, t.big_blind_marker),
        (false, true) => t.big_blind_marker.to_string(),
        (true, false) => t.small_blind_marker.to_string(),
        (false, false) => return None,
    };
    Some(fill(t.owes, "", blinds))
}

/// "21:07": a time in milliseconds since the Unix epoch, in the reader's time zone (browser
/// only: it asks the browser's `Date`).
pub fn clock_time(at: u64) -> String {
    let date = js_sys::Date::new(&(at as f64).into());
    format!("{:02}:{:02}", date.get_hours(), date.get_minutes())
}

pub fn error_code(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::BadMessage => "bad_message",
        ErrorCode::TooLarge => "too_large",
        ErrorCode::RateLimited => "rate_limited",
        ErrorCode::NotLoggedIn => "not_logged_in",
        ErrorCode::NoSuchTable => "no_such_table",
        ErrorCode::IllegalAction => "illegal_action",
        ErrorCode::StaleHand => "stale_hand",
        ErrorCode::Seat => "seat",
        ErrorCode::InsufficientBalance => "insufficient_balance",
        ErrorCode::ChatRejected => "chat_rejected",
        ErrorCode::DatabaseUnavailable => "database_unavailable",
        ErrorCode::AlreadyDone => "already_done",
        ErrorCode::NotHost => "not_host",
        ErrorCode::AwaitingApproval => "awaiting_approval",
        ErrorCode::SeatRefused => "seat_refused",
        ErrorCode::Internal => "internal",
        ErrorCode::SeatHeld => "seat_held",
    }
}

/// "ace of hearts, deuce of clubs": cards as a screen reader should say them.
pub fn cards_words(t: &Text, cards: &[Card]) -> String {
    cards
        .iter()
        .map(|c| {
            let rank = rank_word(t, c.rank(), false);
            fill(t.card_words, rank, t.suits[c.suit() as usize])
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One hand-log line, or `None` for events that say nothing new to a reader.
pub fn log_line(t: &Text, entry: &LogEntry) -> Option<String> {
    log_line_with(t, entry, |_, cards| cards_text(cards))
}

/// The same line with its cards in words, for the screen-reader announcements.
pub fn spoken_line(t: &Text, entry: &LogEntry) -> Option<String> {
    log_line_with(t, entry, cards_words)
}

fn log_line_with(
    t: &Text,
    entry: &LogEntry,
    cards_text: impl Fn(&Text, &[Card]) -> String,
) -> Option<String> {
    let cards_text = |cards: &[Card]| cards_text(t, cards);
    let name = player_name(t, &entry.name);
    let n = name.as_str();
    let event = match &entry.event {
        ViewEvent::Dealt(d) => return d.cards.map(|c| fill(t.log_dealt, n, cards_text(&c))),
        ViewEvent::Public(e) => e,
    };
    Some(match event {
        Event::HandStarted { .. } => fill(t.log_hand, n, entry.hand),
        Event::BlindPosted { blind, amount, .. } => {
            let template = match blind {
                BlindKind::Small => t.log_small_blind,
                BlindKind::Big => t.log_big_blind,
                BlindKind::DeadSmall => t.log_dead_small,
                BlindKind::Straddle => t.log_straddle,
            };
            fill(template, n, chips(*amount))
        }
        Event::HoleCards { cards, .. } => fill(t.log_dealt, n, cards_text(cards)),
        Event::Acted { action, all_in, .. } => {
            let mut line = match action {
                Acted::Fold => fill(t.log_folds, n, ""),
                Acted::Check => fill(t.log_checks, n, ""),
                Acted::Call { amount } => fill(t.log_calls, n, chips(*amount)),
                Acted::Bet { to } => fill(t.log_bets, n, chips(*to)),
                Acted::Raise { to } => fill(t.log_raises, n, chips(*to)),
            };
            if *all_in {
                line.push_str(t.log_all_in);
            }
            line
        }
        Event::UncalledBetReturned { amount, .. } => fill(t.log_returned, n, chips(*amount)),
        Event::PotsGathered { .. } | Event::HandEnded { .. } => return None,
        Event::BoardDealt { street: s, cards } => {
            format!("{}: {}", street(t, *s), cards_text(cards))
        }
        Event::SecondRunDealt { street: s, cards } => fill(
            t.log_second_run,
            &street(t, *s).to_lowercase(),
            cards_text(cards),
        ),
        Event::HandsFaceUp { .. } => t.log_face_up.to_string(),
        Event::Shown {
            cards,
            high: h,
            low: l,
            second,
            ..
        } => {
            let shows = fill(t.log_shows, n, cards_text(cards));
            let (hi, lo) = showdown(t, *h, *l);
            match second {
                // Run twice: the hand on each board.
                Some(v) => {
                    let (hi2, lo2) = showdown(t, v.high, v.low);
                    let (one, two) = (fill(t.run_n, "", 1), fill(t.run_n, "", 2));
                    format!("{shows} — {one}: {hi}, {lo} · {two}: {hi2}, {lo2}")
                }
                None => format!("{shows} — {hi}, {lo}"),
            }
        }
        Event::Mucked { .. } => fill(t.log_mucks, n, ""),
        Event::Equity { hands, .. } => {
            let parts: Vec<String> = hands
                .iter()
                .zip(&entry.names)
                .map(|(h, name)| {
                    format!(
                        "{name} {} ({} {})",
                        percent(t, h.pot, 1),
                        t.scoop,
                        percent(t, h.scoop, 1)
                    )
                })
                .collect();
            format!("{}: {}", t.equity, parts.join(" · "))
        }
        Event::RakeTaken { amount, .. } => fill(t.log_rake, n, chips(*amount)),
        Event::PotAwarded {
            pot,
            amount,
            share: s,
            second_run,
            ..
        } => {
            let pot_name = if *pot == 0 {
                t.pot.to_string()
            } else {
                format!("{} {pot}", t.side_pot)
            };
            let board = if *second_run {
                format!(", {}", t.second_board)
            } else {
                String::new()
            };
            format!(
                "{} ({pot_name}, {}{board})",
                fill(t.log_wins, n, chips(*amount)),
                share(t, *s)
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{EN, FR, IT};

    #[test]
    fn house_bots_are_marked_in_the_readers_language() {
        assert_eq!(
            player_name(&FR, "Hugo (house bot)"),
            "Hugo (robot de la maison)"
        );
        assert_eq!(
            player_name(&IT, "Hugo (house bot)"),
            "Hugo (bot della casa)"
        );
        assert_eq!(player_name(&EN, "ann"), "ann");
    }

    #[test]
    fn the_table_terms_give_the_buy_in_range_and_the_rake() {
        let mut table =
            shared::table::Table::new(shared::table::TableConfig::new(Stakes::no_limit(5, 10), 6))
                .expect("table");
        let view = shared::view::table_view(&table, shared::view::Viewer::Spectator, 0);
        assert_eq!(
            table_terms(&EN, &view),
            format!("Buy-in {}–{} · no rake", chips(100), chips(1_000))
        );
        let mut stakes = Stakes::no_limit(5, 10);
        stakes.rake = Some(shared::rules::Rake {
            basis_points: 250,
            cap: 300,
        });
        table =
            shared::table::Table::new(shared::table::TableConfig::new(stakes, 6)).expect("table");
        let view = shared::view::table_view(&table, shared::view::Viewer::Spectator, 0);
        assert!(
            table_terms(&FR, &view).ends_with("rake 2,5 % (au plus 300 par main)"),
            "{}",
            table_terms(&FR, &view)
        );
    }

    #[test]
    fn a_screen_reader_hears_the_cards_in_words() {
        let cards = Card::parse_many("Ah2cTd").unwrap_or_default();
        assert_eq!(
            cards_words(&EN, &cards),
            "ace of hearts, deuce of clubs, ten of diamonds"
        );
        assert_eq!(cards_words(&FR, &cards[..1]), "as de cœur");
        assert_eq!(cards_words(&IT, &cards[..1]), "asso di cuori");
        let entry = LogEntry {
            hand: 7,
            event: ViewEvent::Public(Event::BoardDealt {
                street: Street::Flop,
                cards,
            }),
            name: String::new(),
            names: Vec::new(),
        };
        assert_eq!(
            spoken_line(&EN, &entry).as_deref(),
            Some("Flop: ace of hearts, deuce of clubs, ten of diamonds")
        );
        assert_eq!(log_line(&EN, &entry).as_deref(), Some("Flop: A♥ 2♣ 10♦"));
    }

    #[test]
    fn a_seat_that_missed_blinds_says_which_it_owes() {
        let table =
            shared::table::Table::new(shared::table::TableConfig::new(Stakes::no_limit(5, 10), 6))
                .expect("table");
        let mut table = table;
        table
            .sit(0, shared::table::PlayerId(1), "ann".into(), 500, true)
            .expect("a seat");
        let view = shared::view::table_view(&table, shared::view::Viewer::Spectator, 0);
        let mut seat = view.seats[0].clone().expect("ann's seat");
        assert_eq!(owed(&EN, &seat), None);
        seat.missed_big = true;
        assert_eq!(owed(&EN, &seat).as_deref(), Some("owes BB"));
        seat.missed_small = true;
        assert_eq!(owed(&EN, &seat).as_deref(), Some("owes SB + BB"));
        assert_eq!(owed(&FR, &seat).as_deref(), Some("doit PB + GB"));
    }

    #[test]
    fn the_table_terms_name_run_it_twice_and_the_straddle() {
        let table =
            shared::table::Table::new(shared::table::TableConfig::new(Stakes::no_limit(5, 10), 6))
                .expect("table");
        let mut view = shared::view::table_view(&table, shared::view::Viewer::Spectator, 0);
        view.run_twice = true;
        assert!(table_terms(&EN, &view).ends_with("no rake · run it twice"));
        view.straddle = true;
        assert!(table_terms(&EN, &view).ends_with("no rake · run it twice · straddle"));
        view.run_twice = false;
        assert!(table_terms(&IT, &view).ends_with("senza rake · straddle"));
    }

    fn line(event: Event) -> Option<String> {
        let entry = LogEntry {
            hand: 7,
            event: ViewEvent::Public(event),
            name: "ann".into(),
            names: Vec::new(),
        };
        log_line(&EN, &entry)
    }

    #[test]
    fn straddles_and_second_runs_read_in_the_log() {
        let straddle = line(Event::BlindPosted {
            seat: 3,
            blind: BlindKind::Straddle,
            amount: 20,
            all_in: false,
        });
        assert_eq!(straddle.as_deref(), Some("ann posts a straddle of 20"));
        let turn = line(Event::SecondRunDealt {
            street: Street::Turn,
            cards: Card::parse_many("Kh").unwrap_or_default(),
        });
        assert_eq!(turn.as_deref(), Some("Second run — turn: K♥"));
        let award = |second_run| {
            line(Event::PotAwarded {
                pot: 0,
                seat: 3,
                amount: 50,
                share: Share::High,
                second_run,
            })
        };
        assert_eq!(award(false).as_deref(), Some("ann wins 50 (Pot, high)"));
        assert_eq!(
            award(true).as_deref(),
            Some("ann wins 50 (Pot, high, second board)")
        );
    }

    #[test]
    fn percentages_round_and_follow_the_language() {
        assert_eq!(percent(&EN, 556_850, 4), "55.6850%");
        assert_eq!(percent(&EN, 556_850, 1), "55.7%");
        assert_eq!(percent(&EN, 1_000_000, 1), "100.0%");
        assert_eq!(percent(&EN, 4, 2), "0.00%");
        assert_eq!(percent(&FR, 556_850, 1), "55,7\u{202f}%");
        assert_eq!(percent(&IT, 50, 2), "0,01%");
    }

    #[test]
    fn english_labels_match_the_engine() {
        for class in (0..7462u16).step_by(7) {
            let v = HighValue::try_from(class).unwrap();
            assert_eq!(high(&EN, v), v.label());
        }
    }

    #[test]
    fn french_and_italian_labels_read_naturally() {
        let aces_full = (0..7462u16)
            .map(|c| HighValue::try_from(c).unwrap())
            .find(|v| v.label() == "Full house, aces full of kings")
            .unwrap();
        assert_eq!(high(&FR, aces_full), "Full aux as par les rois");
        assert_eq!(high(&IT, aces_full), "Full di assi con re");
        let quads = (0..7462u16)
            .map(|c| HighValue::try_from(c).unwrap())
            .find(|v| v.label() == "Four of a kind, aces")
            .unwrap();
        assert_eq!(high(&FR, quads), "Carré d'as");
    }

    #[test]
    fn chips_group_thousands() {
        assert_eq!(chips(999), "999");
        assert_eq!(chips(10_000), "10\u{202f}000");
    }
}
