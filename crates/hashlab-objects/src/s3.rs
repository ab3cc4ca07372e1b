//! The S3 requests object_store does not make. Its `head` returns an
//! object's size, ETag and time only; an upload is checked without reading
//! it from what else S3 keeps: the additional checksums (a HEAD with
//! `x-amz-checksum-mode: ENABLED`) and the sizes of a multipart upload's parts
//! (a HEAD with `partNumber=N` answers with part N's length and the parts
//! count). These are signed with object_store's own SigV4 signer
//! (`AwsAuthorizer`) and sent through its HTTP client, with the credentials,
//! endpoint and region it resolved: the same configuration reads and lists.

use http::{HeaderMap, Method, StatusCode};
use object_store::aws::{AmazonS3, AwsAuthorizer};
use object_store::client::{HttpClient, HttpConnector, HttpRequest, ReqwestConnector};
use object_store::ClientOptions;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use crate::store::Problem;

/// RFC 3986's unreserved characters and `/` stay as they are in a key; every
/// other byte is percent-encoded, as S3's SigV4 canonical URI wants.
const KEY_ENCODING: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// Signed requests to one bucket.
#[derive(Debug, Clone)]
pub(crate) struct S3Direct {
    store: AmazonS3,
    /// `https://s3.REGION.amazonaws.com/BUCKET`, `http://127.0.0.1:9000/BUCKET`,
    /// or the bucket's own host: where object_store sends its requests.
    bucket_endpoint: String,
    region: String,
    http: HttpClient,
}

/// A HEAD's answer: the headers of a 2xx response.
pub(crate) type Head = HeaderMap;

impl S3Direct {
    pub(crate) fn new(
        store: AmazonS3,
        bucket_endpoint: String,
        region: String,
        allow_http: bool,
    ) -> Result<S3Direct, String> {
        let options = ClientOptions::new().with_allow_http(allow_http);
        let http = ReqwestConnector::default()
            .connect(&options)
            .map_err(|e| crate::store::describe(&e))?;
        Ok(S3Direct {
            store,
            bucket_endpoint: bucket_endpoint.trim_end_matches('/').to_string(),
            region,
            http,
        })
    }

    /// HEAD of `key` with the additional checksums asked for, or of one
    /// part (numbered from 1) of a multipart upload.
    pub(crate) async fn head(
        &self,
        key: &str,
        part: Option<u32>,
    ) -> Result<Head, (Problem, String)> {
        let mut url = format!(
            "{}/{}",
            self.bucket_endpoint,
            utf8_percent_encode(key, KEY_ENCODING)
        );
        if let Some(part) = part {
            url.push_str(&format!("?partNumber={part}"));
        }
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
            let mut request: HttpRequest = http::Request::builder()
                .method(Method::HEAD)
                .uri(&url)
                .header("x-amz-checksum-mode", "ENABLED")
                .body(Vec::new().into())
                .map_err(|e| (Problem::Usage, format!("{url}: {e}")))?;
            AwsAuthorizer::new(&credential, "s3", &self.region)
                .try_authorize(&mut request, None)
                .map_err(|e| crate::store::classify(&e))?;
            match self.http.execute(request).await {
                Ok(response) => {
                    let status = response.status();
                    if status.is_success() {
                        return Ok(response.headers().clone());
                    }
                    let failure = refusal(status, response.headers());
                    if !status.is_server_error() {
                        return Err(failure);
                    }
                    last = Some(failure);
                }
                Err(e) => {
                    let text = crate::store::error_chain(&e);
                    last = Some(crate::store::classify_text(&text));
                }
            }
        }
        Err(last.expect("three attempts were made"))
    }
}

/// A HEAD response has no body: the status (and MinIO's error-code header,
/// where it sends one) says what went wrong.
fn refusal(status: StatusCode, headers: &HeaderMap) -> (Problem, String) {
    let code = headers
        .get("x-minio-error-code")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    match (status, code) {
        (_, "NoSuchBucket") => (Problem::NoSuchBucket, "no such bucket".into()),
        (StatusCode::NOT_FOUND, _) => (Problem::NotFound, "no such object".into()),
        (StatusCode::FORBIDDEN, "InvalidAccessKeyId") => (
            Problem::AccessDenied,
            "access denied: the access key id is not known to the server (AWS_ACCESS_KEY_ID)"
                .into(),
        ),
        (StatusCode::FORBIDDEN, "SignatureDoesNotMatch") => (
            Problem::AccessDenied,
            "access denied: the request signature does not match (check AWS_SECRET_ACCESS_KEY)"
                .into(),
        ),
        (StatusCode::FORBIDDEN | StatusCode::UNAUTHORIZED, _) => {
            (Problem::AccessDenied, "access denied".into())
        }
        (status, "") => (Problem::Other, format!("the store answered {status}")),
        (status, code) => (
            Problem::Other,
            format!("the store answered {status} ({code})"),
        ),
    }
}
