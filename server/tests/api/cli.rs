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

fn scoop(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_scoop"))
        .args(args)
        .output()
        .expect("run scoop")
}

#[test]
fn equity_prints_the_exact_heads_up_preflop_value() {
    let out = scoop(&["equity", "Ac2c3c4d", "KsKhQsJs", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["computed"]["kind"], "exact");
    assert_eq!(report["computed"]["boards"], 1_086_008);
    let pot = report["players"][0]["pot"].as_f64().expect("pot");
    assert_eq!(format!("{pot:.6}"), "0.556850");

    let out = scoop(&[
        "equity", "Ac2c3c4d", "KsKhQsJs", "--board", "2h7dTs", "--dead", "9c",
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("Exact, 780 boards"), "{text}");
    assert!(text.contains("Ac2c3c4d"), "{text}");
}

#[test]
fn equity_samples_random_hands_with_a_seed() {
    let args = [
        "equity", "AsAd2s3d", "random", "--trials", "2000", "--seed", "5", "--json",
    ];
    let first = scoop(&args);
    assert!(first.status.success(), "{first:?}");
    let report: serde_json::Value = serde_json::from_slice(&first.stdout).expect("json");
    assert_eq!(report["computed"]["kind"], "monte_carlo");
    assert!(report["players"][0]["pot_error"].as_f64().expect("error") > 0.0);
    let again: serde_json::Value = serde_json::from_slice(&scoop(&args).stdout).expect("json");
    assert_eq!(
        report["players"], again["players"],
        "same seed, same answer"
    );
}

#[test]
fn equity_refuses_bad_cards_with_exit_2() {
    for args in [
        vec!["equity", "AcKd2c3s", "AcKhQsJs"],
        vec!["equity", "AcKd2c3x", "KsKhQsJs"],
        vec!["equity", "AcKd2c", "KsKhQsJs"],
        vec!["equity", "AcKd2c3s", "KsKhQsJs", "--board", "2h7d"],
        vec![
            "equity", "AcKd2c3s", "KsKhQsJs", "--board", "2h7dTs", "--dead", "Ts",
        ],
        vec!["equity", "AcKd2c3s"],
        vec!["equity", "AcKd2c3s", "KsKhQsJs", "--trials", "0"],
    ] {
        let out = scoop(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(!out.stderr.is_empty(), "{args:?} says why");
        assert!(out.stdout.is_empty(), "{args:?} prints no result");
    }
}
