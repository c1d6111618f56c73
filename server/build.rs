// `sqlx::migrate!` embeds migrations/ at compile time, and cargo does not know that: without
// this, adding a migration file leaves a binary that never applies it.
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
