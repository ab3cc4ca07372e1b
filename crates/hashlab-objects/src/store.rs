//! From a URL to an `object_store` client, and from a failed request to one
//! line a person can act on.

use std::sync::Arc;
use std::time::Duration;

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};
use object_store::local::LocalFileSystem;
use object_store::{BackoffConfig, ObjectStore, RetryConfig};

use crate::azure::AzureDirect;
use crate::gcs::GcsDirect;
use crate::problem::describe;
use crate::s3::S3Direct;

/// URL schemes read through an object store (object_store's names for S3,
/// Google Cloud Storage, Azure Blob Storage and the local file system).
const SCHEMES: &[&str] = &[
    "s3", "s3a", "gs", "az", "azure", "abfs", "abfss", "adl", "file",
];

/// Whether `name` is a URL of an object store hashlab reads (`s3://`, `gs://`,
/// `az://`, `file://`...), as opposed to a local path.
pub fn is_object_url(name: &str) -> bool {
    name.split_once("://")
        .is_some_and(|(scheme, _)| SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()))
}

/// A URL taken apart: which store (`scheme://bucket`), and the key or
/// prefix inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Split<'a> {
    pub scheme: String,
    /// `scheme://authority`: one client per store.
    pub store_id: String,
    /// The key or prefix, without a leading `/`.
    pub key: &'a str,
}

/// Splits by hand rather than through `url::Url`: keys are free text, and a
/// URL parser would read `#` as a fragment, `?` as a query and `..` as a step up.
pub(crate) fn split(text: &str) -> Result<Split<'_>, String> {
    let (scheme, rest) = text
        .split_once("://")
        .ok_or_else(|| "not a URL (scheme://bucket/key)".to_string())?;
    let scheme = scheme.to_ascii_lowercase();
    if !SCHEMES.contains(&scheme.as_str()) {
        return Err(format!(
            "{scheme}:// is not an object store hashlab reads ({})",
            SCHEMES.join(", ")
        ));
    }
    let (authority, key) = rest.split_once('/').unwrap_or((rest, ""));
    if scheme == "file" {
        if !authority.is_empty() && authority != "localhost" {
            return Err(format!(
                "a file:// URL of another host ({authority}) is not a local path"
            ));
        }
    } else if authority.is_empty() {
        return Err("the URL names no bucket".into());
    }
    Ok(Split {
        store_id: format!("{scheme}://{authority}"),
        scheme,
        key: key.trim_start_matches('/'),
    })
}

/// Retries for transient failures (5xx, dropped connections), kept short so
/// that a server that is down is reported within seconds, not minutes.
fn retry() -> RetryConfig {
    RetryConfig {
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(2),
            base: 2.0,
        },
        max_retries: 3,
        retry_timeout: Duration::from_secs(30),
    }
}

