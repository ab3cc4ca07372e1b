//! What the requests object_store does not make (s3.rs, gcs.rs, azure.rs)
//! share: an HTTP client from object_store's connector, and a request sent
//! again after a dropped connection or a 5xx, as object_store retries.

use bytes::Bytes;
use http::{HeaderMap, StatusCode};
use object_store::client::{HttpClient, HttpConnector, HttpRequest, ReqwestConnector};
use object_store::ClientOptions;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC};

use crate::problem::Problem;

/// A key in a URL's path, as S3's SigV4 canonical URI and Azure want it:
/// RFC 3986's unreserved characters and `/` as they are, every other byte
/// percent-encoded.
pub(crate) const KEY_IN_PATH: &AsciiSet = &KEY_AS_SEGMENT.remove(b'/');

/// A key as one segment of a URL's path (GCS's JSON API): `/` encoded too.
pub(crate) const KEY_AS_SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// An answer: its status, headers and body.
pub(crate) struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

/// A client for `base` (plain http allowed only where `base` is http).
pub(crate) fn http_client(base: &str) -> Result<HttpClient, String> {
    let options = ClientOptions::new().with_allow_http(base.starts_with("http://"));
    ReqwestConnector::default()
        .connect(&options)
        .map_err(|e| crate::problem::describe(&e))
}

/// Sends the request `make` builds (anew each time: a signature carries the
/// time), up to three times while the connection drops or the store answers
/// 5xx; the first other answer, else the last failure.
pub(crate) async fn send(
    http: &HttpClient,
    make: impl Fn() -> Result<HttpRequest, (Problem, String)>,
) -> Result<Answer, (Problem, String)> {
    let mut last = None;
    for attempt in 0..3 {
        if attempt > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(100 << attempt)).await;
        }
        let failure = match http.execute(make()?).await {
            Ok(response) => {
                let status = response.status();
                let headers = response.headers().clone();
                match response.into_body().bytes().await {
                    Ok(body) if !status.is_server_error() || attempt == 2 => {
                        return Ok(Answer {
                            status,
                            headers,
                            body,
                        })
                    }
                    Ok(_) => (Problem::Other, format!("the store answered {status}")),
                    Err(e) => crate::problem::classify_text(&crate::problem::error_chain(&e)),
                }
            }
            Err(e) => crate::problem::classify_text(&crate::problem::error_chain(&e)),
        };
        last = Some(failure);
    }
    Err(last.expect("three attempts were made"))
}
