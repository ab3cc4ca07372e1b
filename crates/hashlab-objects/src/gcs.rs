//! What Google Cloud Storage keeps of an object, which object_store does not
//! read: it speaks GCS's XML API, whose answers carry no checksum hashlab can
//! use, while the JSON API's object resource has `crc32c` (of every object)
//! and `md5Hash` (of every object but composed ones, which instead show
//! `componentCount`). One GET of that
//! resource per object, with the bearer token of object_store's own
//! credential provider, against the base URL object_store uses.

use http::{Method, StatusCode};
use object_store::client::HttpClient;
use object_store::gcp::GoogleCloudStorage;
use percent_encoding::utf8_percent_encode;

use crate::problem::Problem;
use crate::stored::{StoreRecord, GCS_CHECKSUMS};

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
        let http = crate::direct::http_client(&base_url)?;
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
            utf8_percent_encode(&self.bucket, crate::direct::KEY_AS_SEGMENT),
            utf8_percent_encode(key, crate::direct::KEY_AS_SEGMENT)
        );
        let credential = self
            .store
            .credentials()
            .get_credential()
            .await
            .map_err(|e| crate::problem::classify(&e))?;
        let answer = crate::direct::send(&self.http, || {
            let mut request = http::Request::builder().method(Method::GET).uri(&url);
            if !credential.bearer.is_empty() {
                request = request.header("authorization", format!("Bearer {}", credential.bearer));
            }
            request
                .body(Vec::new().into())
                .map_err(|e| (Problem::Usage, format!("{url}: {e}")))
        })
        .await?;
        if answer.status.is_success() {
            parse(&answer.body)
        } else {
            Err(refusal(answer.status, &answer.body))
        }
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
    // A composed object (`componentCount`) has a crc32c of its whole
    // content, which GCS computes from its components' as it composes, and
    // no md5Hash: the comparison says which kind of value it used.
    let components = resource.get("componentCount").and_then(|c| c.as_u64());
    let checksums = GCS_CHECKSUMS
        .iter()
        .filter_map(|(field, algorithm)| {
            let value = resource.get(*field)?.as_str()?;
            let label = match components {
                Some(count) => format!("{field} of a composite object ({count} components)"),
                None => field.to_string(),
            };
            Some((label, algorithm.to_string(), value.to_string()))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An object resource as GCS's JSON API documents it: a composed object
    /// has `componentCount` and no `md5Hash`.
    #[test]
    fn a_composed_objects_crc32c_is_read_and_named_as_such() {
        let composed = br#"{"kind": "storage#object", "name": "joined", "bucket": "lake",
            "size": "11", "crc32c": "yZRlqg==", "componentCount": 3, "etag": "CAE="}"#;
        let record = parse(composed).unwrap();
        assert_eq!(record.size, 11);
        assert_eq!(
            record.checksums,
            vec![(
                "crc32c of a composite object (3 components)".to_string(),
                "crc32c".to_string(),
                "yZRlqg==".to_string()
            )]
        );
        let (usable, _) = record.expectations();
        assert_eq!(usable[0].algorithm, "crc32c");
        assert_eq!(usable[0].layout, crate::stored::Layout::Whole);
        let no_md5 = record.whole_digest("md5").unwrap_err();
        assert!(
            no_md5.contains("(it has crc32c of a composite object (3 components))"),
            "{no_md5}"
        );

        let plain =
            br#"{"size": "11", "crc32c": "yZRlqg==", "md5Hash": "XrY7u+Ae7tCTyyK7j1rNww=="}"#;
        let record = parse(plain).unwrap();
        let labels: Vec<&str> = record.checksums.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(labels, ["crc32c", "md5Hash"]);
    }
}