/// A client for the store `split` names. Configuration comes from the
/// standard environment variables (`AWS_*`, `GOOGLE_*`, `AZURE_*`) when
/// `from_env`, then `options` (object_store's configuration keys, such as
/// `aws_endpoint` or `aws_access_key_id`) over them.
pub(crate) fn build(
    split: &Split<'_>,
    from_env: bool,
    options: &[(String, String)],
) -> Result<Client, String> {
    let bad_key = |key: &str| format!("{key}: not a configuration key of this store");
    // The three builders share no trait, only the same methods: made,
    // configured and built the same way, written once.
    macro_rules! configured_builder {
        ($builder:ident) => {{
            let mut builder = if from_env {
                $builder::from_env()
            } else {
                $builder::new()
            };
            for (key, value) in options {
                let key = key.to_ascii_lowercase().parse().map_err(|_| bad_key(key))?;
                builder = builder.with_config(key, value);
            }
            builder
        }};
    }
    macro_rules! built {
        ($builder:expr) => {
            $builder
                .with_url(&split.store_id)
                .with_retry(retry())
                .build()
                .map_err(|e| describe(&e))?
        };
    }
    // The bucket (container) the URL names: a builder parses its URL only in build().
    let bucket = split
        .store_id
        .split_once("://")
        .map_or("", |(_, bucket)| bucket)
        .to_string();
    let mut direct = None;
    let store: Arc<dyn ObjectStore> = match split.scheme.as_str() {
        "file" => Arc::new(LocalFileSystem::new()),
        "s3" | "s3a" => {
            let mut builder = configured_builder!(AmazonS3Builder);
            if from_env
                && builder
                    .get_config_value(&AmazonS3ConfigKey::AccessKeyId)
                    .is_none()
            {
                let region_set = builder
                    .get_config_value(&AmazonS3ConfigKey::Region)
                    .is_some();
                for (key, value) in aws_profile(&|name| std::env::var(name).ok())? {
                    if key != AmazonS3ConfigKey::Region || !region_set {
                        builder = builder.with_config(key, value);
                    }
                }
            }
            builder = builder.with_url(&split.store_id);
            // A local or private server (MinIO on 127.0.0.1) speaks plain
            // http; object_store refuses http unless told. Requests stay
            // path-style (`endpoint/bucket/key`, object_store's default),
            // which a server on an IP address needs.
            let endpoint = builder
                .get_config_value(&AmazonS3ConfigKey::Endpoint)
                .unwrap_or_default();
            let allow_http = endpoint.starts_with("http://");
            if allow_http {
                builder = builder.with_allow_http(true);
            }
            let value = |key| builder.get_config_value(&key);
            let region = value(AmazonS3ConfigKey::Region).unwrap_or_else(|| "us-east-1".into());
            let virtual_hosted = value(AmazonS3ConfigKey::VirtualHostedStyleRequest)
                .is_some_and(|v| v.eq_ignore_ascii_case("true"));
            // Where object_store sends a bucket's requests (its builder
            // computes this privately; S3 Express zonal endpoints aside).
            let bucket_endpoint = match (endpoint.is_empty(), virtual_hosted) {
                (false, true) => endpoint.clone(),
                (false, false) => format!("{}/{bucket}", endpoint.trim_end_matches('/')),
                (true, true) => format!("https://{bucket}.s3.{region}.amazonaws.com"),
                (true, false) => format!("https://s3.{region}.amazonaws.com/{bucket}"),
            };
            let s3 = built!(builder);
            direct = Some(Direct::S3(Arc::new(S3Direct::new(
                s3.clone(),
                bucket_endpoint,
                region,
            )?)));
            Arc::new(s3)
        }
        "gs" => {
            let builder = configured_builder!(GoogleCloudStorageBuilder);
            let base_url = gcs_base_url(&builder);
            let gcs = built!(builder);
            direct = Some(Direct::Gcs(Arc::new(GcsDirect::new(
                gcs.clone(),
                base_url,
                bucket,
            )?)));
            Arc::new(gcs)
        }
        "az" | "azure" => {
            let builder = configured_builder!(MicrosoftAzureBuilder);
            let (container_url, account) = azure_container_url(&builder, &bucket);
            let azure = built!(builder);
            if let Some(account) = account {
                direct = Some(Direct::Azure(Arc::new(AzureDirect::new(
                    azure.clone(),
                    container_url,
                    account,
                )?)));
            }
            Arc::new(azure)
        }
        _ => Arc::new(built!(configured_builder!(MicrosoftAzureBuilder))),
    };
    Ok(Client { store, direct })
}

/// The requests object_store does not make, for the stores that have them.
#[derive(Debug, Clone)]
pub(crate) enum Direct {
    S3(Arc<S3Direct>),
    Gcs(Arc<GcsDirect>),
    Azure(Arc<AzureDirect>),
}

