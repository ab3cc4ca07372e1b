//! What went wrong with a store, as a class the caller can act on, and the
//! one line that says it. Apart from the stores' setup (store.rs), so that
//! each store's direct requests (azure.rs, gcs.rs, s3.rs, direct.rs), which
//! the setup builds, can classify their errors without reaching back.

/// What went wrong, as a class the caller can act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// The URL itself, or the store's configuration, is wrong.
    Usage,
    /// No object at this key (or nothing under this prefix).
    NotFound,
    /// The bucket (container) does not exist.
    NoSuchBucket,
    /// The credentials were refused or lack the permission.
    AccessDenied,
    /// The endpoint could not be reached.
    Unreachable,
    /// The object changed while it was being read.
    Changed,
    /// The store keeps no value of the kind asked for (a checksum by an
    /// algorithm the upload did not send).
    NotRecorded,
    /// Anything else the store reported.
    Other,
}

/// The message of an object_store error as one line that names the
/// problem: the chain of sources joined, the response body (XML) reduced to
/// its error code and message. Requests are signed in headers, never in
/// the URL, so no credential is in the text.
pub(crate) fn describe(error: &object_store::Error) -> String {
    classify(error).1
}

/// The chain of an error's messages, for [`classify_text`].
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    chain_text(error)
}

/// A failure known only by its text (a connection that failed before any
/// answer): unreachable, or the first line of what was said.
pub(crate) fn classify_text(chain: &str) -> (Problem, String) {
    if refused(chain) {
        (
            Problem::Unreachable,
            format!("cannot connect: {}", connect_reason(chain)),
        )
    } else {
        (Problem::Other, first_line(chain))
    }
}

pub(crate) fn classify(error: &object_store::Error) -> (Problem, String) {
    let chain = chain_text(error);
    let code = xml_field(&chain, "Code");
    let problem = match (error, code.as_deref()) {
        (_, Some("NoSuchBucket" | "ContainerNotFound")) => Problem::NoSuchBucket,
        (_, Some("AccessDenied" | "InvalidAccessKeyId" | "SignatureDoesNotMatch"))
        | (_, Some("AuthenticationFailed" | "AuthorizationFailure")) => Problem::AccessDenied,
        (object_store::Error::PermissionDenied { .. }, _)
        | (object_store::Error::Unauthenticated { .. }, _) => Problem::AccessDenied,
        (object_store::Error::Precondition { .. }, _) => Problem::Changed,
        (object_store::Error::NotFound { .. }, _) => Problem::NotFound,
        (object_store::Error::UnknownConfigurationKey { .. }, _) => Problem::Usage,
        _ if refused(&chain) => Problem::Unreachable,
        _ => Problem::Other,
    };
    let message = match (problem, code.as_deref()) {
        (Problem::NoSuchBucket, _) => "no such bucket".to_string(),
        (Problem::AccessDenied, Some("InvalidAccessKeyId")) => {
            "access denied: the access key id is not known to the server (AWS_ACCESS_KEY_ID)"
                .to_string()
        }
        (Problem::AccessDenied, Some("SignatureDoesNotMatch")) => {
            "access denied: the request signature does not match (check AWS_SECRET_ACCESS_KEY)"
                .to_string()
        }
        (Problem::AccessDenied, _) => "access denied".to_string(),
        (Problem::Changed, _) => {
            "changed while it was being read; its digest would describe neither version".to_string()
        }
        (Problem::NotFound, _) => "no such object".to_string(),
        (Problem::Unreachable, _) => format!("cannot connect: {}", connect_reason(&chain)),
        _ => match (code, xml_field(&chain, "Message")) {
            (Some(code), Some(message)) => format!("{code}: {message}"),
            _ => first_line(&chain),
        },
    };
    (problem, message)
}

/// Every message of the error's source chain, outermost first.
fn chain_text(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let more = e.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = e.source();
    }
    text
}

fn xml_field(text: &str, field: &str) -> Option<String> {
    let open = format!("<{field}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find("</")? + start;
    Some(text[start..end].trim().to_string())
}

fn refused(chain: &str) -> bool {
    let lower = chain.to_ascii_lowercase();
    [
        "connection refused",
        "dns error",
        "failed to lookup address",
        "error trying to connect",
        "tcp connect error",
        "client error (connect)",
        "operation timed out",
    ]
    .iter()
    .any(|s| lower.contains(s))
}

fn connect_reason(chain: &str) -> String {
    let lower = chain.to_ascii_lowercase();
    if lower.contains("connection refused") {
        "connection refused".into()
    } else if lower.contains("dns error") || lower.contains("failed to lookup address") {
        "the endpoint's host name does not resolve".into()
    } else if lower.contains("timed out") {
        "timed out".into()
    } else {
        first_line(chain)
    }
}

/// The text up to its first line break, without a response body.
fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    let line = match line.find("<?xml") {
        Some(at) => line[..at].trim_end_matches([' ', ':']),
        None => line,
    };
    line.chars().take(300).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses_become_one_line() {
        let body = "Server returned non-2xx status code: 404 Not Found: <?xml version=\"1.0\"?>\n<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message></Error>";
        let error = object_store::Error::Generic {
            store: "S3",
            source: body.into(),
        };
        assert_eq!(
            classify(&error),
            (Problem::NoSuchBucket, "no such bucket".into())
        );
        let error = object_store::Error::Generic {
            store: "S3",
            source: "Server returned non-2xx status code: 500: <Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>".into(),
        };
        assert_eq!(
            classify(&error).1,
            "SlowDown: Please reduce your request rate."
        );
        let error = object_store::Error::Generic {
            store: "S3",
            source: "HTTP error: error sending request: client error (Connect): tcp connect error: Connection refused (os error 111)".into(),
        };
        assert_eq!(
            classify(&error),
            (
                Problem::Unreachable,
                "cannot connect: connection refused".into()
            )
        );
    }
}
