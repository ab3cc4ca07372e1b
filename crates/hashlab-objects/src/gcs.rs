//! What Google Cloud Storage keeps of an object, which object_store does not
//! read: it speaks GCS's XML API, whose answers carry no checksum hashlab can
//! use, while the JSON API's object resource has `crc32c` (of every object)
//! and `md5Hash` (of every object but composed ones). One GET of that
//! resource per object, with the bearer token of object_store's own
//! credential provider, against the base URL object_store uses.

use http::{Method, StatusCode};
use object_store::client::{HttpClient, HttpConnector, HttpRequest, ReqwestConnector};
use object_store::gcp::GoogleCloudStorage;
use object_store::ClientOptions;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use crate::store::Problem;
use crate::stored::StoreRecord;

/// An object name in a JSON API path: one segment, `/` encoded too.
const NAME_ENCODING: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// GCS's checksums in the object resource, and the algorithms of hashlab's
/// catalog they are (what GCS calls them): the faster first.
pub const GCS_CHECKSUMS: [(&str, &str); 2] = [("crc32c", "crc32c"), ("md5Hash", "md5")];

/// Requests to one bucket's JSON API.
#[derive(Debug, Clone)]
pub(crate) struct GcsDirect {
    store: GoogleCloudStorage,
    /// `https://storage.googleapis.com`, or an emulator's.
    base_url: String,
    bucket: String,
    http: HttpClient,
}

impl GcsDirect {
    pub(crate) fn new(
        store: GoogleCloudStorage,
        base_url: String,
        bucket: String,
    ) -> Result<GcsDirect, String> {
        let options = ClientOptions::new().with_allow_http(base_url.starts_with("http://"));
        let http = ReqwestConnector::default()
            .connect(&options)
            .map_err(|e| crate::store::describe(&e))?;
        Ok(GcsDirect {
            store,
            base_url: base_url.trim_end_matches('/').to_string(),
            bucket,
            http,
        })
    }

    /// The object's size and checksums, as a record (`e_tag` is left to
    /// the caller: GCS's is a version, not a digest).
    pub(crate) async fn record(&self, key: &str) -> Result<StoreRecord, (Problem, String)> {
        let url = format!(
            "{}/storage/v1/b/{}/o/{}",
            self.base_url,
            utf8_percent_encode(&self.bucket, NAME_ENCODING),
            utf8_percent_encode(key, NAME_ENCODING)
        );
        let credential = self
            .store
            .credentials()
            .get_credential()
            .await
            .map_err(|e| crate::store::classify(&e))?;
        let mut last = None;
        // As object_store retries: a dropped connection or a 5xx is tried
        // again, a few times, before it is reported.
        for attempt in 0..3 {
            if attempt > 0 {
                tokio::time::sleep(std::time::Duration::from_millis(100 << attempt)).await;
            }
            let mut request = http::Request::builder().method(Method::GET).uri(&url);
            if !credential.bearer.is_empty() {
                request = request.header("authorization", format!("Bearer {}", credential.bearer));
            }
            let request: HttpRequest = request
                .body(Vec::new().into())
                .map_err(|e| (Problem::Usage, format!("{url}: {e}")))?;
            match self.http.execute(request).await {
                Ok(response) => {
                    let status = response.status();
                    let body = response.into_body().bytes().await;
                    let body = match body {
                        Ok(body) => body,
                        Err(e) => {
                            last =
                                Some(crate::store::classify_text(&crate::store::error_chain(&e)));
                            continue;
                        }
                    };
                    if status.is_success() {
                        return parse(&body);
                    }
                    let failure = refusal(status, &body);
                    if !status.is_server_error() {
                        return Err(failure);
                    }
                    last = Some(failure);
                }
                Err(e) => {
                    last = Some(crate::store::classify_text(&crate::store::error_chain(&e)));
                }
            }
        }
        Err(last.expect("three attempts were made"))
    }
}

fn parse(body: &[u8]) -> Result<StoreRecord, (Problem, String)> {
    let bad = || {
        (
            Problem::Other,
            "the store's object resource is not JSON with a size".to_string(),
        )
    };
    let resource: serde_json::Value = serde_json::from_slice(body).map_err(|_| bad())?;
    let size = resource
        .get("size")
        .and_then(|s| s.as_str())
        .and_then(|s| s.parse().ok())
        .ok_or_else(bad)?;
    let checksums = GCS_CHECKSUMS
        .iter()
        .filter_map(|(field, algorithm)| {
            let value = resource.get(*field)?.as_str()?;
            Some((field.to_string(), algorithm.to_string(), value.to_string()))
        })
        .collect();
    Ok(StoreRecord {
        size,
        checksums,
        ..StoreRecord::default()
    })
}

/// GCS answers an error with JSON: `{"error": {"code": 404, "message": ...}}`.
fn refusal(status: StatusCode, body: &[u8]) -> (Problem, String) {
    let message = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.pointer("/error/message")?.as_str().map(str::to_string));
    match status {
        StatusCode::NOT_FOUND
            if message
                .as_deref()
                .is_some_and(|m| m.to_ascii_lowercase().contains("bucket")) =>
        {
            (Problem::NoSuchBucket, "no such bucket".into())
        }
        StatusCode::NOT_FOUND => (Problem::NotFound, "no such object".into()),
        StatusCode::FORBIDDEN | StatusCode::UNAUTHORIZED => {
            (Problem::AccessDenied, "access denied".into())
        }
        status => (
            Problem::Other,
            match message {
                Some(m) => format!("the store answered {status}: {m}"),
                None => format!("the store answered {status}"),
            },
        ),
    }
}
