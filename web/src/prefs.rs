//! Preferences kept in the browser's localStorage, so they survive a reload.

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

pub fn load(key: &str) -> Option<String> {
    storage()?.get_item(key).ok()?
}

pub fn save(key: &str, value: &str) {
    if let Some(s) = storage() {
        // Private browsing may refuse to store: the preference then lasts for this page only.
        let _ = s.set_item(key, value);
    }
}

pub const LANG: &str = "scoop.lang";
pub const FOUR_COLOUR: &str = "scoop.four-colour";
pub const SOUND: &str = "scoop.sound";
/// "1": a notification when a decision waits and the tab is hidden (permission granted).
pub const NOTIFY: &str = "scoop.notify";
/// "0" once the player has folded the lobby's introduction away.
pub const LANDING: &str = "scoop.landing";

/// The invite a private table was opened with, kept so that a reload, or registering on the
/// way to a seat, finds the table again.
pub fn invite(table: &str) -> Option<String> {
    load(&format!("scoop.invite.{table}"))
}

pub fn remember_invite(table: &str, token: &str) {
    save(&format!("scoop.invite.{table}"), token);
}

/// An invite the table no longer takes (rotated, or the table closed).
pub fn forget_invite(table: &str) {
    if let Some(s) = storage() {
        let _ = s.remove_item(&format!("scoop.invite.{table}"));
    }
}

/// Every invite, at logout: a shared computer keeps no way into someone's private tables.
pub fn forget_invites() {
    let Some(s) = storage() else { return };
    let n = s.length().unwrap_or(0);
    let keys: Vec<String> = (0..n)
        .filter_map(|i| s.key(i).ok().flatten())
        .filter(|k| k.starts_with("scoop.invite."))
        .collect();
    for k in keys {
        let _ = s.remove_item(&k);
    }
}

const MUTED: &str = "scoop.muted";

/// The players whose chat this reader has muted, by name.
pub fn muted() -> Vec<String> {
    load(MUTED)
        .map(|list| list.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

pub fn set_muted(names: &[String]) {
    save(MUTED, &names.join("\n"));
}

const RETURN: &str = "scoop.return";

/// This tab's storage: where it was going dies with the tab, not in a later login.
fn session() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok()?
}

/// Where a visitor was going when the page sent them to log in or register.
pub fn return_after_login(route: &crate::route::Route) {
    if let Some(s) = session() {
        let _ = s.set_item(RETURN, &route.href());
    }
}

/// That place, once (it is forgotten as it is read).
pub fn take_return() -> Option<crate::route::Route> {
    let s = session()?;
    let href = s.get_item(RETURN).ok()??;
    let _ = s.remove_item(RETURN);
    Some(crate::route::Route::parse(&href))
}
