//! Dropping a file's pages from the page cache (for cold-cache runs), and
//! checking whether that worked: `posix_fadvise(DONTNEED)` is only advice, and
//! some filesystems (tmpfs, overlays) keep the pages anyway.

use std::fs::File;
use std::os::unix::io::AsRawFd;

/// Asks the kernel to forget the file's cached pages.
pub fn drop_cached_pages(file: &File) -> Result<(), String> {
    // SAFETY: a plain syscall on an open descriptor; offset 0, length 0 = the whole file.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!(
            "posix_fadvise(DONTNEED) failed: {}",
            std::io::Error::from_raw_os_error(rc)
        ))
    }
}

/// The share of the file's pages now in the page cache (0.0 ..= 1.0), from mincore(2).
pub fn resident_fraction(file: &File) -> Result<f64, String> {
    resident_share(file, usize::MAX)
}

/// As [`resident_fraction`], from at most `windows` runs of 16 pages spread
/// evenly over the file: enough to tell a cached file from an uncached one.
/// Asking about every page of a 1 GiB file cost 23 ms of system time, a
/// seventh of hashing it with blake3.
pub fn resident_fraction_sampled(file: &File, windows: usize) -> Result<f64, String> {
    resident_share(file, windows.max(1))
}

const WINDOW_PAGES: usize = 16;

fn resident_share(file: &File, windows: usize) -> Result<f64, String> {
    let len = file.metadata().map_err(|e| e.to_string())?.len() as usize;
    if len == 0 {
        return Ok(0.0);
    }
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as usize;
    // SAFETY: a read-only shared mapping of an open file; it is only passed to
    // mincore (never read, so a concurrent truncation cannot fault) and unmapped below.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    if addr == libc::MAP_FAILED {
        return Err(format!("mmap: {}", std::io::Error::last_os_error()));
    }
    let pages = len.div_ceil(page);
    // (first page, page count) of each run asked about.
    let runs: Vec<(usize, usize)> = if windows.saturating_mul(WINDOW_PAGES) >= pages {
        vec![(0, pages)]
    } else {
        let stride = pages / windows;
        (0..windows)
            .map(|i| (i * stride, WINDOW_PAGES.min(pages - i * stride)))
            .collect()
    };
    let mut vec = vec![0u8; runs.iter().map(|r| r.1).max().unwrap_or(0)];
    let mut asked = 0usize;
    let mut resident = 0usize;
    let mut failure = None;
    for (first, count) in runs {
        // SAFETY: the run lies inside the mapping just made (first + count <=
        // pages); vec has at least one byte per page of the run.
        let rc = unsafe {
            libc::mincore(
                (addr as *mut u8).add(first * page).cast(),
                (count * page).min(len - first * page),
                vec.as_mut_ptr(),
            )
        };
        if rc != 0 {
            failure = Some(std::io::Error::last_os_error());
            break;
        }
        asked += count;
        resident += vec[..count].iter().filter(|b| *b & 1 == 1).count();
    }
    // SAFETY: unmapping exactly what was mapped.
    unsafe { libc::munmap(addr, len) };
    if let Some(err) = failure {
        return Err(format!("mincore: {err}"));
    }
    Ok(resident as f64 / asked as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_makes_pages_resident_and_the_answer_is_a_fraction() {
        let path = std::env::temp_dir().join(format!("hashlab-filecache-{}", std::process::id()));
        std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
        let file = File::open(&path).unwrap();
        let _ = std::fs::read(&path).unwrap();
        let warm = resident_fraction(&file).unwrap();
        assert!(warm > 0.9, "just read: {warm}");
        drop_cached_pages(&file).unwrap();
        let cold = resident_fraction(&file).unwrap();
        assert!((0.0..=1.0).contains(&cold));
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_sample_of_the_pages_tells_what_all_of_them_tell() {
        let path = std::env::temp_dir().join(format!("hashlab-sampled-{}", std::process::id()));
        std::fs::write(&path, vec![3u8; 16 << 20]).unwrap();
        let file = File::open(&path).unwrap();
        let _ = std::fs::read(&path).unwrap();
        assert!(resident_fraction_sampled(&file, 64).unwrap() > 0.9);
        drop_cached_pages(&file).unwrap();
        if resident_fraction(&file).unwrap() < 0.05 {
            // Where the cache can be emptied (not tmpfs): read a quarter back.
            use std::io::Read;
            let mut quarter = vec![0u8; 4 << 20];
            (&file).read_exact(&mut quarter).unwrap();
            let all = resident_fraction(&file).unwrap();
            let sampled = resident_fraction_sampled(&file, 64).unwrap();
            assert!((sampled - all).abs() < 0.1, "sampled {sampled}, all {all}");
            assert!(sampled < 0.5, "{sampled}");
        }
        std::fs::remove_file(&path).unwrap();
    }
}
