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
use object_store::client::{HttpClient, HttpRequest};
use percent_encoding::utf8_percent_encode;

use crate::problem::Problem;

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
    ) -> Result<S3Direct, String> {
        let http = crate::direct::http_client(&bucket_endpoint)?;
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
            utf8_percent_encode(key, crate::direct::KEY_IN_PATH)
        );
        if let Some(part) = part {
            url.push_str(&format!("?partNumber={part}"));
        }
        let credential = self
            .store
            .credentials()
            .get_credential()
            .await
            .map_err(|e| crate::problem::classify(&e))?;
        let answer = crate::direct::send(&self.http, || {
            let mut request: HttpRequest = http::Request::builder()
                .method(Method::HEAD)
                .uri(&url)
                .header("x-amz-checksum-mode", "ENABLED")
                .body(Vec::new().into())
                .map_err(|e| (Problem::Usage, format!("{url}: {e}")))?;
            AwsAuthorizer::new(&credential, "s3", &self.region)
                .try_authorize(&mut request, None)
                .map_err(|e| crate::problem::classify(&e))?;
            Ok(request)
        })
        .await?;
        if answer.status.is_success() {
            Ok(answer.headers)
        } else {
            Err(refusal(answer.status, &answer.headers))
        }
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
