//! What Azure Blob Storage keeps of a blob, which object_store does not read:
//! its `Content-MD5` property (set by the service on a single Put Blob, or
//! by the client that uploaded it), in the answer to a HEAD (Get Blob
//! Properties), signed by object_store's own authorizer with the
//! credentials, account and endpoint it resolved.

use http::{HeaderMap, Method, StatusCode};
use object_store::azure::{AzureAuthorizer, MicrosoftAzure};
use object_store::client::{HttpClient, HttpRequest};
use percent_encoding::utf8_percent_encode;

use crate::problem::Problem;
use crate::stored::{StoreRecord, AZURE_CHECKSUMS};

/// Requests to one container.
#[derive(Debug, Clone)]
pub(crate) struct AzureDirect {
    store: MicrosoftAzure,
    /// `https://ACCOUNT.blob.core.windows.net/CONTAINER`, or an emulator's.
    container_url: String,
    account: String,
    http: HttpClient,
}

impl AzureDirect {
    pub(crate) fn new(
        store: MicrosoftAzure,
        container_url: String,
        account: String,
    ) -> Result<AzureDirect, String> {
        let http = crate::direct::http_client(&container_url)?;
        Ok(AzureDirect {
            store,
            container_url: container_url.trim_end_matches('/').to_string(),
            account,
            http,
        })
    }

    /// The blob's size and `Content-MD5`, as a record (`e_tag` is left to the
    /// caller: Azure's is a version, not a digest).
    pub(crate) async fn record(&self, key: &str) -> Result<StoreRecord, (Problem, String)> {
        let url = format!(
            "{}/{}",
            self.container_url,
            utf8_percent_encode(key, crate::direct::KEY_IN_PATH)
        );
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
                .body(Vec::new().into())
                .map_err(|e| (Problem::Usage, format!("{url}: {e}")))?;
            AzureAuthorizer::new(&credential, &self.account)
                .try_authorize(&mut request)
                .map_err(|e| crate::problem::classify(&e))?;
            Ok(request)
        })
        .await?;
        if answer.status.is_success() {
            record_of(&answer.headers)
        } else {
            Err(refusal(answer.status, &answer.headers))
        }
    }
}

fn record_of(headers: &HeaderMap) -> Result<StoreRecord, (Problem, String)> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let size = header("content-length")
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| {
            (
                Problem::Other,
                "the store's answer has no length".to_string(),
            )
        })?;
    let checksums = AZURE_CHECKSUMS
        .iter()
        .filter_map(|(name, algorithm)| {
            let value = header(name)?;
            Some((
                "Content-MD5".to_string(),
                algorithm.to_string(),
                value.to_string(),
            ))
        })
        .collect();
    Ok(StoreRecord {
        size,
        checksums,
        ..StoreRecord::default()
    })
}

/// A HEAD has no body: Azure says what went wrong in `x-ms-error-code`.
fn refusal(status: StatusCode, headers: &HeaderMap) -> (Problem, String) {
    let code = headers
        .get("x-ms-error-code")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    match (status, code) {
        (_, "ContainerNotFound") => (Problem::NoSuchBucket, "no such bucket".into()),
        (StatusCode::NOT_FOUND, _) => (Problem::NotFound, "no such object".into()),
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
