//! The HTTP API, one router per feature.

pub mod accounts;
pub mod chips;
pub mod csrf;
pub mod hands;
pub mod headers;
pub mod health;
pub mod tables;

use crate::error::ApiError;

/// The page size of a list endpoint: `?limit=` from 1 to 200, 50 when absent.
pub fn page_limit(limit: Option<i64>) -> Result<i64, ApiError> {
    let limit = limit.unwrap_or(50);
    if (1..=200).contains(&limit) {
        Ok(limit)
    } else {
        Err(ApiError::BadRequest("limit is 1 to 200".into()))
    }
}
