//! Playing cards drawn as SVG: big rank and suit in the corner so four cards side by side
//! read at a glance; the four-colour option gives diamonds and clubs their own colours.

use leptos::prelude::*;
use shared::card::{Card, Suit};

fn suit_class(suit: Suit) -> &'static str {
    match suit {
        Suit::Clubs => "suit-c",
        Suit::Diamonds => "suit-d",
        Suit::Hearts => "suit-h",
        Suit::Spades => "suit-s",
    }
}

#[component]
pub fn CardFace(card: Card) -> impl IntoView {
    let rank = match card.rank().to_char() {
        'T' => "10".to_string(),
        c => c.to_string(),
    };
    let suit = ["♣", "♦", "♥", "♠"][card.suit() as usize];
    let label = card.to_string();
    view! {
        <svg class=format!("card {}", suit_class(card.suit())) viewBox="0 0 50 70" role="img" aria-label=label.clone() data-card=label>
            <rect x="1" y="1" width="48" height="68" rx="5" class="card-bg" />
            <text x="5" y="24" class="card-rank">{rank}</text>
            <text x="46" y="62" text-anchor="end" class="card-suit">{suit}</text>
        </svg>
    }
}

#[component]
pub fn CardBack() -> impl IntoView {
    view! {
        <svg class="card back" viewBox="0 0 50 70" aria-hidden="true">
            <rect x="1" y="1" width="48" height="68" rx="5" class="card-back-bg" />
            <rect x="6" y="6" width="38" height="58" rx="3" class="card-back-inner" />
        </svg>
    }
}

/// A card when known, its back when not.
pub fn card_or_back(card: Option<Card>) -> AnyView {
    match card {
        Some(card) => view! { <CardFace card /> }.into_any(),
        None => view! { <CardBack /> }.into_any(),
    }
}
