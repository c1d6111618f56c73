//! Pages are addressed by the URL fragment (`#/table/main`): the server's single-page fallback
//! is then never needed, and the back button works without a router crate.

use leptos::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    Lobby,
    Login,
    Register,
    Table {
        id: String,
        sit: bool,
    },
    Hands,
    Replay(String),
    Account,
    Equity,
    /// "New table": a player opens a home game.
    NewTable,
    /// An invite link (`#/join/TOKEN`): opens the private table it names.
    Join(String),
    /// How to play.
    Rules,
    /// A hand a player shared (`#/shared/TOKEN`), for anyone with the link.
    Shared(String),
}

impl Route {
    pub fn parse(hash: &str) -> Route {
        let path = hash.trim_start_matches('#').trim_start_matches('/');
        let (path, query) = path.split_once('?').unwrap_or((path, ""));
        let mut parts = path.split('/');
        match (parts.next(), parts.next()) {
            (Some("login"), _) => Route::Login,
            (Some("register"), _) => Route::Register,
            (Some("table"), Some(id)) if !id.is_empty() => Route::Table {
                id: id.to_string(),
                sit: query == "sit",
            },
            (Some("hands"), Some(id)) if !id.is_empty() => Route::Replay(id.to_string()),
            (Some("hands"), _) => Route::Hands,
            (Some("account"), _) => Route::Account,
            (Some("equity"), _) => Route::Equity,
            (Some("new"), _) => Route::NewTable,
            (Some("join"), Some(token)) if !token.is_empty() => Route::Join(token.to_string()),
            (Some("rules"), _) => Route::Rules,
            (Some("shared"), Some(token)) if !token.is_empty() => Route::Shared(token.to_string()),
            _ => Route::Lobby,
        }
    }

    pub fn href(&self) -> String {
        match self {
            Route::Lobby => "#/lobby".into(),
            Route::Login => "#/login".into(),
            Route::Register => "#/register".into(),
            Route::Table { id, sit: false } => format!("#/table/{id}"),
            Route::Table { id, sit: true } => format!("#/table/{id}?sit"),
            Route::Hands => "#/hands".into(),
            Route::Replay(id) => format!("#/hands/{id}"),
            Route::Account => "#/account".into(),
            Route::Equity => "#/equity".into(),
            Route::NewTable => "#/new".into(),
            Route::Join(token) => format!("#/join/{token}"),
            Route::Rules => "#/rules".into(),
            Route::Shared(token) => format!("#/shared/{token}"),
        }
    }
}

fn current_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

impl Route {
    /// The whole address of this page, to give to someone else (an invite, a shared hand).
    pub fn absolute(&self) -> String {
        let origin = web_sys::window()
            .and_then(|w| w.location().origin().ok())
            .unwrap_or_default();
        format!("{origin}/{}", self.href())
    }
}

pub fn go(route: &Route) {
    if let Some(w) = web_sys::window() {
        let _ = w.location().set_hash(&route.href());
    }
}

/// The current page, following the fragment.
pub fn current() -> ReadSignal<Route> {
    let (route, set_route) = signal(Route::parse(&current_hash()));
    let handle = window_event_listener(leptos::ev::hashchange, move |_| {
        set_route.set(Route::parse(&current_hash()));
    });
    // The listener lives as long as the app; forgetting the handle keeps it.
    std::mem::forget(handle);
    route
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_round_trip() {
        for r in [
            Route::Lobby,
            Route::Login,
            Route::Register,
            Route::Table {
                id: "main".into(),
                sit: true,
            },
            Route::Table {
                id: "main".into(),
                sit: false,
            },
            Route::Hands,
            Route::Replay("abc".into()),
            Route::Shared("xyz".into()),
            Route::Account,
            Route::NewTable,
            Route::Join("k3x9".into()),
            Route::Rules,
        ] {
            assert_eq!(Route::parse(&r.href()), r);
        }
        assert_eq!(Route::parse(""), Route::Lobby);
        assert_eq!(Route::parse("#/nonsense"), Route::Lobby);
    }
}
