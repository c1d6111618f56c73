//! Errors of the HTTP API: each becomes a status code and a JSON body
//! `{"error": "<code>", "message": "<text for people>"}`.

use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use thiserror::Error;

use crate::chips::ChipsError;
use crate::password::HashError;

#[derive(Debug, Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("invalid username or password")]
    InvalidCredentials,
    #[error("not logged in")]
    Unauthorized,
    #[error("{0}")]
    Forbidden(String),
    #[error("too many failed logins from here: try again in {0} s")]
    SlowDown(u64),
    #[error("too many requests: slow down and try again in a minute")]
    RateLimited,
    #[error("the request body is too large")]
    TooLarge,
    #[error("that username is taken")]
    UsernameTaken,
    #[error("{0}")]
    NotFound(String),
    /// An operator's limit reached (nothing was done).
    #[error("{0}")]
    Limit(String),
    #[error(transparent)]
    Chips(#[from] ChipsError),
    #[error("internal error")]
    Hash(#[from] HashError),
    #[error("internal error")]
    Database(#[from] sqlx::Error),
}

impl ApiError {
    fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            ApiError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            ApiError::InvalidCredentials => (StatusCode::UNAUTHORIZED, "invalid_credentials"),
            ApiError::Unauthorized => (StatusCode::UNAUTHORIZED, "not_logged_in"),
            ApiError::Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden"),
            ApiError::SlowDown(_) => (StatusCode::TOO_MANY_REQUESTS, "login_throttled"),
            ApiError::RateLimited => (StatusCode::TOO_MANY_REQUESTS, "rate_limited"),
            ApiError::TooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "too_large"),
            ApiError::UsernameTaken => (StatusCode::CONFLICT, "username_taken"),
            ApiError::NotFound(_) => (StatusCode::NOT_FOUND, "not_found"),
            ApiError::Limit(_) => (StatusCode::CONFLICT, "limit_reached"),
            ApiError::Chips(e) => match e {
                ChipsError::InvalidAmount => (StatusCode::BAD_REQUEST, "invalid_amount"),
                ChipsError::InsufficientBalance { .. } => {
                    (StatusCode::CONFLICT, "insufficient_balance")
                }
                ChipsError::SeatTaken => (StatusCode::CONFLICT, "seat_taken"),
                ChipsError::AlreadySeated => (StatusCode::CONFLICT, "already_seated"),
                ChipsError::NotSeated => (StatusCode::CONFLICT, "not_seated"),
                ChipsError::NoAccount => (StatusCode::NOT_FOUND, "no_account"),
                ChipsError::RefillNotEligible { .. } => {
                    (StatusCode::CONFLICT, "refill_not_eligible")
                }
                // No HTTP route writes for a table; a refusal by the fence is a bug here.
                ChipsError::Unbalanced(_) | ChipsError::Fenced { .. } | ChipsError::Database(_) => {
                    (StatusCode::INTERNAL_SERVER_ERROR, "internal")
                }
            },
            ApiError::Hash(_) | ApiError::Database(_) => {
                (StatusCode::INTERNAL_SERVER_ERROR, "internal")
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        if status.is_server_error() {
            tracing::error!(error = ?self, "request failed");
        }
        let message = match &self {
            ApiError::Chips(ChipsError::Unbalanced(_) | ChipsError::Database(_)) => {
                "internal error".to_string()
            }
            other => other.to_string(),
        };
        (status, Json(json!({"error": code, "message": message}))).into_response()
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            return ApiError::TooLarge;
        }
        ApiError::BadRequest(format!("invalid request body: {}", r.body_text()))
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> Self {
        ApiError::BadRequest(format!("invalid query: {}", r.body_text()))
    }
}

/// `axum::Json` whose rejections are [`ApiError`]s (JSON bodies, not plain text).
#[derive(axum::extract::FromRequest)]
#[from_request(via(axum::Json), rejection(ApiError))]
pub struct ApiJson<T>(pub T);

/// `axum::extract::Query` whose rejections are [`ApiError`]s.
#[derive(axum::extract::FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
pub struct ApiQuery<T>(pub T);
