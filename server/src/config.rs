//! Server configuration: command-line flags, each also readable from the environment.

use std::net::SocketAddr;

use clap::Args;

/// The database to work on. Read from DATABASE_URL, whose value `--help` never prints (it
/// holds the password).
#[derive(Args, Clone, Debug)]
pub struct DbArgs {
    /// Postgres connection string.
    #[arg(
        long,
        env = "DATABASE_URL",
        hide_env_values = true,
        default_value = "postgres://postgres@127.0.0.1:5432/scoop"
    )]
    pub database_url: String,
}

#[derive(Args, Clone, Debug)]
pub struct Config {
    #[command(flatten)]
    pub db: DbArgs,

    /// Address to listen on.
    #[arg(long, env = "SCOOP_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,

    /// Reverse proxies whose `X-Forwarded-For`/`Forwarded` is believed (comma-separated
    /// CIDRs, e.g. `127.0.0.1/32,172.16.0.0/12`). Empty: the connection's address is the
    /// client's.
    #[arg(long, env = "SCOOP_TRUSTED_PROXIES", value_delimiter = ',')]
    pub trusted_proxies: Vec<ipnet::IpNet>,

    /// Address of `/metrics` (Prometheus). Loopback by default: the figures are for the
    /// operator, not the public.
    #[arg(long, env = "SCOOP_METRICS_BIND", default_value = "127.0.0.1:9464")]
    pub metrics_bind: SocketAddr,

    /// Origins allowed to open the WebSocket and to send state-changing requests
    /// (comma-separated).
    #[arg(
        long,
        env = "SCOOP_ALLOWED_ORIGINS",
        value_delimiter = ',',
        default_value = "http://localhost:8080,http://127.0.0.1:8080"
    )]
    pub allowed_origins: Vec<String>,

    /// Mark the session cookie `Secure` (set this when the site is served over HTTPS).
    #[arg(long, env = "SCOOP_SECURE_COOKIES", default_value_t = false)]
    pub secure_cookies: bool,

    /// Play chips granted to every new account.
    #[arg(long, env = "SCOOP_GRANT", default_value_t = 10_000)]
    pub grant: u64,

    /// Chips of a free refill.
    #[arg(long, env = "SCOOP_REFILL_AMOUNT", default_value_t = 10_000)]
    pub refill_amount: u64,

    /// A refill may be claimed when balance plus chips on tables is below this.
    #[arg(long, env = "SCOOP_REFILL_BELOW", default_value_t = 200)]
    pub refill_below: u64,

    /// Hours between two refills of one account.
    #[arg(long, env = "SCOOP_REFILL_HOURS", default_value_t = 24)]
    pub refill_hours: u32,

    /// A session unused for this many minutes expires.
    #[arg(long, env = "SCOOP_SESSION_IDLE_MINUTES", default_value_t = 7 * 24 * 60)]
    pub session_idle_minutes: u32,

    /// A session ends this many days after its login, used or not.
    #[arg(long, env = "SCOOP_SESSION_MAX_DAYS", default_value_t = 30)]
    pub session_max_days: u32,

    /// Registrations and logins allowed per client IP per minute.
    #[arg(long, env = "SCOOP_AUTH_PER_MINUTE", default_value_t = 20)]
    pub auth_per_minute: u32,

    /// Password hashes computed at once (each takes 19 MiB and one core for ~tens of ms).
    #[arg(long, env = "SCOOP_HASH_CONCURRENCY", default_value_t = 2)]
    pub hash_concurrency: usize,

    /// Tables file (`[[table]]` entries) opened at start-up, in addition to tables already
    /// open in the database.
    #[arg(long, env = "SCOOP_TABLES")]
    pub tables: Option<String>,

    /// Cluster mode: the NATS server through which this process and the others of the room
    /// talk (e.g. `nats://127.0.0.1:4222`). Without it the process is the whole room.
    #[arg(long, env = "SCOOP_NATS_URL")]
    pub nats: Option<String>,

    /// Seconds to let running hands finish after SIGTERM before exiting.
    #[arg(long, env = "SCOOP_SHUTDOWN_GRACE_SECS", default_value_t = 30)]
    pub shutdown_grace_secs: u64,

    /// Connections held at once (default: as many as the open files limit allows, less room
    /// for the database and logs; the server raises its soft limit to the hard one first).
    #[arg(long, env = "SCOOP_MAX_CONNECTIONS")]
    pub max_connections: Option<usize>,

    /// Connections one client address may hold at once.
    #[arg(long, env = "SCOOP_MAX_CONNECTIONS_PER_IP", default_value_t = 64)]
    pub max_connections_per_ip: usize,

    /// WebSockets one client address may hold at once.
    #[arg(long, env = "SCOOP_MAX_WEBSOCKETS_PER_IP", default_value_t = 20)]
    pub max_websockets_per_ip: usize,

    /// Seconds a client has to send a request's headers; also how long an idle keep-alive
    /// connection is kept.
    #[arg(long, env = "SCOOP_HEADER_TIMEOUT_SECS", default_value_t = 10)]
    pub header_timeout_secs: u64,

    /// Messages one WebSocket may send per second (bursts of twice that).
    #[arg(long, env = "SCOOP_WS_MESSAGES_PER_SECOND", default_value_t = 20)]
    pub ws_messages_per_second: u32,

    /// Directory of the web client to serve at `/` (the built `web/dist`).
    #[arg(long, env = "SCOOP_WEB_DIR", default_value = "web/dist")]
    pub web_dir: String,

    /// Open tables one player may host (home games).
    #[arg(long, env = "SCOOP_PLAYER_TABLES_PER_HOST", default_value_t = 2)]
    pub player_tables_per_host: u32,

    /// Open player tables in the whole room.
    #[arg(long, env = "SCOOP_PLAYER_TABLES_MAX", default_value_t = 500)]
    pub player_tables_max: u32,

    /// The largest big blind a player's table may have.
    #[arg(long, env = "SCOOP_PLAYER_MAX_BIG_BLIND", default_value_t = 1_000)]
    pub player_max_big_blind: u64,

    /// A player's table nobody sits at for this many seconds closes itself.
    #[arg(long, env = "SCOOP_PLAYER_TABLE_IDLE_SECS", default_value_t = 30 * 60)]
    pub player_table_idle_secs: u64,

    /// The pause between hands at players' tables, in milliseconds.
    #[arg(long, env = "SCOOP_PLAYER_TABLE_PAUSE_MS", default_value_t = 2_000)]
    pub player_table_pause_ms: u64,

    /// Log as JSON lines instead of text.
    #[arg(long, env = "SCOOP_LOG_JSON", default_value_t = false)]
    pub log_json: bool,
}

impl Config {
    pub fn home_options(&self) -> crate::tables::HomeOptions {
        crate::tables::HomeOptions {
            limits: crate::tables::home::Limits {
                per_host: self.player_tables_per_host,
                total: self.player_tables_max,
                max_big_blind: self.player_max_big_blind,
            },
            idle_close: std::time::Duration::from_secs(self.player_table_idle_secs),
            between_hands_ms: self.player_table_pause_ms,
        }
    }

    pub fn session_lifetime(&self) -> crate::session::Lifetime {
        crate::session::Lifetime {
            idle_minutes: self.session_idle_minutes,
            max_days: self.session_max_days,
        }
    }
}