/// The URL of `container` where object_store sends its requests (its
/// builder decides this privately), and the account that signs them: the
/// emulator's (`use_emulator`, `AZURITE_BLOB_STORAGE_URL`), or the account's
/// endpoint. No account: no request of our own.
fn azure_container_url(
    builder: &MicrosoftAzureBuilder,
    container: &str,
) -> (String, Option<String>) {
    let value = |key| builder.get_config_value(&key);
    let emulator =
        value(AzureConfigKey::UseEmulator).is_some_and(|v| v.eq_ignore_ascii_case("true"));
    if emulator {
        let account =
            value(AzureConfigKey::AccountName).unwrap_or_else(|| "devstoreaccount1".to_string());
        let base = std::env::var("AZURITE_BLOB_STORAGE_URL")
            .unwrap_or_else(|_| "http://127.0.0.1:10000".to_string());
        let url = format!("{}/{account}/{container}", base.trim_end_matches('/'));
        return (url, Some(account));
    }
    let Some(account) = value(AzureConfigKey::AccountName) else {
        return (String::new(), None);
    };
    let endpoint = value(AzureConfigKey::Endpoint)
        .unwrap_or_else(|| format!("https://{account}.blob.core.windows.net"));
    let url = format!("{}/{container}", endpoint.trim_end_matches('/'));
    (url, Some(account))
}

/// The base URL object_store's GCS client sends requests to (its builder
/// decides this privately): the `google_base_url` setting, else the
/// service account key's `gcs_base_url` (how emulators are reached), else
/// Google's.
fn gcs_base_url(builder: &GoogleCloudStorageBuilder) -> String {
    let from_key = |json: &str| {
        serde_json::from_str::<serde_json::Value>(json)
            .ok()?
            .get("gcs_base_url")?
            .as_str()
            .map(str::to_string)
    };
    builder
        .get_config_value(&GoogleConfigKey::BaseUrl)
        .or_else(|| {
            builder
                .get_config_value(&GoogleConfigKey::ServiceAccountKey)
                .and_then(|key| from_key(&key))
        })
        .or_else(|| {
            builder
                .get_config_value(&GoogleConfigKey::ServiceAccount)
                .and_then(|path| std::fs::read_to_string(path).ok())
                .and_then(|key| from_key(&key))
        })
        .unwrap_or_else(|| "https://storage.googleapis.com".to_string())
}

/// One store's clients: object_store's, and for S3 and GCS the requests it
/// does not make.
#[derive(Debug, Clone)]
pub(crate) struct Client {
    pub store: Arc<dyn ObjectStore>,
    pub direct: Option<Direct>,
}

