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
