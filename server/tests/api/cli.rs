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

#[tokio::test]
async fn tables_add_takes_every_field_or_a_tables_file() {
    let (pool, url) = crate::helpers::fresh_database().await;
    let scoop = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_scoop"))
            .args(args)
            .env("DATABASE_URL", &url)
            .output()
            .expect("run scoop")
    };
    let out = scoop(&[
        "tables",
        "add",
        "--id",
        "flags",
        "--name",
        "From flags",
        "--structure",
        "pl",
        "--big-blind",
        "20",
        "--rake-basis-points",
        "500",
        "--rake-cap",
        "40",
        "--sit-out-hands",
        "5",
        "--time-bank-secs",
        "90",
        "--max-buy-in",
        "3000",
    ]);
    assert!(out.status.success(), "{out:?}");
    let dir = std::env::temp_dir().join(format!("scoop-cli-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("tables.toml");
    std::fs::write(
        &file,
        "[[table]]\nid = \"from-file\"\nname = \"From a file\"\nstructure = \"fixed_limit\"\n\
         small_bet = 10\nuncapped_heads_up = true\n",
    )
    .unwrap();
    let out = scoop(&["tables", "add", "--file", file.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let configs: Vec<serde_json::Value> =
        sqlx::query_scalar("SELECT config FROM poker_tables ORDER BY id")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(configs[0]["id"], "flags");
    assert_eq!(configs[0]["rake_basis_points"], 500);
    assert_eq!(configs[0]["rake_cap"], 40);
    assert_eq!(configs[0]["sit_out_hands"], 5);
    assert_eq!(configs[0]["time_bank_secs"], 90);
    assert_eq!(configs[0]["max_buy_in"], 3000);
    assert_eq!(configs[1]["id"], "from-file");
    assert_eq!(configs[1]["uncapped_heads_up"], true);
    // Neither flags nor a file: a usage error.
    let out = scoop(&["tables", "add", "--name", "x"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn usage_errors_exit_2_and_runtime_errors_exit_1() {
    let scoop = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_scoop"))
            .args(args)
            .env("DATABASE_URL", "postgres://nobody@127.0.0.1:1/none")
            .output()
            .expect("run scoop")
    };
    // Bad input: a card twice, a malformed card, an unknown flag.
    for args in [
        vec!["eval", "AhKd2c3s", "Ah3h4h5h6h"],
        vec!["eval", "AhKd2c3x", "2h3h4h5h6h"],
        vec!["serve", "--no-such-flag"],
    ] {
        let out = scoop(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(!out.stderr.is_empty(), "{args:?} says why");
    }
    // Good input, but the database cannot be reached.
    let out = scoop(&["migrate"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let out = scoop(&["eval", "AhKd2c3s", "2h3h4h5h6h"]);
    assert!(out.status.success(), "{out:?}");
}
