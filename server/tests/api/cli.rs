//! The `scoop` binary's command line.

use std::process::Command;

#[test]
fn help_never_prints_the_database_password_from_the_environment() {
    for args in [
        vec!["serve", "--help"],
        vec!["migrate", "--help"],
        vec!["audit", "--help"],
        vec!["tables", "--help"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_scoop"))
            .args(&args)
            .env(
                "DATABASE_URL",
                "postgres://scoop:hunter2-secret@db.internal/scoop",
            )
            .output()
            .expect("run scoop");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{args:?}: {text}");
        assert!(text.contains("DATABASE_URL"), "{args:?}: {text}");
        assert!(
            !text.contains("hunter2"),
            "{args:?} printed the password: {text}"
        );
    }
}
