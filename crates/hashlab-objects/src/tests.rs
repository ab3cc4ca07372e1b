use super::*;
use hashlab::HashParams;

fn sha256() -> Fanout {
    Fanout::new(vec![Registry::default()
        .hasher("sha256", None, &HashParams::default())
        .unwrap()])
}

#[test]
fn etags_are_judged_only_when_they_are_md5s() {
    let registry = Registry::default();
    let judge = |tag: Option<&str>, sizes: Option<&[u64]>, data: &[u8]| {
        let mut check = EtagCheck::new(&registry, tag, sizes);
        check.update(data);
        check.finish()
    };
    let md5_abc = "900150983cd24fb0d6963f7d28e17f72";
    assert_eq!(judge(Some(md5_abc), None, b"abc"), EtagVerdict::Matches);
    assert_eq!(
        judge(Some(&md5_abc.to_ascii_uppercase()), None, b"abc"),
        EtagVerdict::Matches
    );
    assert_eq!(
        judge(Some("00000000000000000000000000000000"), None, b"abc"),
        EtagVerdict::Differs {
            computed: md5_abc.into(),
            e_tag: "00000000000000000000000000000000".into()
        }
    );
    // A multipart ETag: MD5 of MD5("ab") || MD5("c"), given the part sizes.
    let multipart = "3eb8a4d2cd7b6ab1e6b4a0b1a1dd4e2b-2";
    assert!(matches!(
        judge(Some(multipart), None, b"abc"),
        EtagVerdict::NotComparable { reason } if reason.contains("did not give")
    ));
    let md5 = |d: &[u8]| {
        let mut h = registry
            .hasher("md5", None, &HashParams::default())
            .unwrap();
        h.update(d);
        h.finalize_reset().as_bytes().to_vec()
    };
    let mut joined = md5(b"ab");
    joined.extend(md5(b"c"));
    let right = format!("{}-2", hashlab::hex::encode(&md5(&joined)));
    assert_eq!(
        judge(Some(&right), Some(&[2, 1]), b"abc"),
        EtagVerdict::Matches
    );
    assert!(matches!(
        judge(Some(&right), Some(&[1, 2]), b"abc"),
        EtagVerdict::Differs { .. }
    ));
    // Azure and GCS ETags are versions, not digests.
    assert!(matches!(
        judge(Some("0x8DCA1B2C3D4E5F6"), None, b"abc"),
        EtagVerdict::NotComparable { .. }
    ));
    assert!(matches!(
        judge(None, None, b"abc"),
        EtagVerdict::NotComparable { .. }
    ));
    let mut summary = EtagSummary::default();
    summary.add(&judge(Some(multipart), None, b"abc"));
    assert!(summary.passed());
    summary.add(&judge(
        Some("00000000000000000000000000000000"),
        None,
        b"abc",
    ));
    assert!(!summary.passed());
}

#[test]
fn bytes_in_flight_are_bounded() {
    let with = |requests, range_size| {
        ObjectReader::new(Settings {
            requests,
            range_size,
            ..Settings::default()
        })
    };
    for (requests, range_size) in [(0, 1), (1, 0), (usize::MAX, u64::MAX), (2, 4 << 30)] {
        let err = with(requests, range_size).err().expect("refused");
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    }
    assert!(with(2, 4 << 30)
        .err()
        .unwrap()
        .to_string()
        .contains("over the limit of 4294967296 bytes in flight"));
    assert!(with(1, 4 << 30).is_ok());
}

#[test]
fn ranges_cover_each_object_once_in_order() {
    let reader = ObjectReader::new(Settings::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let objects: Vec<ObjectInfo> = [0u64, 5, 10, 11]
        .iter()
        .map(|&size| {
            let url = format!("file://{}/x", dir.path().display());
            reader.object(&url, size, None).unwrap()
        })
        .collect();
    let units = plan(&objects, 5);
    let ranges: Vec<(usize, Option<Range<u64>>, bool)> = units
        .into_iter()
        .map(|u| (u.object, u.range, u.last))
        .collect();
    assert_eq!(
        ranges,
        vec![
            (0, None, true),
            (1, Some(0..5), true),
            (2, Some(0..5), false),
            (2, Some(5..10), true),
            (3, Some(0..5), false),
            (3, Some(5..10), false),
            (3, Some(10..11), true),
        ]
    );
}

/// file:// goes through the same listing and ranged reads as s3://.
#[test]
fn file_urls_list_sorted_and_hash_like_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    std::fs::create_dir_all(root.join("sub dir")).unwrap();
    let big: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(root.join("b"), &big).unwrap();
    std::fs::write(root.join("a"), b"abc").unwrap();
    std::fs::write(root.join("sub dir/c d"), b"").unwrap();
    let reader = ObjectReader::new(Settings {
        range_size: 1 << 20,
        requests: 3,
        ..Settings::default()
    })
    .unwrap();
    let url = format!("file://{}/", root.display());
    let objects = reader.list(&url).unwrap();
    let names: Vec<&str> = objects.iter().map(|o| o.name.as_str()).collect();
    let base = format!("file://{}", root.display());
    assert_eq!(
        names,
        vec![
            format!("{base}/a"),
            format!("{base}/b"),
            format!("{base}/sub dir/c d")
        ]
    );
    let mut got = Vec::new();
    reader
        .hash::<()>(&objects, &sha256, false, &mut |i, r| {
            got.push((i, r.unwrap().digests));
            Ok(())
        })
        .unwrap();
    let local = |bytes: &[u8]| {
        let mut h = sha256();
        h.update(bytes);
        h.finalize_reset()
    };
    assert_eq!(got[0].1.digests[0], local(b"abc"));
    assert_eq!(got[1].1.digests[0], local(&big));
    assert_eq!(got[1].1.bytes, big.len() as u64);
    assert_eq!(got[2].1.digests[0], local(b""));
    // One object by name, as `check` reads it.
    let mut h = sha256();
    let (bytes, _) = reader
        .read_into(&format!("{base}/b"), false, &mut |c| h.update(c))
        .unwrap();
    assert_eq!((bytes, h.finalize_reset()), (big.len() as u64, local(&big)));
    // Nothing there at all: NotFound, naming the URL.
    let err = reader.list(&format!("{base}/nothing")).unwrap_err();
    assert_eq!(err.problem, Problem::NotFound);
    assert!(
        err.to_string().starts_with(&format!("{base}/nothing: ")),
        "{err}"
    );
}