/// Credentials and region of an AWS profile, as the AWS CLI finds them:
/// `AWS_PROFILE` (default `default`) in the shared credentials file
/// (`AWS_SHARED_CREDENTIALS_FILE`, default `~/.aws/credentials`) and the
/// config file (`AWS_CONFIG_FILE`, default `~/.aws/config`, sections
/// `[profile NAME]`). object_store reads only the environment, and the AWS
/// SDK's own loader would bring the whole SDK for these few lines. Static
/// keys only: a profile of `role_arn`, `sso_*` or `credential_process` is
/// refused with a message rather than ignored. Nothing when neither file
/// exists and no profile was asked for.
pub(crate) fn aws_profile(
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<(AmazonS3ConfigKey, String)>, String> {
    let asked = env("AWS_PROFILE").filter(|p| !p.is_empty());
    let profile = asked.clone().unwrap_or_else(|| "default".into());
    let home = env("HOME").unwrap_or_default();
    let file = |var: &str, default: &str| {
        env(var)
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| format!("{home}/.aws/{default}"))
    };
    let read = |path: &str| -> Result<Option<ini::Ini>, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => ini::Ini::load_from_str_noescape(&text)
                .map(Some)
                .map_err(|e| format!("{path}: {e}")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{path}: {e}")),
        }
    };
    let credentials_path = file("AWS_SHARED_CREDENTIALS_FILE", "credentials");
    let config_path = file("AWS_CONFIG_FILE", "config");
    let credentials = read(&credentials_path)?;
    let config = read(&config_path)?;
    let config_section = if profile == "default" {
        "default".to_string()
    } else {
        format!("profile {profile}")
    };
    let from_credentials = credentials
        .as_ref()
        .and_then(|c| c.section(Some(profile.as_str())));
    let from_config = config
        .as_ref()
        .and_then(|c| c.section(Some(config_section.as_str())));
    if from_credentials.is_none() && from_config.is_none() {
        return match asked {
            Some(p) => Err(format!(
                "AWS_PROFILE={p}: no such profile in {credentials_path} or {config_path}"
            )),
            None => Ok(Vec::new()),
        };
    }
    let get = |key: &str| {
        from_credentials
            .and_then(|s| s.get(key))
            .or_else(|| from_config.and_then(|s| s.get(key)))
            .map(str::to_string)
    };
    if let Some(other) = [
        "role_arn",
        "sso_start_url",
        "sso_session",
        "credential_process",
    ]
    .into_iter()
    .find(|k| get(k).is_some())
    {
        return Err(format!(
            "AWS profile {profile} uses {other}, which hashlab does not follow: export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (e.g. from `aws configure export-credentials`)"
        ));
    }
    let mut out = Vec::new();
    for (file_key, key) in [
        ("aws_access_key_id", AmazonS3ConfigKey::AccessKeyId),
        ("aws_secret_access_key", AmazonS3ConfigKey::SecretAccessKey),
        ("aws_session_token", AmazonS3ConfigKey::Token),
        ("region", AmazonS3ConfigKey::Region),
    ] {
        if let Some(value) = get(file_key) {
            out.push((key, value));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_store_and_key() {
        let s = split("s3://bucket/a/b c#d?.txt").unwrap();
        assert_eq!(s.store_id, "s3://bucket");
        assert_eq!(s.key, "a/b c#d?.txt");
        assert_eq!(split("S3://bucket").unwrap().key, "");
        assert_eq!(split("file:///tmp/x").unwrap().key, "tmp/x");
        assert_eq!(split("file:///tmp/x").unwrap().store_id, "file://");
        assert!(split("file://elsewhere/tmp")
            .unwrap_err()
            .contains("another host"));
        assert!(split("s3:///key").unwrap_err().contains("no bucket"));
        assert!(split("ftp://h/x")
            .unwrap_err()
            .contains("not an object store"));
        assert!(is_object_url("gs://b/x") && is_object_url("az://c/x"));
        assert!(!is_object_url("data/x") && !is_object_url("https://example.com/x"));
    }

    #[test]
    fn aws_profiles_are_read_as_the_aws_cli_reads_them() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().display().to_string();
        std::fs::create_dir_all(dir.path().join(".aws")).unwrap();
        std::fs::write(
            dir.path().join(".aws/credentials"),
            "[default]\naws_access_key_id = AKIDEFAULT\naws_secret_access_key = s3cr/t+default\n\
             [lab]\naws_access_key_id=AKILAB\naws_secret_access_key=labsecret\naws_session_token=tok\n\
             [assumed]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = default\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join(".aws/config"),
            "[default]\nregion = eu-west-3\n[profile lab]\nregion = us-west-2\n",
        )
        .unwrap();
        let with = |profile: Option<&'static str>| {
            let home = home.clone();
            aws_profile(&move |name| match name {
                "HOME" => Some(home.clone()),
                "AWS_PROFILE" => profile.map(str::to_string),
                _ => None,
            })
        };
        let values = |r: Vec<(AmazonS3ConfigKey, String)>| -> Vec<String> {
            r.into_iter().map(|(_, v)| v).collect()
        };
        assert_eq!(
            values(with(None).unwrap()),
            ["AKIDEFAULT", "s3cr/t+default", "eu-west-3"]
        );
        assert_eq!(
            values(with(Some("lab")).unwrap()),
            ["AKILAB", "labsecret", "tok", "us-west-2"]
        );
        assert!(with(Some("absent"))
            .unwrap_err()
            .contains("no such profile"));
        assert!(with(Some("assumed")).unwrap_err().contains("role_arn"));
        // No files and no profile asked for: nothing, no error.
        let nothing = aws_profile(&|name| (name == "HOME").then(|| "/nonexistent".to_string()));
        assert!(nothing.unwrap().is_empty());
    }
}
