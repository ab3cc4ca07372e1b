//! `az://` against Azurite (scripts/azurite, 127.0.0.1), blobs uploaded by
//! Microsoft's own client: a directory compared with each blob's
//! `Content-MD5`, reading none; a blob uploaded in blocks has none, and says
//! so. Skipped with a message where Node.js is missing (HASHLAB_CI=1 makes
//! that a failure).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

use common::{text, LocalServer};

/// An Azurite for one test.
struct Azurite {
    _server: LocalServer,
    url: String,
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/azurite")
}

fn start() -> Option<Azurite> {
    let server = LocalServer::start("azurite")?;
    let url = server.export("AZURITE_BLOB_STORAGE_URL").to_string();
    server.wait_for(url.trim_start_matches("http://"));
    Some(Azurite {
        _server: server,
        url,
    })
}

impl Azurite {
    fn upload(&self, container: &str, files: &[(&str, &Path)]) {
        let mut command = Command::new("bash");
        command
            .arg(script())
            .arg("upload")
            .arg(format!("{}/devstoreaccount1", self.url))
            .arg(container);
        for (name, path) in files {
            command.arg(name).arg(path);
        }
        let out = command.output().unwrap();
        assert!(
            out.status.success(),
            "upload: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn hashlab(&self, cwd: &Path, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_hashlab"))
            .args(args)
            .current_dir(cwd)
            .env("AZURE_STORAGE_USE_EMULATOR", "true")
            .env("AZURITE_BLOB_STORAGE_URL", &self.url)
            .output()
            .unwrap()
    }
}

#[test]
fn a_tree_is_compared_with_the_content_md5_azure_recorded() {
    let Some(azure) = start() else { return };
    let work = tempfile::tempdir().unwrap();
    let local = work.path().join("tree");
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("a.txt", b"alpha\n".to_vec()),
        ("dir/b ü", (0..70_000u32).map(|i| (i % 253) as u8).collect()),
        // Over 4 MiB: uploaded in blocks, so Azure keeps no Content-MD5.
        (
            "big.bin",
            (0..5_000_000u32).map(|i| (i * 7 % 251) as u8).collect(),
        ),
    ];
    let mut uploads = Vec::new();
    for (name, bytes) in &files {
        let path = local.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        uploads.push((format!("tree/{name}"), path));
    }
    let pairs: Vec<(&str, &Path)> = uploads
        .iter()
        .map(|(n, p)| (n.as_str(), p.as_path()))
        .collect();
    azure.upload("lake", &pairs);
    let cwd = work.path();

    let audit = azure.hashlab(cwd, &["audit", "--json", "tree", "az://lake/tree"]);
    assert!(
        audit.status.success(),
        "{}{}",
        text(&audit.stdout),
        text(&audit.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&audit.stdout).unwrap();
    let rows: Vec<(String, String, String)> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["status"].as_str().unwrap().to_string(),
                r["name"].as_str().unwrap().to_string(),
                r["detail"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        rows.contains(&("matched".into(), "a.txt".into(), "Content-MD5".into())),
        "{rows:?}"
    );
    assert!(
        rows.contains(&("matched".into(), "dir/b ü".into(), "Content-MD5".into())),
        "{rows:?}"
    );
    let big = rows.iter().find(|r| r.1 == "big.bin").unwrap();
    assert_eq!(big.0, "not-comparable", "{rows:?}");
    assert!(big.2.contains("is not an MD5"), "{rows:?}");

    // --from-store -a md5 lists the recorded MD5s; the blob without one is an error.
    let listed = azure.hashlab(cwd, &["sum", "--from-store", "-a", "md5", "az://lake/tree"]);
    assert_eq!(listed.status.code(), Some(1));
    let said = text(&listed.stdout);
    assert!(
        said.contains("  az://lake/tree/a.txt\n") && said.contains("  az://lake/tree/dir/b ü\n"),
        "{said}"
    );
    assert!(
        text(&listed.stderr)
            .contains("az://lake/tree/big.bin: the store recorded no md5 of the whole object"),
        "{}",
        text(&listed.stderr)
    );
    let on_disk = azure.hashlab(cwd, &["sum", "-a", "md5", "tree/a.txt"]);
    let local_md5 = text(&on_disk.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    assert!(
        said.contains(&format!("{local_md5}  az://lake/tree/a.txt")),
        "{said}"
    );

    // A file changed after the upload, same size: changed by its Content-MD5.
    std::fs::write(local.join("a.txt"), b"alphA\n").unwrap();
    let audit = azure.hashlab(cwd, &["audit", "tree", "az://lake/tree"]);
    assert_eq!(audit.status.code(), Some(1), "{}", text(&audit.stderr));
    assert!(
        text(&audit.stdout).contains("changed: a.txt: Content-MD5: the file gives "),
        "{}",
        text(&audit.stdout)
    );
}
